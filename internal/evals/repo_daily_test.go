package evals

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestDailyResultCounts: an agent's results add up per UTC day of their
// evaluation, from the start of the first day asked for, and no other
// agent's or account's results count.
func TestDailyResultCounts(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		rp := repo{db: db}
		f, other := newResultsFixture(t, db, "R"), newResultsFixture(t, db, "S")
		today := time.Now().UTC().Truncate(24 * time.Hour)
		push := func(f resultsFixture, at time.Time, status string, flagged bool) {
			t.Helper()
			if _, err := rp.insertResult(ctx, EvaluationResult{AccountID: f.account, AgentID: f.agent, CriteriaID: f.criterion,
				AgentRunID: f.run, EvaluationMode: "manual", Status: status, Flagged: flagged, EvaluatedAt: at}); err != nil {
				t.Fatal(err)
			}
		}
		// Two days ago: the first and last instants of the day (in
		// another time zone, the same instants).
		east := time.FixedZone("east", 5*3600)
		push(f, today.AddDate(0, 0, -2).In(east), "passed", false)
		push(f, today.AddDate(0, 0, -1).Add(-time.Microsecond), "failed", true)
		push(f, today.AddDate(0, 0, -2).Add(12*time.Hour), "error", false)
		// Today: every outcome.
		for _, s := range []string{"passed", "passed", "failed", "skipped", "pending"} {
			push(f, today.Add(time.Hour), s, false)
		}
		// Before the window, and another account's.
		push(f, today.AddDate(0, 0, -3).Add(23*time.Hour), "passed", false)
		push(other, today.Add(time.Hour), "failed", false)

		days, err := rp.dailyResultCounts(ctx, f.account, f.agent, today.AddDate(0, 0, -2).Add(15*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range days {
			got = append(got, fmt.Sprintf("%s %d/%d/%d/%d/%d/%d/%d", d.Date, d.Total, d.Passed, d.Failed, d.Error, d.Skipped, d.Pending, d.Flagged))
		}
		want := []string{
			today.AddDate(0, 0, -2).Format(time.DateOnly) + " 3/1/1/1/0/0/1",
			today.Format(time.DateOnly) + " 5/2/1/0/1/1/0",
		}
		if strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("days:\n got %q\nwant %q", got, want)
		}
		if days, err := rp.dailyResultCounts(ctx, other.account, f.agent, today.AddDate(0, 0, -30)); err != nil || len(days) != 0 {
			t.Errorf("another account, the agent's id: %v %v", days, err)
		}
	})
}
