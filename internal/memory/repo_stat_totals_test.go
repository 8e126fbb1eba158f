package memory

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestMemoryStatTotalsBackfill: migration 00195 counts the totals of the
// entries already there exactly as the writes keep them: after inserts,
// entries of past days (with times to the nanosecond and none at all past
// the second), a compaction and a retention sweep, redoing the migration
// (its tables dropped, made and filled again) gives the very rows the
// writes kept, on both databases; so does RebuildMemoryStats.
func TestMemoryStatTotalsBackfill(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		r := repo{db}
		acct := storetest.NewAccount(t, db)
		var banks []string
		for _, typ := range []string{"conversation", "general"} {
			b, err := r.CreateMemoryBank(ctx, MemoryBank{AccountID: acct, Name: "Stats " + typ, Type: typ, Mode: "balanced"})
			if err != nil {
				t.Fatal(err)
			}
			banks = append(banks, b.ID)
			speakers := []*string{nil, ptrTo("user"), ptrTo("Zoë")}
			for i := range 30 {
				if _, err := r.AddMemoryEntry(ctx, Entry{AccountID: acct, BankID: b.ID, Partition: fmt.Sprint("k", i%4), Speaker: speakers[i%3],
					Content: "x", Tags: [][]string{nil, {"vip"}, {"ü", "ü"}}[i%3], Tokens: i % 5}); err != nil {
					t.Fatal(err)
				}
			}
			// Entries of past days, dated by a compaction's summary: the
			// oldest of a key replaced by one dated as it was, days ago,
			// at a time with nanoseconds and at a whole second.
			for j, at := range []time.Time{time.Now().AddDate(0, 0, -3).Add(123), time.Now().AddDate(0, 0, -9).Truncate(time.Second)} {
				old, err := r.OldestMemoryEntries(ctx, acct, b.ID, fmt.Sprint("k", j), 3)
				if err != nil {
					t.Fatal(err)
				}
				ids := []string{old[0].ID, old[1].ID, old[2].ID}
				if _, err := r.ReplaceMemoryEntries(ctx, acct, b.ID, fmt.Sprint("k", j), ids, Entry{Content: "s", Tokens: 9, Speaker: ptrTo("user"),
					Tags: []string{"summary"}, CreatedAt: at}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := r.ExpireMemoryEntries(ctx, acct, b.ID, time.Now().AddDate(0, 0, -5)); err != nil {
				t.Fatal(err)
			}
		}
		kept := map[string][]StatRow{}
		for _, id := range banks {
			rows, err := r.MemoryStatRows(ctx, id)
			if err != nil || len(rows) == 0 {
				t.Fatalf("kept totals: %d rows, %v", len(rows), err)
			}
			kept[id] = rows
		}
		if err := db.RedoMigration(ctx, 195); err != nil {
			t.Fatal(err)
		}
		for _, id := range banks {
			backfilled, err := r.MemoryStatRows(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(backfilled, kept[id]) {
				t.Fatalf("the migration's backfill differs from the kept totals:\n kept %v\n  got %v", kept[id], backfilled)
			}
			if err := r.RebuildMemoryStats(ctx, id); err != nil {
				t.Fatal(err)
			}
			if rebuilt, _ := r.MemoryStatRows(ctx, id); !slices.Equal(rebuilt, kept[id]) {
				t.Fatalf("RebuildMemoryStats differs from the kept totals:\n kept %v\n  got %v", kept[id], rebuilt)
			}
		}
	})
}

func ptrTo[T any](v T) *T { return &v }
