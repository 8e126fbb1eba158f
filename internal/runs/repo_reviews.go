package runs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Reviews keep their own persistence beside the service that asks for and
// decides them (issue 31's vertical slices): the table run_reviews is read
// and written only here. A review is a run's, so its queries join the runs
// table to check the run's account.

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

// reviewRepo is the reviews' SQL.
type reviewRepo struct{ db *store.DB }

const reviewColumns = `v.run_id, v.step_key, v.account_id, r.agent_id, v.instructions, v.content, v.requested_at, v.deadline, v.on_timeout,
	v.assignee_user_ids, v.allow_edit, v.decided_at, v.approved, v.edited, v.comment, v.decided_by, v.timed_out, v.consumed_at`

const reviewFrom = ` FROM run_reviews v JOIN runs r ON r.id = v.run_id `

func scanReview(row store.Scanner) (Review, error) {
	var (
		r                        Review
		assignees                string
		decided, consumed        sql.NullTime
		approved                 sql.NullBool
		edited, comment, decider sql.NullString
	)
	if err := row.Scan(&r.RunID, &r.StepKey, &r.AccountID, &r.AgentID, &r.Instructions, &r.Content, &r.RequestedAt, &r.Deadline, &r.OnTimeout,
		&assignees, &r.AllowEdit, &decided, &approved, &edited, &comment, &decider, &r.TimedOut, &consumed); err != nil {
		return Review{}, err
	}
	if err := json.Unmarshal([]byte(assignees), &r.AssigneeUserIDs); err != nil {
		return Review{}, fmt.Errorf("review %s/%s: assignee_user_ids: %w", r.RunID, r.StepKey, err)
	}
	r.RequestedAt, r.Deadline = r.RequestedAt.UTC(), r.Deadline.UTC()
	r.DecidedAt, r.ConsumedAt = store.TimeOrNil(decided), store.TimeOrNil(consumed)
	r.Approved, r.Edited, r.Comment, r.DecidedBy = approved.Bool, edited.String, comment.String, decider.String
	return r, nil
}

// request records a review request once; asking again returns the
// existing one, with its decision if made.
func (q reviewRepo) request(ctx context.Context, r Review) (Review, error) {
	// A copy, so that no assignees is stored as [] rather than null.
	assignees, _ := json.Marshal(append([]string{}, r.AssigneeUserIDs...))
	_, err := q.db.W.ExecContext(ctx, `INSERT INTO run_reviews (run_id, step_key, account_id, instructions, content, requested_at, deadline, on_timeout,
		assignee_user_ids, allow_edit) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (run_id, step_key) DO NOTHING`,
		r.RunID, r.StepKey, r.AccountID, r.Instructions, r.Content, store.Now(), r.Deadline.UTC(), r.OnTimeout, string(assignees), r.AllowEdit)
	if err != nil {
		return Review{}, err
	}
	return q.review(ctx, r.AccountID, r.RunID, r.StepKey)
}

// review returns one review of an account's run (store.ErrNotFound
// otherwise). It reads the primary: the worker and deciders act on what
// it says.
func (q reviewRepo) review(ctx context.Context, accountID, runID, key string) (Review, error) {
	return store.One(ctx, q.db.W, scanReview, `SELECT `+reviewColumns+reviewFrom+`WHERE v.run_id = $1 AND v.step_key = $2
		AND v.account_id = $3 AND r.account_id = $3`, runID, key, accountID)
}

// decide records a decision on an open review of an account's run:
// store.ErrNotFound when the account has no such review,
// store.ErrConflict when it is decided already (exactly one decision ever
// lands).
func (q reviewRepo) decide(ctx context.Context, accountID, runID, key string, d Decision) (Review, error) {
	res, err := q.db.W.ExecContext(ctx, `UPDATE run_reviews SET decided_at = $1, approved = $2, edited = $3, comment = $4, decided_by = $5, timed_out = $6
		WHERE run_id = $7 AND step_key = $8 AND account_id = $9 AND decided_at IS NULL
		AND EXISTS (SELECT 1 FROM runs r WHERE r.id = run_reviews.run_id AND r.account_id = $9)`,
		store.Now(), d.Approved, store.NullIfEmpty(d.Edited), store.NullIfEmpty(d.Comment), store.NullIfEmpty(d.DecidedBy), d.TimedOut, runID, key, accountID)
	if err != nil {
		return Review{}, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return Review{}, err
	}
	rv, err := q.review(ctx, accountID, runID, key)
	if err != nil {
		return Review{}, err
	}
	if n == 0 {
		return rv, store.ErrConflict // already decided
	}
	return rv, nil
}

// consume records that the run took a decided review in.
func (q reviewRepo) consume(ctx context.Context, runID, key string) error {
	_, err := q.db.W.ExecContext(ctx, `UPDATE run_reviews SET consumed_at = $1 WHERE run_id = $2 AND step_key = $3
		AND decided_at IS NOT NULL AND consumed_at IS NULL`, store.Now(), runID, key)
	return err
}

// decidedUnconsumed lists the keys of a run's reviews that are decided
// but not yet taken in by the run: each is a resume the run is owed.
func (q reviewRepo) decidedUnconsumed(ctx context.Context, runID string) ([]string, error) {
	return store.All(ctx, q.db.W, func(row store.Scanner) (string, error) {
		var k string
		return k, row.Scan(&k)
	}, `SELECT step_key FROM run_reviews WHERE run_id = $1 AND decided_at IS NOT NULL AND consumed_at IS NULL
		ORDER BY decided_at, step_key`, runID)
}

// parkedWithDecision lists reviews that are decided and not taken in
// while their run waits in waiting_human, across accounts: only the sweep
// that resumes such runs calls it.
func (q reviewRepo) parkedWithDecision(ctx context.Context, limit int) ([]Review, error) {
	return q.list(ctx, `SELECT `+reviewColumns+reviewFrom+`WHERE r.status = 'waiting_human' AND v.decided_at IS NOT NULL
		AND v.consumed_at IS NULL ORDER BY v.decided_at LIMIT $1`, limit)
}

// overdue lists undecided reviews past their deadline, oldest deadline
// first, across accounts (the deadline sweep). A row that cannot be read
// is skipped and reported in the error, beside the reviews that could:
// one bad row must not hide the others from the sweep.
func (q reviewRepo) overdue(ctx context.Context, now time.Time) ([]Review, error) {
	return q.list(ctx, `SELECT `+reviewColumns+reviewFrom+`WHERE v.decided_at IS NULL AND v.deadline < $1
		ORDER BY v.deadline, v.run_id, v.step_key`, now.UTC())
}

// open lists undecided reviews, oldest first; every account's when
// accountID is "" (operators only). Unreadable rows are skipped and
// reported in the error, as for overdue.
func (q reviewRepo) open(ctx context.Context, accountID string, limit int) ([]Review, error) {
	return q.list(ctx, `SELECT `+reviewColumns+reviewFrom+`WHERE v.decided_at IS NULL AND (v.account_id = $1 OR $1 = '')
		ORDER BY v.requested_at, v.run_id, v.step_key LIMIT $2`, accountID, limit)
}

// pendingFilter narrows an account's undecided reviews.
type pendingFilter struct {
	RunID string // one run's reviews
	// AssigneeUserID keeps the reviews naming this user as an assignee
	// (a member who is neither owner nor admin sees only those).
	AssigneeUserID string
}

// pending lists a page of an account's undecided reviews, oldest first,
// with the total count.
func (q reviewRepo) pending(ctx context.Context, accountID string, f pendingFilter, limit, offset int) ([]Review, int, error) {
	// Assignees are stored as a JSON array of ids; ids never contain a
	// quote, so the quoted id is an exact element match.
	where := `WHERE v.account_id = $1 AND r.account_id = $1 AND v.decided_at IS NULL AND ($2 = '' OR v.run_id = $2)
		AND ($3 = '' OR v.assignee_user_ids LIKE $4)`
	like := `%"` + f.AssigneeUserID + `"%`
	var total int
	if err := q.db.R.QueryRowContext(ctx, `SELECT COUNT(*)`+reviewFrom+where, accountID, f.RunID, f.AssigneeUserID, like).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := q.list(ctx, `SELECT `+reviewColumns+reviewFrom+where+` ORDER BY v.requested_at, v.run_id, v.step_key LIMIT $5 OFFSET $6`,
		accountID, f.RunID, f.AssigneeUserID, like, limit, offset)
	return out, total, err
}

// ofRun lists every review of an account's run, oldest first.
func (q reviewRepo) ofRun(ctx context.Context, accountID, runID string) ([]Review, error) {
	return q.list(ctx, `SELECT `+reviewColumns+reviewFrom+`WHERE v.run_id = $1 AND v.account_id = $2 AND r.account_id = $2
		ORDER BY v.requested_at, v.step_key`, runID, accountID)
}

// list runs a review query. Every readable row is returned; rows that
// fail to scan are skipped and their errors joined with the cursor's
// (store.All would stop at the first: one bad row must not hide the
// others from the sweeps).
func (q reviewRepo) list(ctx context.Context, query string, args ...any) ([]Review, error) {
	rows, err := q.db.R.QueryContext(ctx, query, args...)
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
