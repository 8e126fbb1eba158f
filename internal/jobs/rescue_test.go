package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/riverqueue/river"
)

// TestRescueSweep leaves jobs as a killed process would (running, attempted
// long ago) and sweeps once: the one with attempts left is available again
// and runs, the one out of attempts is discarded, and a recent one, a
// cancelled one and one of a kind with its own timeout are left as River's
// rescuer would leave them or to River's rescuer.
func TestRescueSweep(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db, err := store.Open(ctx, storetest.URL(t, d), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		w := river.NewWorkers()
		river.AddWorker(w, &jobs.PingWorker{DB: db})
		q, err := jobs.Open(ctx, db, w, jobs.Config{Work: true, MaxWorkers: 2, PollInterval: 20 * time.Millisecond,
			JobTimeout: 30 * time.Second, RescueAfter: time.Minute, RescueInterval: 50 * time.Millisecond,
			OwnTimeoutKinds: []string{"diagnostic_ping_own"}})
		if err != nil {
			t.Fatal(err)
		}
		defer q.Stop(ctx)

		// stuck inserts a ping job and leaves it running since ago, at
		// attempt attempt of maxAttempts, as a process killed mid-job does.
		stuck := func(ago time.Duration, attempt, maxAttempts int, kind, metadata string) (jobs.PingRecord, int64) {
			t.Helper()
			p, err := jobs.CreatePingRecord(ctx, db, "stuck")
			if err != nil {
				t.Fatal(err)
			}
			job, err := q.Insert(ctx, jobs.PingArgs{PingID: p.ID}, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour), MaxAttempts: maxAttempts})
			if err != nil {
				t.Fatal(err)
			}
			attempted := `now() - make_interval(secs => $1)`
			if d == store.SQLite {
				attempted = `datetime('now', 'subsec', '-' || $1 || ' seconds')`
			}
			if _, err := db.W.ExecContext(ctx, `UPDATE river_job SET state = 'running', attempt = $2, kind = $3, metadata = `+jsonLiteral(d, metadata)+`, attempted_at = `+attempted+` WHERE id = $4`,
				int(ago.Seconds()), attempt, kind, job.ID); err != nil {
				t.Fatal(err)
			}
			return p, job.ID
		}
		retried, retriedID := stuck(2*time.Minute, 1, 25, "diagnostic_ping", "{}")
		_, exhaustedID := stuck(2*time.Minute, 3, 3, "diagnostic_ping", "{}")
		_, recentID := stuck(10*time.Second, 1, 25, "diagnostic_ping", "{}")
		_, ownID := stuck(2*time.Minute, 1, 25, "diagnostic_ping_own", "{}")
		_, cancelledID := stuck(2*time.Minute, 1, 25, "diagnostic_ping", `{"cancel_attempted_at":"2026-01-01T00:00:00Z"}`)

		n, ok, err := q.SweepOnce(ctx, time.Now())
		if !ok {
			t.Fatal("a rescue interval under River's 30 s made no sweep")
		}
		if err != nil || n != 3 {
			t.Fatalf("sweep changed %d jobs (%v), want 3", n, err)
		}
		state := func(id int64) string {
			var s string
			if err := db.R.QueryRowContext(ctx, `SELECT state FROM river_job WHERE id = $1`, id).Scan(&s); err != nil {
				t.Fatal(err)
			}
			return s
		}
		for id, want := range map[int64]string{retriedID: "available", exhaustedID: "discarded", recentID: "running", ownID: "running", cancelledID: "cancelled"} {
			if got := state(id); got != want {
				t.Errorf("job %d is %s after the sweep, want %s", id, got, want)
			}
		}

		// Started, the queue runs the rescued job after River's first
		// backoff (about a second), without a leader's scheduler.
		if err := q.Start(ctx); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			p, err := jobs.PingByID(ctx, db, retried.ID)
			if err != nil {
				t.Fatal(err)
			}
			if p.FinishedAt != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the rescued job did not run: %+v, state %s", p, state(retriedID))
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// jsonLiteral is metadata as the dialect's River schema stores it.
func jsonLiteral(d store.Dialect, s string) string {
	if d == store.Postgres {
		return `'` + s + `'::jsonb`
	}
	return `'` + s + `'`
}
