package runs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestReviewsRepo: a review is requested once and decided once, only by
// its run's account.
func TestReviewsRepo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		q := reviewRepo{db}
		_, a, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "R"})
		r, err := NewRepo(db, nil).CreateRun(ctx, Run{AccountID: a.ID, AgentID: "agent-1"})
		if err != nil {
			t.Fatal(err)
		}

		// Reviews: requested once, decided once.
		rv, err := q.request(ctx, Review{RunID: r.ID, StepKey: "h", AccountID: a.ID, Instructions: "ok?", Content: "c", Deadline: time.Now().Add(-time.Minute), OnTimeout: "reject"})
		if err != nil || rv.DecidedAt != nil {
			t.Fatalf("review %+v %v", rv, err)
		}
		if due, _ := q.overdue(ctx, time.Now()); len(due) != 1 {
			t.Errorf("overdue %d", len(due))
		}
		if _, err := q.decide(ctx, store.NewID(), r.ID, "h", Decision{Approved: true}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another account decided: %v", err)
		}
		if rv, err := q.decide(ctx, a.ID, r.ID, "h", Decision{Approved: true, Edited: "edited"}); err != nil || !rv.Approved || rv.Edited != "edited" {
			t.Fatalf("decide %+v %v", rv, err)
		}
		if _, err := q.decide(ctx, a.ID, r.ID, "h", Decision{}); !errors.Is(err, store.ErrConflict) {
			t.Errorf("second decision: %v", err)
		}
	})
}

// TestReviewSweepsSkipBadRows: a review row that cannot be read is
// reported, and the others are still listed.
func TestReviewSweepsSkipBadRows(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		q := reviewRepo{db}
		_, a, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "S"})
		past := time.Now().Add(-time.Minute)
		var runIDs []string
		for i := 0; i < 3; i++ {
			r, _ := NewRepo(db, nil).CreateRun(ctx, Run{AccountID: a.ID, AgentID: "agent-1"})
			if _, err := q.request(ctx, Review{RunID: r.ID, StepKey: "h", AccountID: a.ID, Deadline: past, OnTimeout: "reject"}); err != nil {
				t.Fatal(err)
			}
			runIDs = append(runIDs, r.ID)
		}
		// Corrupt the first one.
		if _, err := db.W.ExecContext(ctx, `UPDATE run_reviews SET assignee_user_ids = 'not json' WHERE run_id = $1`, runIDs[0]); err != nil {
			t.Fatal(err)
		}
		due, err := q.overdue(ctx, time.Now())
		if err == nil || len(due) != 2 || due[0].RunID == runIDs[0] || due[1].RunID == runIDs[0] {
			t.Errorf("overdue: %d rows, err %v", len(due), err)
		}
		open, err := q.open(ctx, a.ID, 10)
		if err == nil || len(open) != 2 {
			t.Errorf("open: %d rows, err %v", len(open), err)
		}
	})
}
