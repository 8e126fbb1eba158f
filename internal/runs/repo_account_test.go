package runs

import (
	"context"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// seeded100k is an account with 100,000 runs over the last 7 days; 10,000
// under the race detector (see raceEnabled), where the lists' logic is
// what is checked: the pass without it checks their speed at scale.
func seeded100k(tb testing.TB, d store.Dialect) (*store.DB, string, []string) {
	tb.Helper()
	db := storetest.Open(tb, d)
	a := storetest.NewAccount(tb, db)
	agents := []string{store.NewID(), store.NewID(), store.NewID(), store.NewID()}
	n := 100_000
	if raceEnabled {
		n = 10_000
	}
	storetest.SeedRuns(tb, db, a, agents, n, time.Now(), 7*24*time.Hour)
	return db, a, agents
}

// TestAccountRunsAtScale: with 100,000 runs, each filter's first page and
// a page deep in the list (by cursor) are read without walking the whole
// table; a slow plan (a sort, a scan) shows as a page over the bound.
//
// It runs beside the other tests, the databases side by side, and the
// bound on a page is ten times what a loaded machine takes.
func TestAccountRunsAtScale(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("seeds 100,000 runs")
	}
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		db, account, agents := seeded100k(t, d)
		ctx := context.Background()
		now := time.Now()
		filters := map[string]RunFilter{
			"all":            {},
			"agent":          {AgentID: agents[1]},
			"failed":         {Status: RunFailed},
			"schedule":       {Trigger: "schedule"},
			"last day":       {From: now.Add(-24 * time.Hour)},
			"agent+failed":   {AgentID: agents[2], Status: RunFailed},
			"two days ago":   {From: now.Add(-72 * time.Hour), To: now.Add(-48 * time.Hour), Status: RunFailed},
			"deep by cursor": {},
		}
		deep, _, err := accountRepo{db}.list(ctx, account, RunFilter{From: now.Add(-6 * 24 * time.Hour), To: now.Add(-6*24*time.Hour + 10*time.Minute)}, 1)
		if err != nil || len(deep) != 1 {
			t.Fatal(deep, err)
		}
		f := filters["deep by cursor"]
		f.Before = deep[0].ID
		filters["deep by cursor"] = f
		for name, f := range filters {
			start := time.Now()
			items, more, err := accountRepo{db}.list(ctx, account, f, 50)
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
				if _, _, err := (accountRepo{db}).list(ctx, account, RunFilter{Status: RunFailed}, 50); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
