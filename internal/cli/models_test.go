package cli_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// mdRetiring is a test model that retires in 20 days.
func mdRetiring() []byte {
	day := func(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format(time.DateOnly) }
	return []byte(fmt.Sprintf(`models:
  - {id: acme_old, api_name: acme-old, name: Acme Old, provider: acme, family: acme, family_generation: 1, kind: chat,
     max_context_tokens: 100000, max_output_tokens: 8000, supports_tool_use: true, pricing: {input: 100, output: 200},
     released_at: %s, deprecated_at: %s, sunset_at: %s}
`, day(-300), day(-30), day(20)))
}

// mdAlert stores an agent on the retiring model and raises its alert.
func mdAlert(t *testing.T, ts *testserver.Server) {
	t.Helper()
	agentID := ts.StoreAgent(t, ts.AccountID, "cli agent",
		`{"child_steps":[{"id":"ask","step_type":"prompt_call","model":"acme_old","prompt_template":"{{input}}"}]}`, "dynamic_input")
	if _, err := ts.S.ModelAlerts.CheckAgent(ctx, ts.AccountID, agentID); err != nil {
		t.Fatal(err)
	}
}

func TestModelsCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		_, models := playgroundtest.Start(t, mdRetiring())
		ts := testserver.Start(t, d, models)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}

		var groups []client.ProviderGroup
		run(t, append(g, "models", "list", "--provider", "anthropic", "--thinking")...).ok(t, &groups)
		if len(groups) != 1 || groups[0].Provider != "anthropic" || len(groups[0].Models) == 0 {
			t.Fatalf("models list: %+v", groups)
		}
		for _, m := range groups[0].Models {
			if !m.SupportsThinking {
				t.Errorf("%s without thinking", m.ID)
			}
		}
		run(t, append(g, "models", "list", "--tool-use=false")...).ok(t, &groups)
		for _, gr := range groups {
			for _, m := range gr.Models {
				if m.SupportsToolUse {
					t.Errorf("--tool-use=false listed %s", m.ID)
				}
			}
		}
		tbl := run(t, append(g, "models", "list", "--provider", "acme", "-o", "table")...)
		tbl.ok(t, nil)
		if !strings.Contains(tbl.stdout, "acme_old") || !strings.Contains(tbl.stdout, "sunset ") {
			t.Errorf("table:\n%s", tbl.stdout)
		}
		run(t, append(g, "models", "list", "--input-media", "smell")...).exits(t, cli.ExitValidation, "supports_input_media")
		// "Last used" is a date, or never.
		tbl = run(t, append(g, "models", "get", "openai_gpt_4o", "-o", "table")...)
		if !regexp.MustCompile(`Last used:\s+never`).MatchString(tbl.stdout) {
			t.Errorf("never used:\n%s", tbl.stdout)
		}
		if _, _, err := billing.NewCredits(ts.DB).RecordUsage(context.Background(), billing.Usage{AccountID: ts.AccountID, Purpose: "prompt_call", Model: "openai_gpt_4o", Credits: 1}); err != nil {
			t.Fatal(err)
		}
		tbl = run(t, append(g, "models", "get", "gpt-4o", "-o", "table")...)
		if !regexp.MustCompile(`Last used:\s+` + time.Now().UTC().Format(time.DateOnly)).MatchString(tbl.stdout) {
			t.Errorf("used today:\n%s", tbl.stdout)
		}
		// o1 retired on 2026-10-23: computed from today's date, it is
		// listed retired and disabled.
		tbl = run(t, append(g, "models", "get", "openai_o1", "-o", "table")...)
		if !strings.Contains(tbl.stdout, "retired 2026-10-23") || !regexp.MustCompile(`Enabled:\s+false`).MatchString(tbl.stdout) {
			t.Errorf("retired model:\n%s", tbl.stdout)
		}

		var m client.Model
		run(t, append(g, "models", "get", "gpt-4o")...).ok(t, &m)
		if m.ID != "openai_gpt_4o" {
			t.Errorf("models get: %+v", m)
		}
		run(t, append(g, "models", "get", "nope")...).exits(t, cli.ExitNotFound, "not found")
		tbl = run(t, append(g, "models", "get", "acme_old", "-o", "table")...)
		if !strings.Contains(tbl.stdout, "Acme Old") || !strings.Contains(tbl.stdout, "Lifecycle:") {
			t.Errorf("get table:\n%s", tbl.stdout)
		}

		var rec client.ModelRecommendations
		run(t, append(g, "models", "recommend", "openai_gpt_4o", "--thinking", "--min-context", "200000")...).ok(t, &rec)
		if rec.CurrentModelID != "openai_gpt_4o" {
			t.Errorf("recommend: %+v", rec)
		}
		for _, r := range rec.Alternatives {
			if !r.SupportsThinking || r.MaxContextTokens < 200000 {
				t.Errorf("%s ignores the flags", r.ID)
			}
		}
		tbl = run(t, append(g, "models", "recommend", "openai_gpt_4o", "-o", "table")...)
		if !strings.Contains(tbl.stdout, "alternative") {
			t.Errorf("recommend table:\n%s", tbl.stdout)
		}

		var tiers []client.GenerationTier
		run(t, append(g, "models", "tiers")...).ok(t, &tiers)
		if len(tiers) < 3 {
			t.Errorf("tiers: %+v", tiers)
		}

		// Alerts.
		mdAlert(t, ts)
		mdAlert(t, ts)
		var alerts []client.ModelAlert
		run(t, append(g, "models", "alerts", "list", "--unread")...).ok(t, &alerts)
		if len(alerts) != 2 || alerts[0].PromptModelID != "acme_old" {
			t.Fatalf("alerts: %+v", alerts)
		}
		page := run(t, append(g, "models", "alerts", "list", "--limit", "1")...)
		page.ok(t, &alerts)
		if len(alerts) != 1 || !strings.Contains(page.stderr, "--offset 1 for more") {
			t.Errorf("one page: %d, stderr %q", len(alerts), page.stderr)
		}
		run(t, append(g, "models", "alerts", "list", "--limit", "1", "--all")...).ok(t, &alerts)
		if len(alerts) != 2 {
			t.Errorf("--all: %d", len(alerts))
		}
		var count struct{ Count int }
		run(t, append(g, "models", "alerts", "count")...).ok(t, &count)
		if count.Count != 2 {
			t.Errorf("count: %d", count.Count)
		}
		run(t, append(g, "models", "alerts", "read", alerts[0].ID)...).ok(t, nil)
		run(t, append(g, "models", "alerts", "count")...).ok(t, &count)
		if count.Count != 1 {
			t.Errorf("count after read: %d", count.Count)
		}
		run(t, append(g, "models", "alerts", "read", "0190a3b4-0000-7000-8000-000000000000")...).exits(t, cli.ExitNotFound, "not found")
		run(t, append(g, "models", "alerts", "read")...).exits(t, cli.ExitUsage, "at least one alert")
		run(t, append(g, "models", "alerts", "read-all")...).ok(t, nil)
		run(t, append(g, "models", "alerts", "count")...).ok(t, &count)
		if count.Count != 0 {
			t.Errorf("count after read-all: %d", count.Count)
		}
		tbl = run(t, append(g, "models", "alerts", "list", "-o", "table")...)
		if !strings.Contains(tbl.stdout, "model_sunset") || !strings.Contains(tbl.stdout, "read") {
			t.Errorf("alerts table:\n%s", tbl.stdout)
		}
	})
}
