package billing_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestConcurrentDebits hammers one balance from many goroutines: exactly as
// many debits succeed as the balance covers, and the ledger adds up.
func TestConcurrentDebits(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		c := billing.NewCredits(db)
		_, a, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "C", OpeningCredits: 50})
		var ok, refused atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 40; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < 5; j++ {
					_, err := c.Debit(ctx, a.ID, 0.5, "test", "")
					switch {
					case err == nil:
						ok.Add(1)
					case errors.Is(err, store.ErrInsufficientCredits):
						refused.Add(1)
					default:
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 100 || refused.Load() != 100 {
			t.Fatalf("ok %d refused %d, want 100 each", ok.Load(), refused.Load())
		}
		if bal, _ := c.Balance(ctx, a.ID); bal != 0 {
			t.Fatalf("balance %v", bal)
		}
		entries, _ := c.Ledger(ctx, a.ID, 1000)
		if len(entries) != 101 { // opening + 100 debits
			t.Fatalf("%d ledger entries", len(entries))
		}
		// A charge may overdraw; after it a debit is refused; a grant restores.
		if bal, err := c.Charge(ctx, a.ID, 1.25, "usage", "run-1"); err != nil || bal != -1.25 {
			t.Fatalf("charge %v %v", bal, err)
		}
		if _, err := c.Debit(ctx, a.ID, 0.000001, "x", ""); !errors.Is(err, store.ErrInsufficientCredits) {
			t.Fatalf("debit while overdrawn: %v", err)
		}
		if bal, err := c.Grant(ctx, a.ID, 10, "grant", ""); err != nil || bal != 8.75 {
			t.Fatalf("grant %v %v", bal, err)
		}
		if _, err := c.Debit(ctx, store.NewID(), 1, "x", ""); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("debit of missing account: %v", err)
		}
	})
}

func TestUsage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		c := billing.NewCredits(db)
		_, a, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "U", OpeningCredits: 1})
		u, bal, err := c.RecordUsage(ctx, billing.Usage{AccountID: a.ID, Purpose: "prompt_call", Model: "m", InputTokens: 100, OutputTokens: 20, Credits: 0.25, Latency: 120 * time.Millisecond, RunID: "r1", StepID: "s1"})
		if err != nil || bal != 0.75 || u.ID == "" {
			t.Fatalf("record: %v %v", bal, err)
		}
		if _, _, err := c.RecordUsage(ctx, billing.Usage{AccountID: a.ID, Purpose: "prompt_call", Model: "m", OutputTokens: 5, Credits: 1, RunID: "r1"}); err != nil {
			t.Fatal(err)
		}
		tot, err := c.UsageOf(ctx, a.ID, "run", "r1")
		if err != nil || tot.Calls != 2 || tot.InputTokens != 100 || tot.OutputTokens != 25 || tot.Credits != 1.25 {
			t.Fatalf("totals %+v %v", tot, err)
		}
		if err := c.Require(ctx, a.ID, 0.01); !errors.Is(err, store.ErrInsufficientCredits) {
			t.Errorf("overdrawn account can afford: %v", err)
		}
		if other, _ := c.UsageOf(ctx, store.NewID(), "run", "r1"); other.Calls != 0 {
			t.Error("usage visible to another account")
		}
		if _, _, err := c.RecordUsage(ctx, billing.Usage{AccountID: store.NewID(), Purpose: "x", Model: "m"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("usage of unknown account: %v", err)
		}
	})
}

func TestRecentModels(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		c := billing.NewCredits(db)
		acct := storetest.NewAccount(t, db)
		// The usage log names the latest models.
		for _, m := range []string{"old", "new"} {
			if _, _, err := c.RecordUsage(ctx, billing.Usage{AccountID: acct, Purpose: "playground", Model: m}); err != nil {
				t.Fatal(err)
			}
		}
		if ms, err := c.RecentModels(ctx, acct, 5); err != nil || len(ms) != 2 || ms[0] != "new" {
			t.Errorf("recent models: %v %v", ms, err)
		}
	})
}

// TestDailySpent: the spending chart sums an account's debits of each UTC
// day, none of its grants and none of another account's.
func TestDailySpent(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		c := billing.NewCredits(db)
		_, a, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "A", OpeningCredits: 10})
		_, other, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "O", OpeningCredits: 10})
		for _, spend := range []float64{2.5, 1.25} {
			if _, err := c.Debit(ctx, a.ID, spend, "test", ""); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Grant(ctx, a.ID, 7, "top-up", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Debit(ctx, other.ID, 4, "test", ""); err != nil {
			t.Fatal(err)
		}
		since := time.Now().UTC().Add(-time.Hour)
		spent, err := c.DailySpent(ctx, a.ID, since)
		if err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for _, v := range spent {
			total += v
		}
		if total != 3.75 || len(spent) < 1 || len(spent) > 2 { // the hour may span midnight
			t.Fatalf("spent %v", spent)
		}
		if spent, _ := c.DailySpent(ctx, a.ID, time.Now().Add(time.Hour)); len(spent) != 0 {
			t.Fatalf("nothing spent after now, got %v", spent)
		}
	})
}
