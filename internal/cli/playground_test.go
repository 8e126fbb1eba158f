package cli_test

import (
	"github.com/agentry/agentry/internal/billing"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestPlaygroundCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		fakes, models := playgroundtest.Start(t)
		ts := testserver.Start(t, d, models)
		if _, err := billing.NewCredits(ts.DB).Grant(ctx, ts.AccountID, 100_000, "test", "grant"); err != nil {
			t.Fatal(err)
		}
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		dir := t.TempDir()
		prompt := filepath.Join(dir, "prompt.txt")
		if err := os.WriteFile(prompt, []byte("What is the capital of France?"), 0o600); err != nil {
			t.Fatal(err)
		}

		// Create and wait, with the prompt from a file and an evaluator.
		var e client.Experiment
		run(t, append(g, "playground", "create", "--prompt", "@"+prompt, "--system-prompt", "Paris is the capital of France.",
			"--model", "agentry_offline", "--model", "openai_gpt_4o_mini", "--evaluate", "--evaluator", "agentry_offline",
			"--wait", "--interval", "30ms")...).ok(t, &e)
		res, err := e.Results()
		if e.Status != client.ExperimentCompleted || e.Prompt != "What is the capital of France?" || err != nil || len(res.Models) != 2 ||
			res.Models[1].Output == nil || *res.Models[1].Output != "Paris is the capital of France." || res.Models[0].Evaluation == nil {
			t.Fatalf("create --wait: %+v %+v %v", e, res, err)
		}
		tbl := run(t, append(g, "playground", "get", e.ID, "-o", "table")...)
		tbl.ok(t, nil)
		if !strings.Contains(tbl.stdout, "openai_gpt_4o_mini") || !strings.Contains(tbl.stdout, "Total: 4 calls") || !strings.Contains(tbl.stdout, "completed") {
			t.Errorf("table:\n%s", tbl.stdout)
		}

		// Create without waiting, then cancel while the paid model stalls.
		fakes.OpenAI.Enqueue(fakellm.Reply{Text: "late", Delay: time.Minute})
		var created client.CreateExperimentResponse
		run(t, append(g, "playground", "create", "--prompt", "p", "--model", "openai_gpt_4o_mini")...).ok(t, &created)
		deadline := time.Now().Add(20 * time.Second)
		for len(fakes.OpenAI.Requests()) < 2 {
			if time.Now().After(deadline) {
				t.Fatal("the stalled call never started")
			}
			time.Sleep(20 * time.Millisecond)
		}
		var st struct{ Status string }
		run(t, append(g, "playground", "cancel", created.ExperimentID)...).ok(t, &st)
		if st.Status != client.ExperimentCanceled {
			t.Errorf("cancel: %+v", st)
		}
		run(t, append(g, "playground", "wait", created.ExperimentID, "--interval", "20ms")...).ok(t, &e)
		if e.Status != client.ExperimentCanceled {
			t.Errorf("wait after cancel: %s", e.Status)
		}
		run(t, append(g, "playground", "cancel", created.ExperimentID)...).ok(t, &st)

		// A failed experiment exits 1 after showing itself.
		fakes.Anthropic.Enqueue(fakellm.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "bad prompt"})
		r := run(t, append(g, "playground", "create", "--prompt", "p", "--model", "anthropic_claude_haiku_4_5", "--wait", "--interval", "20ms")...)
		r.exits(t, cli.ExitError, "bad prompt")
		if !strings.Contains(r.stdout, `"status": "failed"`) {
			t.Errorf("failed experiment not shown: %s", r.stdout)
		}

		// Lists.
		var list []client.ExperimentSummary
		run(t, append(g, "playground", "list")...).ok(t, &list)
		if len(list) != 3 || list[1].ID != created.ExperimentID {
			t.Fatalf("list: %+v", list)
		}
		page := run(t, append(g, "playground", "list", "--limit", "1")...)
		page.ok(t, &list)
		if len(list) != 1 || !strings.Contains(page.stderr, "--offset 1") {
			t.Errorf("page: %d %q", len(list), page.stderr)
		}
		today := time.Now().UTC().Format(time.DateOnly)
		run(t, append(g, "playground", "list", "--start-date", today, "--end-date", today, "--limit", "1", "--all")...).ok(t, &list)
		if len(list) != 3 {
			t.Errorf("--all: %d", len(list))
		}
		run(t, append(g, "playground", "list", "--days", "0", "--start-date", "soon")...).exits(t, cli.ExitValidation, "start_date")

		// Delete, and the errors a user meets.
		run(t, append(g, "playground", "delete", e.ID)...).ok(t, nil)
		run(t, append(g, "playground", "get", e.ID)...).exits(t, cli.ExitNotFound, "not found")
		run(t, append(g, "playground", "cancel", list[0].ID)...).exits(t, cli.ExitConflict, "finished")
		run(t, append(g, "playground", "create", "--prompt", "p")...).exits(t, cli.ExitUsage, "--model")
		run(t, append(g, "playground", "create", "--prompt", "p", "--model", "nope")...).exits(t, cli.ExitValidation, "model_ids")
		run(t, append(g, "playground", "create", "--prompt", "@"+filepath.Join(dir, "missing"), "--model", "agentry_offline")...).exits(t, cli.ExitUsage, "missing")
		broke := ts.NewTenant(t, "broke")
		if _, err := billing.NewCredits(ts.DB).Debit(ctx, broke.AccountID, 1000, "test", "drain"); err != nil {
			t.Fatal(err)
		}
		run(t, "--base-url", ts.URL, "--api-key", broke.Key, "playground", "create", "--prompt", "p", "--model", "agentry_offline").
			exits(t, cli.ExitCredits, "credits")
	})
}
