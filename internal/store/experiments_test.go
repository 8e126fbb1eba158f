package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func newAccount(t *testing.T, db *store.DB) string {
	t.Helper()
	_, a, err := db.CreateUser(context.Background(), store.NewUser{Name: "u", OpeningCredits: 5})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

func TestExperiments(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		acct, other := newAccount(t, db), newAccount(t, db)
		tpl, total := `{"messages":[]}`, 4
		e, err := db.CreateExperiment(ctx, store.Experiment{AccountID: acct, CreatedBy: "u1", Prompt: "p", SystemPrompt: "s",
			ModelIDs: []string{"a", "b"}, EvaluationMode: "prompt", EvaluationComplexity: "simple", EvaluatorModelID: "a",
			IncludeStepOutput: true, JSONTemplate: &tpl, ProgressTotal: &total})
		if err != nil || e.Status != store.ExperimentPending {
			t.Fatalf("create: %+v %v", e, err)
		}
		if _, err := db.CreateExperiment(ctx, store.Experiment{AccountID: "0190a3b4-0000-7000-8000-000000000000", Prompt: "p",
			EvaluationMode: "manual", EvaluationComplexity: "simple"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown account: %v", err)
		}
		got, err := db.Experiment(ctx, acct, e.ID)
		if err != nil || got.Prompt != "p" || len(got.ModelIDs) != 2 || !got.IncludeStepOutput || got.JSONTemplate == nil ||
			*got.ProgressTotal != 4 || got.ProgressCurrent != nil || got.ResultData != nil || got.EvaluatorModelID != "a" ||
			!got.CreatedAt.Equal(e.CreatedAt) {
			t.Fatalf("read back: %+v %v", got, err)
		}
		if _, err := db.Experiment(ctx, other, e.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other account reads: %v", err)
		}

		// Running, progress, results.
		if ok, err := db.StartExperiment(ctx, e.ID, 4, "Running"); !ok || err != nil {
			t.Fatalf("start: %v %v", ok, err)
		}
		if ok, _ := db.StartExperiment(ctx, e.ID, 4, "Running"); !ok {
			t.Error("a retried job must be able to resume a running experiment")
		}
		if err := db.UpdateExperimentProgress(ctx, e.ID, 2, "2 of 4", json.RawMessage(`{"models":[]}`)); err != nil {
			t.Fatal(err)
		}
		got, _ = db.Experiment(ctx, acct, e.ID)
		if got.Status != store.ExperimentRunning || *got.ProgressCurrent != 2 || *got.ProgressMessage != "2 of 4" ||
			string(got.ResultData) != `{"models":[]}` || got.StartedAt == nil {
			t.Fatalf("progress: %+v", got)
		}
		final, err := db.FinishExperiment(ctx, e.ID, store.ExperimentCompleted, "Completed", nil, json.RawMessage(`{"models":[1]}`))
		if err != nil || final != store.ExperimentCompleted {
			t.Fatalf("finish: %s %v", final, err)
		}
		if _, err := db.CancelExperiment(ctx, acct, e.ID); !errors.Is(err, store.ErrConflict) {
			t.Errorf("cancel a completed experiment: %v", err)
		}

		// A cancel wins over a worker finishing later; results are kept.
		e2, _ := db.CreateExperiment(ctx, store.Experiment{AccountID: acct, Prompt: "q", EvaluationMode: "manual", EvaluationComplexity: "medium"})
		if _, err := db.CancelExperiment(ctx, other, e2.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other account cancels: %v", err)
		}
		c, err := db.CancelExperiment(ctx, acct, e2.ID)
		if err != nil || c.Status != store.ExperimentCanceled || !c.CancelRequested || c.CompletedAt == nil {
			t.Fatalf("cancel: %+v %v", c, err)
		}
		if again, err := db.CancelExperiment(ctx, acct, e2.ID); err != nil || again.Status != store.ExperimentCanceled {
			t.Errorf("cancel twice: %v", err)
		}
		if ok, _ := db.StartExperiment(ctx, e2.ID, 1, "Running"); ok {
			t.Error("a canceled experiment started")
		}
		if req, _ := db.ExperimentCancelRequested(ctx, e2.ID); !req {
			t.Error("cancel not requested")
		}
		final, _ = db.FinishExperiment(ctx, e2.ID, store.ExperimentCompleted, "Completed", nil, json.RawMessage(`{"late":true}`))
		if got, _ := db.Experiment(ctx, acct, e2.ID); final != store.ExperimentCanceled || got.Status != store.ExperimentCanceled || string(got.ResultData) != `{"late":true}` {
			t.Errorf("finish after cancel: %s %+v", final, got)
		}

		// Listing by window, newest first; deleted ones are gone from it.
		now := time.Now().UTC()
		list, n, err := db.Experiments(ctx, acct, now.Add(-time.Hour), now.Add(time.Hour), 0, 10)
		if err != nil || n != 2 || len(list) != 2 || list[0].ID != e2.ID {
			t.Fatalf("list: %d %v", n, err)
		}
		if _, n, _ := db.Experiments(ctx, acct, now.Add(time.Hour), now.Add(2*time.Hour), 0, 10); n != 0 {
			t.Errorf("future window: %d", n)
		}
		if list, n, _ := db.Experiments(ctx, acct, now.Add(-time.Hour), now.Add(time.Hour), 1, 1); n != 2 || len(list) != 1 || list[0].ID != e.ID {
			t.Errorf("offset: %d", n)
		}
		e3, _ := db.CreateExperiment(ctx, store.Experiment{AccountID: acct, Prompt: "r", EvaluationMode: "manual", EvaluationComplexity: "medium"})
		if err := db.DeleteExperiment(ctx, other, e3.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other account deletes: %v", err)
		}
		if err := db.DeleteExperiment(ctx, acct, e3.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteExperiment(ctx, acct, e3.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("delete twice: %v", err)
		}
		if _, err := db.Experiment(ctx, acct, e3.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("read after delete: %v", err)
		}
		if _, err := db.CancelExperiment(ctx, acct, e3.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("cancel after delete: %v", err)
		}
		if _, n, _ := db.Experiments(ctx, acct, now.Add(-time.Hour), now.Add(time.Hour), 0, 10); n != 2 {
			t.Errorf("list after delete: %d", n)
		}
		// Kept for audit, and a delete while pending stops it.
		kept, err := db.ExperimentForWorker(ctx, e3.ID)
		if err != nil || kept.Status != store.ExperimentCanceled || !kept.CancelRequested {
			t.Errorf("deleted row: %+v %v", kept, err)
		}
	})
}
