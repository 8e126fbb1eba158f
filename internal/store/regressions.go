package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// Regression runs (an extension, docs/regressions.md): recorded runs of an
// agent replayed on a version of its workflow, judged and compared with
// the originals. The regression row holds the request and its status; one
// item per recorded run holds its replay and, once that ended, the verdicts.

// Regression statuses.
const (
	RegressionQueued    = "queued"
	RegressionRunning   = "running"
	RegressionCompleted = "completed"
	RegressionCancelled = "cancelled"
)

// Regression item statuses.
const (
	ItemPending   = "pending"   // no replay yet
	ItemReplaying = "replaying" // its replay run is created, not yet judged
	ItemDone      = "done"      // judged and compared
	ItemCancelled = "cancelled" // the regression was cancelled first
)

// RegressionTerminal reports whether a regression status is final.
func RegressionTerminal(status string) bool {
	return status == RegressionCompleted || status == RegressionCancelled
}

// Regression is one regression run.
type Regression struct {
	ID, AccountID, AgentID, ChangeID string
	Status, Selection                string
	Estimate                         float64
	CancelRequested                  bool
	CreatedAt, UpdatedAt             time.Time
	StartedAt, EndedAt               *time.Time
}

// RegressionItem is one recorded run of a regression and its replay.
type RegressionItem struct {
	RegressionID, SourceRunID, ReplayRunID string
	Position                               int
	Status                                 string
	Outcome                                string   // unchanged or changed ("" until done)
	Similarity                             *float64 // 0..1 ("" until done)
	SourcePassed, ReplayPassed             *bool
	SourceChecks, ReplayChecks             json.RawMessage
	JudgeCredits                           float64
}

// CreateRegressionTx records a regression and its items (in order) within
// tx, whose caller enqueues its job in the same transaction.
func (db *DB) CreateRegressionTx(ctx context.Context, tx *sql.Tx, r Regression, sourceRunIDs []string) (Regression, error) {
	r.ID, r.CreatedAt, r.UpdatedAt, r.Status = NewID(), Now(), Now(), RegressionQueued
	if _, err := tx.ExecContext(ctx, `INSERT INTO regressions (id, account_id, agent_id, change_id, status, selection, estimate,
		created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
		r.ID, r.AccountID, r.AgentID, r.ChangeID, r.Status, r.Selection, ToMicro(r.Estimate), r.CreatedAt); err != nil {
		return r, err
	}
	for i, id := range sourceRunIDs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO regression_items (regression_id, position, source_run_id, status)
			VALUES ($1, $2, $3, $4)`, r.ID, i, id, ItemPending); err != nil {
			return r, err
		}
	}
	return r, nil
}

const regressionColumns = `id, account_id, agent_id, change_id, status, selection, estimate, cancel_requested,
	created_at, started_at, ended_at, updated_at`

func scanRegression(row interface{ Scan(...any) error }) (Regression, error) {
	var (
		r              Regression
		micro          int64
		started, ended sql.NullTime
	)
	err := row.Scan(&r.ID, &r.AccountID, &r.AgentID, &r.ChangeID, &r.Status, &r.Selection, &micro, &r.CancelRequested,
		&r.CreatedAt, &started, &ended, &r.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return r, ErrNotFound
	}
	r.Estimate = FromMicro(micro)
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	if started.Valid {
		t := started.Time.UTC()
		r.StartedAt = &t
	}
	if ended.Valid {
		t := ended.Time.UTC()
		r.EndedAt = &t
	}
	return r, err
}

// Regression reads one of an agent's regressions (ErrNotFound for another
// account's or agent's).
func (db *DB) Regression(ctx context.Context, accountID, agentID, id string) (Regression, error) {
	return scanRegression(db.R.QueryRowContext(ctx, `SELECT `+regressionColumns+` FROM regressions
		WHERE id = $1 AND account_id = $2 AND agent_id = $3`, id, accountID, agentID))
}

// RegressionForWorker reads a regression by id and account (its job's
// arguments), on the writer so the worker sees its own last write.
func (db *DB) RegressionForWorker(ctx context.Context, accountID, id string) (Regression, error) {
	return scanRegression(db.W.QueryRowContext(ctx, `SELECT `+regressionColumns+` FROM regressions
		WHERE id = $1 AND account_id = $2`, id, accountID))
}

// Regressions lists an agent's regressions, newest first, with the total.
func (db *DB) Regressions(ctx context.Context, accountID, agentID string, limit, offset int) ([]Regression, int, error) {
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM regressions WHERE account_id = $1 AND agent_id = $2`,
		accountID, agentID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := db.R.QueryContext(ctx, `SELECT `+regressionColumns+` FROM regressions WHERE account_id = $1 AND agent_id = $2
		ORDER BY id DESC LIMIT $3 OFFSET $4`, accountID, agentID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Regression
	for rows.Next() {
		r, err := scanRegression(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// RegressionItems lists a regression's items in order.
func (db *DB) RegressionItems(ctx context.Context, regressionID string) ([]RegressionItem, error) {
	rows, err := db.W.QueryContext(ctx, `SELECT regression_id, position, source_run_id, COALESCE(replay_run_id, ''), status,
		COALESCE(outcome, ''), similarity, source_passed, replay_passed, COALESCE(source_checks, ''), COALESCE(replay_checks, ''),
		judge_credits FROM regression_items WHERE regression_id = $1 ORDER BY position`, regressionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RegressionItem
	for rows.Next() {
		var (
			it             RegressionItem
			sim            sql.NullFloat64
			sp, rp         sql.NullBool
			sChecks, rChks string
			micro          int64
		)
		if err := rows.Scan(&it.RegressionID, &it.Position, &it.SourceRunID, &it.ReplayRunID, &it.Status, &it.Outcome, &sim,
			&sp, &rp, &sChecks, &rChks, &micro); err != nil {
			return nil, err
		}
		if sim.Valid {
			it.Similarity = &sim.Float64
		}
		if sp.Valid {
			it.SourcePassed = &sp.Bool
		}
		if rp.Valid {
			it.ReplayPassed = &rp.Bool
		}
		if sChecks != "" {
			it.SourceChecks = json.RawMessage(sChecks)
		}
		if rChks != "" {
			it.ReplayChecks = json.RawMessage(rChks)
		}
		it.JudgeCredits = FromMicro(micro)
		out = append(out, it)
	}
	return out, rows.Err()
}

// MarkRegressionRunning moves a queued regression to running.
func (db *DB) MarkRegressionRunning(ctx context.Context, id string) error {
	now := Now()
	_, err := db.W.ExecContext(ctx, `UPDATE regressions SET status = $2, started_at = $3, updated_at = $3
		WHERE id = $1 AND status = $4`, id, RegressionRunning, now, RegressionQueued)
	return err
}

// SetReplayTx records, within the transaction that creates the replay run,
// that an item has its replay. ErrConflict when it already had one (the
// transaction must then roll back: the source run is replayed once).
func (db *DB) SetReplayTx(ctx context.Context, tx *sql.Tx, regressionID, sourceRunID, replayRunID string) error {
	res, err := tx.ExecContext(ctx, `UPDATE regression_items SET replay_run_id = $3, status = $4
		WHERE regression_id = $1 AND source_run_id = $2 AND replay_run_id IS NULL AND status = $5`,
		regressionID, sourceRunID, replayRunID, ItemReplaying, ItemPending)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrConflict
	}
	return nil
}

// FinishRegressionItem records an item's verdicts once its replay ended.
func (db *DB) FinishRegressionItem(ctx context.Context, it RegressionItem) error {
	_, err := db.W.ExecContext(ctx, `UPDATE regression_items SET status = $3, outcome = $4, similarity = $5, source_passed = $6,
		replay_passed = $7, source_checks = $8, replay_checks = $9, judge_credits = $10
		WHERE regression_id = $1 AND source_run_id = $2 AND status = $11`,
		it.RegressionID, it.SourceRunID, ItemDone, it.Outcome, it.Similarity, it.SourcePassed, it.ReplayPassed,
		nullableJSON(it.SourceChecks), nullableJSON(it.ReplayChecks), ToMicro(it.JudgeCredits), ItemReplaying)
	return err
}

// RequestRegressionCancel asks a regression to stop; false when it had
// already ended.
func (db *DB) RequestRegressionCancel(ctx context.Context, accountID, agentID, id string) (bool, error) {
	res, err := db.W.ExecContext(ctx, `UPDATE regressions SET cancel_requested = TRUE, updated_at = $4
		WHERE id = $1 AND account_id = $2 AND agent_id = $3 AND status IN ($5, $6)`,
		id, accountID, agentID, Now(), RegressionQueued, RegressionRunning)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// EndRegression settles a regression: completed, or cancelled with its
// items not yet replayed (or whose replay was stopped) marked cancelled.
func (db *DB) EndRegression(ctx context.Context, id, status string) error {
	return db.Tx(ctx, func(tx *sql.Tx) error {
		now := Now()
		if status == RegressionCancelled {
			if _, err := tx.ExecContext(ctx, `UPDATE regression_items SET status = $2
				WHERE regression_id = $1 AND status IN ($3, $4)`, id, ItemCancelled, ItemPending, ItemReplaying); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE regressions SET status = $2, ended_at = $3, updated_at = $3,
			started_at = COALESCE(started_at, $3) WHERE id = $1 AND status IN ($4, $5)`,
			id, status, now, RegressionQueued, RegressionRunning)
		return err
	})
}

// RegressionSourceRuns are the ids of an agent's last n finished runs
// (completed or failed), newest first; replays of regressions excluded.
func (db *DB) RegressionSourceRuns(ctx context.Context, accountID, agentID string, n int) ([]string, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT id FROM runs WHERE account_id = $1 AND agent_id = $2 AND status IN ($3, $4)
		AND regression_id IS NULL ORDER BY id DESC LIMIT $5`, accountID, agentID, RunCompleted, RunFailed, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// RunCreditsOf sums the credits of runs of an account (for the up-front
// estimate of replaying them).
func (db *DB) RunCreditsOf(ctx context.Context, accountID string, runIDs []string) (float64, error) {
	var total int64
	for _, id := range runIDs {
		var micro int64
		err := db.R.QueryRowContext(ctx, `SELECT credits FROM runs WHERE id = $1 AND account_id = $2`, id, accountID).Scan(&micro)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, err
		}
		total += micro
	}
	return FromMicro(total), nil
}

// RunRegressionID is the regression a run replays for ("" for a
// production run, or a run that does not exist).
func (db *DB) RunRegressionID(ctx context.Context, runID string) (string, error) {
	var id sql.NullString
	err := db.R.QueryRowContext(ctx, `SELECT regression_id FROM runs WHERE id = $1`, runID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id.String, err
}
