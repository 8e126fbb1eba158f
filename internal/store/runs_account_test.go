package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// seeded100k is an account with 100,000 runs over the last 7 days.
func seeded100k(tb testing.TB, d store.Dialect) (*store.DB, string, []string) {
	tb.Helper()
	db := storetest.Open(tb, d)
	a, err := directory.CreateAccount(context.Background(), db, "personal", "big", 0)
	if err != nil {
		tb.Fatal(err)
	}
	agents := []string{store.NewID(), store.NewID(), store.NewID(), store.NewID()}
	storetest.SeedRuns(tb, db, a.ID, agents, 100_000, time.Now(), 7*24*time.Hour)
	return db, a.ID, agents
}

// TestAccountRunsAtScale: with 100,000 runs, each filter's first page and
// a page deep in the list (by cursor) are read without walking the whole
// table; a slow plan (a sort, a scan) shows as a page over the bound.
//
// It runs beside the other tests, the databases side by side: seeding
// takes minutes under the race detector (SQLite's 100,000 inserts), and
// the bound on a page is ten times what a loaded machine takes.
func TestAccountRunsAtScale(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("seeds 100,000 runs")
	}
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		db, account, agents := seeded100k(t, d)
		ctx := context.Background()
		now := time.Now()
		filters := map[string]store.RunFilter{
			"all":            {},
			"agent":          {AgentID: agents[1]},
			"failed":         {Status: store.RunFailed},
			"schedule":       {Trigger: "schedule"},
			"last day":       {From: now.Add(-24 * time.Hour)},
			"agent+failed":   {AgentID: agents[2], Status: store.RunFailed},
			"two days ago":   {From: now.Add(-72 * time.Hour), To: now.Add(-48 * time.Hour), Status: store.RunFailed},
			"deep by cursor": {},
		}
		deep, _, err := db.AccountRuns(ctx, account, store.RunFilter{From: now.Add(-6 * 24 * time.Hour), To: now.Add(-6*24*time.Hour + time.Minute)}, 1)
		if err != nil || len(deep) != 1 {
			t.Fatal(deep, err)
		}
		f := filters["deep by cursor"]
		f.Before = deep[0].ID
		filters["deep by cursor"] = f
		for name, f := range filters {
			start := time.Now()
			items, more, err := db.AccountRuns(ctx, account, f, 50)
			took := time.Since(start)
			if err != nil || len(items) != 50 || !more {
				t.Fatalf("%s: %d items, more %v, %v", name, len(items), more, err)
			}
			for _, it := range items {
				if f.Status != "" && it.Status != f.Status || f.AgentID != "" && it.AgentID != f.AgentID || f.Trigger != "" && it.TriggerType != f.Trigger {
					t.Fatalf("%s: %+v", name, it)
				}
			}
			// Generous for a loaded 2-core machine; an unindexed sort of
			// 100,000 rows takes far longer.
			if took > 250*time.Millisecond {
				t.Errorf("%s: %v", name, took)
			}
			t.Logf("%s: %v", name, took)
		}
	})
}

func BenchmarkAccountRuns100k(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			db, account, _ := seeded100k(b, d)
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				if _, _, err := db.AccountRuns(ctx, account, store.RunFilter{Status: store.RunFailed}, 50); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
