package jobs

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// PingArgs is the diagnostic job: `agentry admin jobs ping` enqueues one and
// waits for it, proving end to end that workers are running against this
// database. It takes SleepMS to stand in for real work of some length.
type PingArgs struct {
	PingID  string `json:"ping_id"`
	SleepMS int    `json:"sleep_ms"`
}

// Kind names the job kind.
func (PingArgs) Kind() string { return "diagnostic_ping" }

// PingWorker runs pings.
type PingWorker struct {
	river.WorkerDefaults[PingArgs]
	DB *store.DB
}

// Work records the attempt, does the "work", and records completion.
func (w *PingWorker) Work(ctx context.Context, job *river.Job[PingArgs]) error {
	if err := startPing(ctx, w.DB, job.Args.PingID); err != nil {
		return err
	}
	select {
	case <-time.After(time.Duration(job.Args.SleepMS) * time.Millisecond):
	case <-ctx.Done():
		return ctx.Err()
	}
	return finishPing(ctx, w.DB, job.Args.PingID)
}

// Ping creates a ping record and enqueues its job.
func Ping(ctx context.Context, db *store.DB, q *Queue, note string, sleep time.Duration) (PingRecord, error) {
	p, err := CreatePingRecord(ctx, db, note)
	if err != nil {
		return PingRecord{}, err
	}
	_, err = q.Insert(ctx, PingArgs{PingID: p.ID, SleepMS: int(sleep / time.Millisecond)}, nil)
	return p, err
}
