package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Review is a decision a human_in_the_loop step asks of people.
type Review struct {
	RunID, StepKey, AccountID string
	Instructions, Content     string
	RequestedAt, Deadline     time.Time
	OnTimeout                 string
	DecidedAt                 *time.Time
	Approved                  bool
	Edited                    string
}

// RequestReview records a review request once; asking again returns the
// existing one, with its decision if made.
func (db *DB) RequestReview(ctx context.Context, r Review) (Review, error) {
	_, err := db.W.ExecContext(ctx, `INSERT INTO run_reviews (run_id, step_key, account_id, instructions, content, requested_at, deadline, on_timeout)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (run_id, step_key) DO NOTHING`,
		r.RunID, r.StepKey, r.AccountID, r.Instructions, r.Content, Now(), r.Deadline.UTC(), r.OnTimeout)
	if err != nil {
		return Review{}, err
	}
	return db.review(ctx, r.RunID, r.StepKey)
}

func (db *DB) review(ctx context.Context, runID, key string) (Review, error) {
	var (
		r        Review
		decided  sql.NullTime
		approved sql.NullBool
		edited   sql.NullString
	)
	err := db.W.QueryRowContext(ctx, `SELECT run_id, step_key, account_id, instructions, content, requested_at, deadline, on_timeout,
		decided_at, approved, edited FROM run_reviews WHERE run_id = $1 AND step_key = $2`, runID, key).
		Scan(&r.RunID, &r.StepKey, &r.AccountID, &r.Instructions, &r.Content, &r.RequestedAt, &r.Deadline, &r.OnTimeout, &decided, &approved, &edited)
	if errors.Is(err, sql.ErrNoRows) {
		return Review{}, ErrNotFound
	}
	if decided.Valid {
		t := decided.Time.UTC()
		r.DecidedAt = &t
	}
	r.Approved, r.Edited = approved.Bool, edited.String
	return r, err
}

// DecideReview records a decision on an open review of an account's run.
func (db *DB) DecideReview(ctx context.Context, accountID, runID, key string, approved bool, edited string) (Review, error) {
	res, err := db.W.ExecContext(ctx, `UPDATE run_reviews SET decided_at = $1, approved = $2, edited = $3
		WHERE run_id = $4 AND step_key = $5 AND account_id = $6 AND decided_at IS NULL`, Now(), approved, nullable(edited), runID, key, accountID)
	if err != nil {
		return Review{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := db.review(ctx, runID, key); err != nil {
			return Review{}, err
		}
		return Review{}, ErrConflict // already decided
	}
	return db.review(ctx, runID, key)
}

// OverdueReviews lists undecided reviews past their deadline.
func (db *DB) OverdueReviews(ctx context.Context, now time.Time) ([]Review, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT run_id, step_key FROM run_reviews WHERE decided_at IS NULL AND deadline < $1`, now.UTC())
	if err != nil {
		return nil, err
	}
	var keys [][2]string
	for rows.Next() {
		var k [2]string
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			rows.Close()
			return nil, err
		}
		keys = append(keys, k)
	}
	rows.Close()
	var out []Review
	for _, k := range keys {
		r, err := db.review(ctx, k[0], k[1])
		if err == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// OpenReviews lists undecided reviews, oldest first; every account's when
// accountID is "" (operators only).
func (db *DB) OpenReviews(ctx context.Context, accountID string, limit int) ([]Review, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT run_id, step_key FROM run_reviews WHERE decided_at IS NULL AND (account_id = $1 OR $1 = '')
		ORDER BY requested_at LIMIT $2`, accountID, limit)
	if err != nil {
		return nil, err
	}
	var keys [][2]string
	for rows.Next() {
		var k [2]string
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			rows.Close()
			return nil, err
		}
		keys = append(keys, k)
	}
	rows.Close()
	out := make([]Review, 0, len(keys))
	for _, k := range keys {
		r, err := db.review(ctx, k[0], k[1])
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
