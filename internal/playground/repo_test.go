package playground

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func TestExperimentsRepo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		q := repo{db}
		acct, other := storetest.NewAccount(t, db), storetest.NewAccount(t, db)
		tpl, total := `{"messages":[]}`, 4
		e, err := q.create(ctx, Experiment{AccountID: acct, CreatedBy: "u1", Prompt: "p", SystemPrompt: "s",
			ModelIDs: []string{"a", "b"}, EvaluationMode: "prompt", EvaluationComplexity: "simple", EvaluatorModelID: "a",
			IncludeStepOutput: true, JSONTemplate: &tpl, ProgressTotal: &total})
		if err != nil || e.Status != StatusPending {
			t.Fatalf("create: %+v %v", e, err)
		}
		if _, err := q.create(ctx, Experiment{AccountID: "0190a3b4-0000-7000-8000-000000000000", Prompt: "p",
			EvaluationMode: "manual", EvaluationComplexity: "simple"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown account: %v", err)
		}
		got, err := q.experiment(ctx, acct, e.ID)
		if err != nil || got.Prompt != "p" || len(got.ModelIDs) != 2 || !got.IncludeStepOutput || got.JSONTemplate == nil ||
			*got.ProgressTotal != 4 || got.ProgressCurrent != nil || got.ResultData != nil || got.EvaluatorModelID != "a" ||
			!got.CreatedAt.Equal(e.CreatedAt) {
			t.Fatalf("read back: %+v %v", got, err)
		}
		if _, err := q.experiment(ctx, other, e.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other account reads: %v", err)
		}

		// Running, progress, results.
		if ok, err := q.start(ctx, e.ID, 4, "Running"); !ok || err != nil {
			t.Fatalf("start: %v %v", ok, err)
		}
		if ok, _ := q.start(ctx, e.ID, 4, "Running"); !ok {
			t.Error("a retried job must be able to resume a running experiment")
		}
		if err := q.progress(ctx, e.ID, 2, "2 of 4", json.RawMessage(`{"models":[]}`)); err != nil {
			t.Fatal(err)
		}
		got, _ = q.experiment(ctx, acct, e.ID)
		if got.Status != StatusRunning || *got.ProgressCurrent != 2 || *got.ProgressMessage != "2 of 4" ||
			string(got.ResultData) != `{"models":[]}` || got.StartedAt == nil {
			t.Fatalf("progress: %+v", got)
		}
		final, err := q.finish(ctx, e.ID, StatusCompleted, "Completed", nil, json.RawMessage(`{"models":[1]}`))
		if err != nil || final != StatusCompleted {
			t.Fatalf("finish: %s %v", final, err)
		}
		if _, err := q.cancel(ctx, acct, e.ID); !errors.Is(err, store.ErrConflict) {
			t.Errorf("cancel a completed experiment: %v", err)
		}

		// A cancel wins over a worker finishing later; results are kept.
		e2, _ := q.create(ctx, Experiment{AccountID: acct, Prompt: "q", EvaluationMode: "manual", EvaluationComplexity: "medium"})
		if _, err := q.cancel(ctx, other, e2.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other account cancels: %v", err)
		}
		c, err := q.cancel(ctx, acct, e2.ID)
		if err != nil || c.Status != StatusCanceled || !c.CancelRequested || c.CompletedAt == nil {
			t.Fatalf("cancel: %+v %v", c, err)
		}
		if again, err := q.cancel(ctx, acct, e2.ID); err != nil || again.Status != StatusCanceled {
			t.Errorf("cancel twice: %v", err)
		}
		if ok, _ := q.start(ctx, e2.ID, 1, "Running"); ok {
			t.Error("a canceled experiment started")
		}
		if req, _ := q.cancelRequested(ctx, e2.ID); !req {
			t.Error("cancel not requested")
		}
		final, _ = q.finish(ctx, e2.ID, StatusCompleted, "Completed", nil, json.RawMessage(`{"late":true}`))
		if got, _ := q.experiment(ctx, acct, e2.ID); final != StatusCanceled || got.Status != StatusCanceled || string(got.ResultData) != `{"late":true}` {
			t.Errorf("finish after cancel: %s %+v", final, got)
		}

		// Listing by window, newest first; deleted ones are gone from it.
		now := time.Now().UTC()
		list, n, err := q.list(ctx, acct, now.Add(-time.Hour), now.Add(time.Hour), 0, 10)
		if err != nil || n != 2 || len(list) != 2 || list[0].ID != e2.ID {
			t.Fatalf("list: %d %v", n, err)
		}
		if _, n, _ := q.list(ctx, acct, now.Add(time.Hour), now.Add(2*time.Hour), 0, 10); n != 0 {
			t.Errorf("future window: %d", n)
		}
		if list, n, _ := q.list(ctx, acct, now.Add(-time.Hour), now.Add(time.Hour), 1, 1); n != 2 || len(list) != 1 || list[0].ID != e.ID {
			t.Errorf("offset: %d", n)
		}
		e3, _ := q.create(ctx, Experiment{AccountID: acct, Prompt: "r", EvaluationMode: "manual", EvaluationComplexity: "medium"})
		if err := q.remove(ctx, other, e3.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other account deletes: %v", err)
		}
		if err := q.remove(ctx, acct, e3.ID); err != nil {
			t.Fatal(err)
		}
		if err := q.remove(ctx, acct, e3.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("delete twice: %v", err)
		}
		if _, err := q.experiment(ctx, acct, e3.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("read after delete: %v", err)
		}
		if _, err := q.cancel(ctx, acct, e3.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("cancel after delete: %v", err)
		}
		if _, n, _ := q.list(ctx, acct, now.Add(-time.Hour), now.Add(time.Hour), 0, 10); n != 2 {
			t.Errorf("list after delete: %d", n)
		}
		// Kept for audit, and a delete while pending stops it.
		kept, err := q.forWorker(ctx, e3.ID)
		if err != nil || kept.Status != StatusCanceled || !kept.CancelRequested {
			t.Errorf("deleted row: %+v %v", kept, err)
		}
	})
}
