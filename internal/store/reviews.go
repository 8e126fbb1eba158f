package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Review is a decision a human_in_the_loop step asks of people.
type Review struct {
	RunID, StepKey, AccountID string
	AgentID                   string // the run's agent
	Instructions, Content     string
	RequestedAt, Deadline     time.Time
	OnTimeout                 string
	// AssigneeUserIDs may decide besides the account's owners and admins.
	AssigneeUserIDs []string
	AllowEdit       bool
	DecidedAt       *time.Time
	Approved        bool
	Edited          string
	Comment         string
	DecidedBy       string // user id; "" for an operator or a deadline
	TimedOut        bool   // decided by the deadline's on_timeout policy
	// ConsumedAt is when the run took the decision in; a parked run with
	// a decided, unconsumed review is waiting for a resume.
	ConsumedAt *time.Time
}

// Decision is how a review is decided.
type Decision struct {
	Approved  bool
	Edited    string
	Comment   string
	DecidedBy string
	TimedOut  bool
}

const reviewColumns = `v.run_id, v.step_key, v.account_id, r.agent_id, v.instructions, v.content, v.requested_at, v.deadline, v.on_timeout,
	v.assignee_user_ids, v.allow_edit, v.decided_at, v.approved, v.edited, v.comment, v.decided_by, v.timed_out, v.consumed_at`

const reviewFrom = ` FROM run_reviews v JOIN runs r ON r.id = v.run_id `

func scanReview(row interface{ Scan(...any) error }) (Review, error) {
	var (
		r                        Review
		assignees                string
		decided, consumed        sql.NullTime
		approved                 sql.NullBool
		edited, comment, decider sql.NullString
	)
	err := row.Scan(&r.RunID, &r.StepKey, &r.AccountID, &r.AgentID, &r.Instructions, &r.Content, &r.RequestedAt, &r.Deadline, &r.OnTimeout,
		&assignees, &r.AllowEdit, &decided, &approved, &edited, &comment, &decider, &r.TimedOut, &consumed)
	if errors.Is(err, sql.ErrNoRows) {
		return Review{}, ErrNotFound
	}
	if err != nil {
		return Review{}, err
	}
	if err := json.Unmarshal([]byte(assignees), &r.AssigneeUserIDs); err != nil {
		return Review{}, fmt.Errorf("review %s/%s: assignee_user_ids: %w", r.RunID, r.StepKey, err)
	}
	r.RequestedAt, r.Deadline = r.RequestedAt.UTC(), r.Deadline.UTC()
	if decided.Valid {
		t := decided.Time.UTC()
		r.DecidedAt = &t
	}
	if consumed.Valid {
		t := consumed.Time.UTC()
		r.ConsumedAt = &t
	}
	r.Approved, r.Edited, r.Comment, r.DecidedBy = approved.Bool, edited.String, comment.String, decider.String
	return r, nil
}

// RequestReview records a review request once; asking again returns the
// existing one, with its decision if made.
func (db *DB) RequestReview(ctx context.Context, r Review) (Review, error) {
	assignees, _ := json.Marshal(orEmptyList(r.AssigneeUserIDs))
	_, err := db.W.ExecContext(ctx, `INSERT INTO run_reviews (run_id, step_key, account_id, instructions, content, requested_at, deadline, on_timeout,
		assignee_user_ids, allow_edit) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (run_id, step_key) DO NOTHING`,
		r.RunID, r.StepKey, r.AccountID, r.Instructions, r.Content, Now(), r.Deadline.UTC(), r.OnTimeout, string(assignees), r.AllowEdit)
	if err != nil {
		return Review{}, err
	}
	return db.Review(ctx, r.AccountID, r.RunID, r.StepKey)
}

// Review returns one review of an account's run (ErrNotFound otherwise).
// It reads the primary: the worker and deciders act on what it says.
func (db *DB) Review(ctx context.Context, accountID, runID, key string) (Review, error) {
	return scanReview(db.W.QueryRowContext(ctx, `SELECT `+reviewColumns+reviewFrom+`WHERE v.run_id = $1 AND v.step_key = $2
		AND v.account_id = $3 AND r.account_id = $3`, runID, key, accountID))
}

// DecideReview records a decision on an open review of an account's run:
// ErrNotFound when the account has no such review, ErrConflict when it is
// decided already (exactly one decision ever lands).
func (db *DB) DecideReview(ctx context.Context, accountID, runID, key string, d Decision) (Review, error) {
	res, err := db.W.ExecContext(ctx, `UPDATE run_reviews SET decided_at = $1, approved = $2, edited = $3, comment = $4, decided_by = $5, timed_out = $6
		WHERE run_id = $7 AND step_key = $8 AND account_id = $9 AND decided_at IS NULL
		AND EXISTS (SELECT 1 FROM runs r WHERE r.id = run_reviews.run_id AND r.account_id = $9)`,
		Now(), d.Approved, nullable(d.Edited), nullable(d.Comment), nullable(d.DecidedBy), d.TimedOut, runID, key, accountID)
	if err != nil {
		return Review{}, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return Review{}, err
	}
	rv, err := db.Review(ctx, accountID, runID, key)
	if err != nil {
		return Review{}, err
	}
	if n == 0 {
		return rv, ErrConflict // already decided
	}
	return rv, nil
}

// ConsumeReview records that the run took a decided review in.
func (db *DB) ConsumeReview(ctx context.Context, runID, key string) error {
	_, err := db.W.ExecContext(ctx, `UPDATE run_reviews SET consumed_at = $1 WHERE run_id = $2 AND step_key = $3
		AND decided_at IS NOT NULL AND consumed_at IS NULL`, Now(), runID, key)
	return err
}

// DecidedUnconsumed lists the keys of a run's reviews that are decided but
// not yet taken in by the run: each is a resume the run is owed.
func (db *DB) DecidedUnconsumed(ctx context.Context, runID string) ([]string, error) {
	rows, err := db.W.QueryContext(ctx, `SELECT step_key FROM run_reviews WHERE run_id = $1 AND decided_at IS NOT NULL AND consumed_at IS NULL
		ORDER BY decided_at, step_key`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// ParkedWithDecision lists reviews that are decided and not taken in
// while their run waits in waiting_human, across accounts: only the sweep
// that resumes such runs calls it.
func (db *DB) ParkedWithDecision(ctx context.Context, limit int) ([]Review, error) {
	return db.reviews(ctx, `SELECT `+reviewColumns+reviewFrom+`WHERE r.status = 'waiting_human' AND v.decided_at IS NOT NULL
		AND v.consumed_at IS NULL ORDER BY v.decided_at LIMIT $1`, limit)
}

// OverdueReviews lists undecided reviews past their deadline, oldest
// deadline first, across accounts (the deadline sweep). A row that cannot
// be read is skipped and reported in the error, beside the reviews that
// could: one bad row must not hide the others from the sweep.
func (db *DB) OverdueReviews(ctx context.Context, now time.Time) ([]Review, error) {
	return db.reviews(ctx, `SELECT `+reviewColumns+reviewFrom+`WHERE v.decided_at IS NULL AND v.deadline < $1
		ORDER BY v.deadline, v.run_id, v.step_key`, now.UTC())
}

// OpenReviews lists undecided reviews, oldest first; every account's when
// accountID is "" (operators only). Unreadable rows are skipped and
// reported in the error, as for OverdueReviews.
func (db *DB) OpenReviews(ctx context.Context, accountID string, limit int) ([]Review, error) {
	return db.reviews(ctx, `SELECT `+reviewColumns+reviewFrom+`WHERE v.decided_at IS NULL AND (v.account_id = $1 OR $1 = '')
		ORDER BY v.requested_at, v.run_id, v.step_key LIMIT $2`, accountID, limit)
}

// PendingReviewFilter narrows an account's undecided reviews.
type PendingReviewFilter struct {
	RunID string // one run's reviews
	// AssigneeUserID keeps the reviews naming this user as an assignee
	// (a member who is neither owner nor admin sees only those).
	AssigneeUserID string
}

// PendingReviews lists a page of an account's undecided reviews, oldest
// first, with the total count.
func (db *DB) PendingReviews(ctx context.Context, accountID string, f PendingReviewFilter, limit, offset int) ([]Review, int, error) {
	// Assignees are stored as a JSON array of ids; ids never contain a
	// quote, so the quoted id is an exact element match.
	where := `WHERE v.account_id = $1 AND r.account_id = $1 AND v.decided_at IS NULL AND ($2 = '' OR v.run_id = $2)
		AND ($3 = '' OR v.assignee_user_ids LIKE $4)`
	like := `%"` + f.AssigneeUserID + `"%`
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*)`+reviewFrom+where, accountID, f.RunID, f.AssigneeUserID, like).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := db.reviews(ctx, `SELECT `+reviewColumns+reviewFrom+where+` ORDER BY v.requested_at, v.run_id, v.step_key LIMIT $5 OFFSET $6`,
		accountID, f.RunID, f.AssigneeUserID, like, limit, offset)
	return out, total, err
}

// reviews runs a review query. Every readable row is returned; rows that
// fail to scan are skipped and their errors joined with the cursor's.
func (db *DB) reviews(ctx context.Context, q string, args ...any) ([]Review, error) {
	rows, err := db.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Review{}
	var errs []error
	for rows.Next() {
		r, err := scanReview(rows)
		if err != nil {
			errs = append(errs, fmt.Errorf("unreadable review row skipped: %w", err))
			continue
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// ReviewsOfRun lists every review of an account's run, oldest first.
func (db *DB) ReviewsOfRun(ctx context.Context, accountID, runID string) ([]Review, error) {
	return db.reviews(ctx, `SELECT `+reviewColumns+reviewFrom+`WHERE v.run_id = $1 AND v.account_id = $2 AND r.account_id = $2
		ORDER BY v.requested_at, v.step_key`, runID, accountID)
}
