package admin_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestReviews parks a run on a human_in_the_loop step, lists the review,
// approves it with an edit through the admin command, and the run resumes.
func TestReviews(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		url := storetest.URL(t, d)
		cfg := server.Defaults()
		cfg.Addr, cfg.DataDir, cfg.DatabaseURL = "127.0.0.1:0", t.TempDir(), url
		s, err := server.New(ctx, cfg, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error)
		go func() { done <- s.Run(runCtx) }()
		defer func() { cancel(); <-done }()

		accounts, _ := directory.Accounts(ctx, s.DB)
		acct := accounts[0].ID
		a, err := agents.NewRepo(s.DB).CreateAgent(ctx, agents.NewAgent{
			Agent: agents.Agent{AccountID: acct, Name: "reviewed", Definition: json.RawMessage(`{"child_steps":[{"id":"review","step_type":"human_in_the_loop","instructions":"Publish {{input}}?","allow_edit":true,
				"child_steps":[{"id":"show","step_type":"display_result","template":"published: {{input}}"}]}]}`),
				Settings: agents.AgentSettings{EvaluationMode: "output_expectation", ModelUpgradeStrategy: "none", MaxRetries: 3}},
			Trigger: agents.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)},
		})
		if err != nil {
			t.Fatal(err)
		}
		in := "draft"
		r, err := s.Runs.Start(ctx, acct, a.ID, runs.StartRequest{Input: &in})
		if err != nil {
			t.Fatal(err)
		}
		wait := func(status string) runs.Run {
			deadline := time.Now().Add(20 * time.Second)
			for {
				got, _ := runs.NewRepo(s.DB, nil).Run(ctx, acct, r.ID)
				if got.Status == status {
					return got
				}
				if time.Now().After(deadline) {
					t.Fatalf("run %s, want %s (%s)", got.Status, status, got.Error)
				}
				time.Sleep(30 * time.Millisecond)
			}
		}
		wait(runs.RunWaitingHuman)

		var open []map[string]any
		runJSON(t, url, &open, "reviews", "list")
		if len(open) != 1 || open[0]["run_id"] != r.ID || open[0]["instructions"] != "Publish draft?" {
			t.Fatalf("open reviews: %v", open)
		}
		if _, err := run(t, url, "reviews", "decide", r.ID, "review"); err == nil {
			t.Error("a decision without --approve or --reject was accepted")
		}
		if out, err := run(t, url, "reviews", "decide", r.ID, "review", "--approve", "--edited", "final text"); err != nil || !strings.Contains(out, "resumes") {
			t.Fatalf("decide: %v %s", err, out)
		}
		finished := wait(runs.RunCompleted)
		if finished.Output == nil || *finished.Output != "published: final text" || finished.HITLWaitMS <= 0 {
			t.Errorf("resumed run: %v, hitl %d ms", finished.Output, finished.HITLWaitMS)
		}
		if _, err := run(t, url, "reviews", "decide", r.ID, "review", "--reject"); err == nil || !strings.Contains(err.Error(), "already decided") {
			t.Errorf("second decision: %v", err)
		}
	})
}
