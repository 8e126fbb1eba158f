package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestAgentsVersionsCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		agent := ts.StoreAgent(t, ts.AccountID, "v", `{"child_steps":[{"id":"greet","step_type":"text","text":"one"}]}`, "dynamic_input")

		var def client.AgentDefinition
		run(t, append(g, "agents", "definition", "get", agent)...).ok(t, &def)
		first := def.ChangeID
		file := filepath.Join(t.TempDir(), "d.json")
		if err := os.WriteFile(file, []byte(`{"child_steps":[{"id":"greet","step_type":"text","text":"two"},{"id":"extra","step_type":"text","text":"x"}]}`), 0o600); err != nil {
			t.Fatal(err)
		}
		run(t, append(g, "agents", "definition", "put", agent, "--file", file, "--change-id", first)...).ok(t, &def)
		second := def.ChangeID

		var list []client.AgentVersion
		run(t, append(g, "agents", "versions", "list", agent)...).ok(t, &list)
		if len(list) != 2 || list[0].ChangeID != second || list[1].ChangeID != first || !list[0].Current {
			t.Fatalf("versions list: %+v", list)
		}
		tbl := run(t, append(g, "agents", "versions", "list", agent, "-o", "table")...)
		if !strings.Contains(tbl.stdout, "added extra; changed greet (text)") {
			t.Errorf("list table:\n%s", tbl.stdout)
		}
		var one client.AgentVersion
		run(t, append(g, "agents", "versions", "get", agent, first)...).ok(t, &one)
		if !strings.Contains(string(one.Definition), `"one"`) {
			t.Errorf("versions get: %+v", one)
		}
		var diff client.AgentVersionDiff
		run(t, append(g, "agents", "versions", "diff", agent, second, "--against", first)...).ok(t, &diff)
		if len(diff.Diff.Added) != 1 || diff.Diff.Added[0].StepKey != "extra" || len(diff.Diff.Changed) != 1 {
			t.Errorf("versions diff: %+v", diff)
		}
		tbl = run(t, append(g, "agents", "versions", "diff", agent, second, "-o", "table")...)
		if !strings.Contains(tbl.stdout, `"one" → "two"`) {
			t.Errorf("diff table:\n%s", tbl.stdout)
		}
		// A stale expected change id is a conflict; without one, the current is read.
		run(t, append(g, "agents", "versions", "restore", agent, first, "--expected-change-id", first)...).exits(t, cli.ExitConflict, "")
		var restored client.AgentVersion
		run(t, append(g, "agents", "versions", "restore", agent, first)...).ok(t, &restored)
		if restored.ChangeID == first || restored.ChangeID == second || !restored.Current {
			t.Errorf("restore: %+v", restored)
		}
		run(t, append(g, "agents", "versions", "get", agent, store.NewID())...).exits(t, cli.ExitNotFound, "")
	})
}
