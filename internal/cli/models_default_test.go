package cli_test

import (
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestModelsDefaultCommands: `agentry models default get|set|clear` show
// and change the account's default model, and `models list -o table`
// says which model answers steps that name none and how to change it.
func TestModelsDefaultCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		_, models := playgroundtest.Start(t)
		ts := testserver.Start(t, d, models)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}

		var def client.DefaultModel
		run(t, append(g, "models", "default", "get")...).ok(t, &def)
		if def.ModelID != "agentry_offline" || def.Source != "server" || def.AccountModelID != nil {
			t.Fatalf("get: %+v", def)
		}
		table := run(t, append(g, "models", "list", "-o", "table")...)
		table.ok(t, nil)
		if !strings.Contains(table.stdout, "answered by agentry_offline") || !strings.Contains(table.stdout, "agentry models default set MODEL") {
			t.Fatalf("models list -o table does not say the default:\n%s", table.stdout)
		}

		run(t, append(g, "models", "default", "set", "gpt-4.1")...).ok(t, &def)
		if def.ModelID != "openai_gpt_4_1" || def.Source != "account" {
			t.Fatalf("set: %+v", def)
		}
		out := run(t, append(g, "models", "default", "get", "-o", "table")...)
		out.ok(t, nil)
		if !strings.Contains(out.stdout, "openai_gpt_4_1") || !strings.Contains(out.stdout, "the account's default") {
			t.Fatalf("get -o table:\n%s", out.stdout)
		}
		run(t, append(g, "models", "default", "set", "no_such_model")...).exits(t, 5, "not in the model catalog")

		run(t, append(g, "models", "default", "clear")...).ok(t, &def)
		if def.ModelID != "agentry_offline" || def.Source != "server" {
			t.Fatalf("clear: %+v", def)
		}
	})
}
