package store_test

import (
	"context"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func TestRecentModels(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		acct := storetest.NewAccount(t, db)
		// The usage log names the latest models.
		for _, m := range []string{"old", "new"} {
			if _, _, err := db.RecordUsage(ctx, store.Usage{AccountID: acct, Purpose: "playground", Model: m}); err != nil {
				t.Fatal(err)
			}
		}
		if ms, err := db.RecentModels(ctx, acct, 5); err != nil || len(ms) != 2 || ms[0] != "new" {
			t.Errorf("recent models: %v %v", ms, err)
		}
	})
}
