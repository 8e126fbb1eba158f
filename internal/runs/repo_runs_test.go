package runs_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func TestRunsStore(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		repo := runs.NewRepo(db, nil)
		_, a, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "R"})
		in := "hello"
		r, err := repo.CreateRun(ctx, runs.Run{AccountID: a.ID, AgentID: "agent-1", Input: &in, Metadata: map[string]any{"k": "v"}, Priority: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := repo.Run(ctx, a.ID, r.ID)
		if err != nil || got.Status != runs.RunPending || *got.Input != "hello" || got.Metadata["k"] != "v" || !got.Priority {
			t.Fatalf("%+v %v", got, err)
		}
		if _, err := repo.Run(ctx, store.NewID(), r.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another account read the run: %v", err)
		}

		n, err := repo.StartRunAttempt(ctx, r.ID)
		if err != nil || n != 1 {
			t.Fatalf("attempt %d %v", n, err)
		}
		var stepID string
		err = db.Tx(ctx, func(tx *sql.Tx) error {
			var err error
			stepID, err = repo.InsertStep(ctx, tx, runs.StepRow{RunID: r.ID, AccountID: a.ID, Key: "s1", StepID: "s1", StepType: "text", Attempt: 1, Status: "processing", Input: "x", StartedAt: time.Now()})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		// A crash: the next attempt closes the orphaned attempt and step.
		if _, err := repo.StartRunAttempt(ctx, r.ID); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a second worker took a processing run: %v", err)
		}
		if n, err := repo.RecoverRunAttempt(ctx, r.ID); err != nil || n != 2 {
			t.Fatalf("second attempt %d %v", n, err)
		}
		steps, _ := repo.Steps(ctx, r.ID)
		if len(steps) != 1 || steps[0].ID != stepID || steps[0].Status != runs.RunFailed {
			t.Fatalf("orphaned step: %+v", steps)
		}
		if err := repo.SupersedeSteps(ctx, r.ID, []string{"s1", "s2"}); err != nil {
			t.Fatal(err)
		}
		if steps, _ := repo.Steps(ctx, r.ID); !steps[0].Superseded {
			t.Error("not superseded")
		}
		out, ct := "done", "text/plain"
		if err := repo.FinishRunAttempt(ctx, r.ID, 2, runs.RunResult{Status: runs.RunCompleted, Output: &out, OutputContentType: &ct, Credits: 1.5, ErrorCount: 1}); err != nil {
			t.Fatal(err)
		}
		got, _ = repo.Run(ctx, a.ID, r.ID)
		if got.Status != runs.RunCompleted || *got.Output != "done" || got.Credits != 1.5 || got.EndedAt == nil {
			t.Errorf("finished: %+v", got)
		}
		atts, _ := repo.RunAttempts(ctx, r.ID)
		if len(atts) != 2 || atts[0].Status != runs.RunFailed || atts[1].Status != runs.RunCompleted {
			t.Errorf("attempts %+v", atts)
		}
		if _, err := repo.RequestCancel(ctx, a.ID, r.ID); !errors.Is(err, store.ErrConflict) {
			t.Errorf("cancel of a finished run: %v", err)
		}

		// Cancelled before any worker took it: the outcome is still an attempt.
		p, _ := repo.CreateRun(ctx, runs.Run{AccountID: a.ID, AgentID: "agent-1"})
		if _, err := repo.RequestCancel(ctx, a.ID, p.ID); err != nil {
			t.Fatal(err)
		}
		if err := repo.FinishRunAttempt(ctx, p.ID, 0, runs.RunResult{Status: runs.RunFailed, Error: "Run cancelled"}); err != nil {
			t.Fatal(err)
		}
		atts, _ = repo.RunAttempts(ctx, p.ID)
		if len(atts) != 1 || atts[0].Error != "Run cancelled" {
			t.Errorf("settled attempts %+v", atts)
		}
		list, total, err := repo.RunsOfAgent(ctx, a.ID, "agent-1", runs.RunFailed, 10, 0)
		if err != nil || total != 1 || len(list) != 1 || list[0].ID != p.ID {
			t.Errorf("list failed runs: %d %v", total, err)
		}
	})
}
