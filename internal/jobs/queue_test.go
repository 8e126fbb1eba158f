package jobs_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/riverqueue/river"
)

func workingQueue(t *testing.T, db *store.DB) *jobs.Queue {
	t.Helper()
	w := river.NewWorkers()
	river.AddWorker(w, &jobs.PingWorker{DB: db})
	q, err := jobs.Open(context.Background(), db, w, jobs.Config{Work: true, MaxWorkers: 2,
		JobTimeout: 30 * time.Minute, RescueAfter: time.Hour, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return q
}

func waitPing(t *testing.T, db *store.DB, id string, done func(jobs.PingRecord) bool) jobs.PingRecord {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p, err := jobs.PingByID(context.Background(), db, id)
		if err != nil {
			t.Fatal(err)
		}
		if done(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("ping %+v", p)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStopCancelsAndReleases stops a queue while a job runs past the
// graceful deadline: Stop cancels it, waits for its worker to return, and
// leaves the job available at once, so the next queue on the database
// runs it again now — not after the rescuer's hour.
func TestStopCancelsAndReleases(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db, err := store.Open(ctx, storetest.URL(t, d), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		first := workingQueue(t, db)
		p, err := jobs.Ping(ctx, db, first, "running at stop", 1500*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		waitPing(t, db, p.ID, func(p jobs.PingRecord) bool { return p.StartedAt != nil })

		graceful, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		if err := first.Stop(graceful); err != nil {
			t.Fatalf("stop: %v", err)
		}
		if got, _ := jobs.PingByID(ctx, db, p.ID); got.FinishedAt != nil || got.Attempts != 1 {
			t.Fatalf("the job was not interrupted: %+v", got)
		}

		second := workingQueue(t, db)
		defer second.Stop(ctx)
		got := waitPing(t, db, p.ID, func(p jobs.PingRecord) bool { return p.FinishedAt != nil })
		if got.Attempts != 2 {
			t.Errorf("finished in %d attempts, want 2", got.Attempts)
		}
	})
}

// TestInsertTxWakesLocalWorker: a job inserted within a store transaction
// is worked as soon as the transaction commits and the insert's wake-up is
// called, with polling out of the picture (an hour apart). On SQLite the
// wake-up is River's in-process one, on PostgreSQL the NOTIFY sent on
// commit. A rolled-back transaction leaves no job.
func TestInsertTxWakesLocalWorker(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db, err := store.Open(ctx, storetest.URL(t, d), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		w := river.NewWorkers()
		river.AddWorker(w, &jobs.PingWorker{DB: db})
		q, err := jobs.Open(ctx, db, w, jobs.Config{Work: true, MaxWorkers: 2, JobTimeout: time.Minute, RescueAfter: time.Hour, PollInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer q.Stop(ctx)
		// The producer is past its first fetch once a plain insert ran.
		first, err := jobs.Ping(ctx, db, q, "plain insert", 0)
		if err != nil {
			t.Fatal(err)
		}
		waitPing(t, db, first.ID, func(p jobs.PingRecord) bool { return p.FinishedAt != nil })

		insert := func(note string, commit bool) (jobs.PingRecord, func()) {
			p, err := jobs.CreatePingRecord(ctx, db, note)
			if err != nil {
				t.Fatal(err)
			}
			var wake func()
			rollback := errors.New("roll back")
			err = db.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
				var err error
				if wake, err = q.InsertTx(ctx, tx, conn, jobs.PingArgs{PingID: p.ID}, nil); err != nil {
					return err
				}
				if !commit {
					return rollback
				}
				return nil
			})
			if commit && err != nil || !commit && !errors.Is(err, rollback) {
				t.Fatalf("transaction: %v", err)
			}
			return p, wake
		}
		p, wake := insert("in a transaction", true)
		wake()
		waitPing(t, db, p.ID, func(p jobs.PingRecord) bool { return p.FinishedAt != nil })
		gone, _ := insert("rolled back", false)
		var n int
		if err := db.R.QueryRow(`SELECT COUNT(*) FROM river_job WHERE CAST(args AS TEXT) LIKE $1`, "%"+gone.ID+"%").Scan(&n); err != nil || n != 0 {
			t.Fatalf("a rolled-back insert left %d jobs (%v)", n, err)
		}
	})
}
