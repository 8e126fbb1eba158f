package runs_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestRunStateMachine: every status change is a compare-and-set on the
// status expected before; a terminal status is never left; a worker and a
// cancel racing for a run nobody holds end with exactly one winner.
func TestRunStateMachine(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		repo := runs.NewRepo(db, nil)
		_, a, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "S"})
		newRun := func() runs.Run {
			r, err := repo.CreateRun(ctx, runs.Run{AccountID: a.ID, AgentID: "agent-1"})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		cancelled := runs.RunResult{Status: runs.RunFailed, Error: "Run cancelled"}

		// Settled runs are never taken or settled again.
		r := newRun()
		if err := repo.FinishRunAttempt(ctx, r.ID, 0, cancelled); err != nil {
			t.Fatal(err)
		}
		if _, err := repo.StartRunAttempt(ctx, r.ID); !errors.Is(err, store.ErrConflict) {
			t.Errorf("a worker took a cancelled run: %v", err)
		}
		if _, err := repo.RecoverRunAttempt(ctx, r.ID); !errors.Is(err, store.ErrConflict) {
			t.Errorf("a retried job took a cancelled run: %v", err)
		}
		if err := repo.FinishRunAttempt(ctx, r.ID, 0, cancelled); !errors.Is(err, store.ErrConflict) {
			t.Errorf("a run was settled twice: %v", err)
		}
		if err := repo.FinishRunAttempt(ctx, r.ID, 0, runs.RunResult{Status: runs.RunWaitingHuman}); err == nil {
			t.Error("a run nobody holds was parked")
		}

		// A held run: a cancel cannot settle it; only its attempt ends it.
		r = newRun()
		n, err := repo.StartRunAttempt(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.FinishRunAttempt(ctx, r.ID, 0, cancelled); !errors.Is(err, store.ErrConflict) {
			t.Errorf("a cancel settled a run a worker holds: %v", err)
		}
		if err := repo.FinishRunAttempt(ctx, r.ID, n, runs.RunResult{Status: runs.RunWaitingHuman}); err != nil {
			t.Fatal(err)
		}
		if err := repo.FinishRunAttempt(ctx, r.ID, n, runs.RunResult{Status: runs.RunFailed}); !errors.Is(err, store.ErrConflict) {
			t.Errorf("a parked run was ended by its closed attempt: %v", err)
		}
		// Parked: a resume takes it, and a rescued older attempt cannot end it.
		m, err := repo.StartRunAttempt(ctx, r.ID)
		if err != nil || m != n+1 {
			t.Fatalf("resume: %d %v", m, err)
		}
		if err := repo.FinishRunAttempt(ctx, r.ID, n, runs.RunResult{Status: runs.RunCompleted}); !errors.Is(err, store.ErrConflict) {
			t.Errorf("a stale attempt ended the run: %v", err)
		}
		if err := repo.FinishRunAttempt(ctx, r.ID, m, runs.RunResult{Status: runs.RunCompleted}); err != nil {
			t.Fatal(err)
		}
		if got, _ := repo.Run(ctx, a.ID, r.ID); got.Status != runs.RunCompleted {
			t.Errorf("status %s", got.Status)
		}

		// Races: a worker taking the run against a cancel settling it.
		for i := 0; i < 25; i++ {
			r := newRun()
			var took, settled error
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); _, took = repo.StartRunAttempt(ctx, r.ID) }()
			go func() { defer wg.Done(); settled = repo.FinishRunAttempt(ctx, r.ID, 0, cancelled) }()
			wg.Wait()
			if (took == nil) == (settled == nil) {
				t.Fatalf("race %d: worker %v, cancel %v: want exactly one winner", i, took, settled)
			}
			loser := took
			if took == nil {
				loser = settled
			}
			if !errors.Is(loser, store.ErrConflict) {
				t.Fatalf("race %d: the loser failed with %v", i, loser)
			}
			got, _ := repo.Run(ctx, a.ID, r.ID)
			if want := map[bool]string{true: runs.RunProcessing, false: runs.RunFailed}[took == nil]; got.Status != want {
				t.Fatalf("race %d: status %s, want %s", i, got.Status, want)
			}
		}
	})
}
