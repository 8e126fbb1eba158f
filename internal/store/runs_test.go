package store_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func TestRunsStore(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		_, a, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "R"})
		in := "hello"
		r, err := db.CreateRun(ctx, store.Run{AccountID: a.ID, AgentID: "agent-1", Input: &in, Metadata: map[string]any{"k": "v"}, Priority: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.Run(ctx, a.ID, r.ID)
		if err != nil || got.Status != store.RunPending || *got.Input != "hello" || got.Metadata["k"] != "v" || !got.Priority {
			t.Fatalf("%+v %v", got, err)
		}
		if _, err := db.Run(ctx, store.NewID(), r.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another account read the run: %v", err)
		}

		n, err := db.StartRunAttempt(ctx, r.ID)
		if err != nil || n != 1 {
			t.Fatalf("attempt %d %v", n, err)
		}
		var stepID string
		err = db.Tx(ctx, func(tx *sql.Tx) error {
			var err error
			stepID, err = db.InsertStep(ctx, tx, store.StepRow{RunID: r.ID, AccountID: a.ID, Key: "s1", StepID: "s1", StepType: "text", Attempt: 1, Status: "processing", Input: "x", StartedAt: time.Now()})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		// A crash: the next attempt closes the orphaned attempt and step.
		if _, err := db.StartRunAttempt(ctx, r.ID); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a second worker took a processing run: %v", err)
		}
		if n, err := db.RecoverRunAttempt(ctx, r.ID); err != nil || n != 2 {
			t.Fatalf("second attempt %d %v", n, err)
		}
		steps, _ := db.Steps(ctx, r.ID)
		if len(steps) != 1 || steps[0].ID != stepID || steps[0].Status != store.RunFailed {
			t.Fatalf("orphaned step: %+v", steps)
		}
		if err := db.SupersedeSteps(ctx, r.ID, []string{"s1", "s2"}); err != nil {
			t.Fatal(err)
		}
		if steps, _ := db.Steps(ctx, r.ID); !steps[0].Superseded {
			t.Error("not superseded")
		}
		out, ct := "done", "text/plain"
		if err := db.FinishRunAttempt(ctx, r.ID, 2, store.RunResult{Status: store.RunCompleted, Output: &out, OutputContentType: &ct, Credits: 1.5, ErrorCount: 1}); err != nil {
			t.Fatal(err)
		}
		got, _ = db.Run(ctx, a.ID, r.ID)
		if got.Status != store.RunCompleted || *got.Output != "done" || got.Credits != 1.5 || got.EndedAt == nil {
			t.Errorf("finished: %+v", got)
		}
		atts, _ := db.RunAttempts(ctx, r.ID)
		if len(atts) != 2 || atts[0].Status != store.RunFailed || atts[1].Status != store.RunCompleted {
			t.Errorf("attempts %+v", atts)
		}
		if _, err := db.RequestCancel(ctx, a.ID, r.ID); !errors.Is(err, store.ErrConflict) {
			t.Errorf("cancel of a finished run: %v", err)
		}

		// Cancelled before any worker took it: the outcome is still an attempt.
		p, _ := db.CreateRun(ctx, store.Run{AccountID: a.ID, AgentID: "agent-1"})
		if _, err := db.RequestCancel(ctx, a.ID, p.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.FinishRunAttempt(ctx, p.ID, 0, store.RunResult{Status: store.RunFailed, Error: "Run cancelled"}); err != nil {
			t.Fatal(err)
		}
		atts, _ = db.RunAttempts(ctx, p.ID)
		if len(atts) != 1 || atts[0].Error != "Run cancelled" {
			t.Errorf("settled attempts %+v", atts)
		}
		list, total, err := db.RunsOfAgent(ctx, a.ID, "agent-1", store.RunFailed, 10, 0)
		if err != nil || total != 1 || len(list) != 1 || list[0].ID != p.ID {
			t.Errorf("list failed runs: %d %v", total, err)
		}
	})
}
