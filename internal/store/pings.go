package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// JobPing is a diagnostic job's record: it shows when a worker picked the job
// up, how often, and when it finished.
type JobPing struct {
	ID         string
	Note       string
	StartedAt  *time.Time
	FinishedAt *time.Time
	Attempts   int
	CreatedAt  time.Time
}

// CreateJobPing records a ping before its job is enqueued.
func (db *DB) CreateJobPing(ctx context.Context, note string) (JobPing, error) {
	p := JobPing{ID: NewID(), Note: note, CreatedAt: Now()}
	_, err := db.W.ExecContext(ctx, `INSERT INTO job_pings (id, note, created_at) VALUES ($1, $2, $3)`, p.ID, p.Note, p.CreatedAt)
	return p, err
}

// StartJobPing marks an attempt as started.
func (db *DB) StartJobPing(ctx context.Context, id string) error {
	_, err := db.W.ExecContext(ctx, `UPDATE job_pings SET started_at = $1, attempts = attempts + 1 WHERE id = $2`, Now(), id)
	return err
}

// FinishJobPing marks the ping done.
func (db *DB) FinishJobPing(ctx context.Context, id string) error {
	_, err := db.W.ExecContext(ctx, `UPDATE job_pings SET finished_at = $1 WHERE id = $2`, Now(), id)
	return err
}

// JobPingByID reads a ping.
func (db *DB) JobPingByID(ctx context.Context, id string) (JobPing, error) {
	var (
		p        JobPing
		st, done sql.NullTime
	)
	err := db.R.QueryRowContext(ctx, `SELECT id, note, started_at, finished_at, attempts, created_at FROM job_pings WHERE id = $1`, id).
		Scan(&p.ID, &p.Note, &st, &done, &p.Attempts, &p.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return JobPing{}, ErrNotFound
	}
	if st.Valid {
		p.StartedAt = &st.Time
	}
	if done.Valid {
		p.FinishedAt = &done.Time
	}
	return p, err
}
