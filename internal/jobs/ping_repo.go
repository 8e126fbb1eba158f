package jobs

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// The diagnostic pings keep their records here (job_pings): the queue's
// own end-to-end check, read and written only by this package.

// PingRecord is a diagnostic job's record: it shows when a worker picked the job
// up, how often, and when it finished.
type PingRecord struct {
	ID         string
	Note       string
	StartedAt  *time.Time
	FinishedAt *time.Time
	Attempts   int
	CreatedAt  time.Time
}

// CreatePingRecord records a ping before its job is enqueued.
func CreatePingRecord(ctx context.Context, db *store.DB, note string) (PingRecord, error) {
	p := PingRecord{ID: store.NewID(), Note: note, CreatedAt: store.Now()}
	_, err := db.W.ExecContext(ctx, `INSERT INTO job_pings (id, note, created_at) VALUES ($1, $2, $3)`, p.ID, p.Note, p.CreatedAt)
	return p, err
}

// startPing marks an attempt as started.
func startPing(ctx context.Context, db *store.DB, id string) error {
	_, err := db.W.ExecContext(ctx, `UPDATE job_pings SET started_at = $1, attempts = attempts + 1 WHERE id = $2`, store.Now(), id)
	return err
}

// finishPing marks the ping done.
func finishPing(ctx context.Context, db *store.DB, id string) error {
	_, err := db.W.ExecContext(ctx, `UPDATE job_pings SET finished_at = $1 WHERE id = $2`, store.Now(), id)
	return err
}

// PingByID reads a ping.
func PingByID(ctx context.Context, db *store.DB, id string) (PingRecord, error) {
	var (
		p        PingRecord
		st, done sql.NullTime
	)
	err := db.R.QueryRowContext(ctx, `SELECT id, note, started_at, finished_at, attempts, created_at FROM job_pings WHERE id = $1`, id).
		Scan(&p.ID, &p.Note, &st, &done, &p.Attempts, &p.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return PingRecord{}, store.ErrNotFound
	}
	if st.Valid {
		p.StartedAt = &st.Time
	}
	if done.Valid {
		p.FinishedAt = &done.Time
	}
	return p, err
}
