package regressions

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// The regressions area keeps its own persistence (issue 31's vertical
// slices): the tables regressions and regression_items are read and
// written only here. The runs table's reads a regression needs (its
// source runs, their credits, whether a run is a replay) are the runs
// area's (internal/runs/repo_regressions.go); a replay run records its item through the hook
// this area hands runs.Replay, in the transaction that creates the run.

// The regression row holds the request and its status; one item per
// recorded run holds its replay and, once that ended, the verdicts.

// Regression statuses.
const (
	StatusQueued    = "queued"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusCancelled = "cancelled"
)

// Regression item statuses.
const (
	ItemPending   = "pending"   // no replay yet
	ItemReplaying = "replaying" // its replay run is created, not yet judged
	ItemDone      = "done"      // judged and compared
	ItemCancelled = "cancelled" // the regression was cancelled first
)

// Terminal reports whether a regression status is final.
func Terminal(status string) bool {
	return status == StatusCompleted || status == StatusCancelled
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

// repo is the area's SQL.
type repo struct{ db *store.DB }

// createTx records a regression and its items (in order) within tx, whose
// caller enqueues its job in the same transaction.
func (r repo) createTx(ctx context.Context, tx *sql.Tx, reg Regression, sourceRunIDs []string) (Regression, error) {
	reg.ID, reg.CreatedAt, reg.UpdatedAt, reg.Status = store.NewID(), store.Now(), store.Now(), StatusQueued
	if _, err := tx.ExecContext(ctx, `INSERT INTO regressions (id, account_id, agent_id, change_id, status, selection, estimate,
		created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
		reg.ID, reg.AccountID, reg.AgentID, reg.ChangeID, reg.Status, reg.Selection, store.ToMicro(reg.Estimate), reg.CreatedAt); err != nil {
		return reg, err
	}
	for i, id := range sourceRunIDs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO regression_items (regression_id, position, source_run_id, status)
			VALUES ($1, $2, $3, $4)`, reg.ID, i, id, ItemPending); err != nil {
			return reg, err
		}
	}
	return reg, nil
}

const regressionColumns = `id, account_id, agent_id, change_id, status, selection, estimate, cancel_requested,
	created_at, started_at, ended_at, updated_at`

func scanRegression(row store.Scanner) (Regression, error) {
	var (
		r              Regression
		micro          int64
		started, ended sql.NullTime
	)
	if err := row.Scan(&r.ID, &r.AccountID, &r.AgentID, &r.ChangeID, &r.Status, &r.Selection, &micro, &r.CancelRequested,
		&r.CreatedAt, &started, &ended, &r.UpdatedAt); err != nil {
		return r, err
	}
	r.Estimate = store.FromMicro(micro)
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	r.StartedAt, r.EndedAt = store.TimeOrNil(started), store.TimeOrNil(ended)
	return r, nil
}

// regression reads one of an agent's regressions (store.ErrNotFound for
// another account's or agent's).
func (r repo) regression(ctx context.Context, accountID, agentID, id string) (Regression, error) {
	return store.One(ctx, r.db.R, scanRegression, `SELECT `+regressionColumns+` FROM regressions
		WHERE id = $1 AND account_id = $2 AND agent_id = $3`, id, accountID, agentID)
}

// forWorker reads a regression by id and account (its job's arguments),
// on the writer so the worker sees its own last write.
func (r repo) forWorker(ctx context.Context, accountID, id string) (Regression, error) {
	return store.One(ctx, r.db.W, scanRegression, `SELECT `+regressionColumns+` FROM regressions
		WHERE id = $1 AND account_id = $2`, id, accountID)
}

// list lists an agent's regressions, newest first, with the total.
func (r repo) list(ctx context.Context, accountID, agentID string, limit, offset int) ([]Regression, int, error) {
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM regressions WHERE account_id = $1 AND agent_id = $2`,
		accountID, agentID).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := store.All(ctx, r.db.R, scanRegression, `SELECT `+regressionColumns+` FROM regressions WHERE account_id = $1 AND agent_id = $2
		ORDER BY id DESC LIMIT $3 OFFSET $4`, accountID, agentID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// items lists a regression's items in order, on the writer (the worker
// reads its own writes).
func (r repo) items(ctx context.Context, regressionID string) ([]RegressionItem, error) {
	return store.All(ctx, r.db.W, func(row store.Scanner) (RegressionItem, error) {
		var (
			it             RegressionItem
			sim            sql.NullFloat64
			sp, rp         sql.NullBool
			sChecks, rChks string
			micro          int64
		)
		if err := row.Scan(&it.RegressionID, &it.Position, &it.SourceRunID, &it.ReplayRunID, &it.Status, &it.Outcome, &sim,
			&sp, &rp, &sChecks, &rChks, &micro); err != nil {
			return it, err
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
		it.JudgeCredits = store.FromMicro(micro)
		return it, nil
	}, `SELECT regression_id, position, source_run_id, COALESCE(replay_run_id, ''), status,
		COALESCE(outcome, ''), similarity, source_passed, replay_passed, COALESCE(source_checks, ''), COALESCE(replay_checks, ''),
		judge_credits FROM regression_items WHERE regression_id = $1 ORDER BY position`, regressionID)
}

// markRunning moves a queued regression to running.
func (r repo) markRunning(ctx context.Context, id string) error {
	now := store.Now()
	_, err := r.db.W.ExecContext(ctx, `UPDATE regressions SET status = $2, started_at = $3, updated_at = $3
		WHERE id = $1 AND status = $4`, id, StatusRunning, now, StatusQueued)
	return err
}

// setReplayTx records, within the transaction that creates the replay
// run, that an item has its replay. store.ErrConflict when it already had
// one (the transaction must then roll back: the source run is replayed
// once).
func (r repo) setReplayTx(ctx context.Context, tx *sql.Tx, regressionID, sourceRunID, replayRunID string) error {
	res, err := tx.ExecContext(ctx, `UPDATE regression_items SET replay_run_id = $3, status = $4
		WHERE regression_id = $1 AND source_run_id = $2 AND replay_run_id IS NULL AND status = $5`,
		regressionID, sourceRunID, replayRunID, ItemReplaying, ItemPending)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return store.ErrConflict
	}
	return nil
}

// finishItem records an item's verdicts once its replay ended.
func (r repo) finishItem(ctx context.Context, it RegressionItem) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE regression_items SET status = $3, outcome = $4, similarity = $5, source_passed = $6,
		replay_passed = $7, source_checks = $8, replay_checks = $9, judge_credits = $10
		WHERE regression_id = $1 AND source_run_id = $2 AND status = $11`,
		it.RegressionID, it.SourceRunID, ItemDone, it.Outcome, it.Similarity, it.SourcePassed, it.ReplayPassed,
		store.NullJSON(it.SourceChecks), store.NullJSON(it.ReplayChecks), store.ToMicro(it.JudgeCredits), ItemReplaying)
	return err
}

// requestCancel asks a regression to stop; false when it had already
// ended.
func (r repo) requestCancel(ctx context.Context, accountID, agentID, id string) (bool, error) {
	res, err := r.db.W.ExecContext(ctx, `UPDATE regressions SET cancel_requested = TRUE, updated_at = $4
		WHERE id = $1 AND account_id = $2 AND agent_id = $3 AND status IN ($5, $6)`,
		id, accountID, agentID, store.Now(), StatusQueued, StatusRunning)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// end settles a regression: completed, or cancelled with its items not
// yet replayed (or whose replay was stopped) marked cancelled.
func (r repo) end(ctx context.Context, id, status string) error {
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		now := store.Now()
		if status == StatusCancelled {
			if _, err := tx.ExecContext(ctx, `UPDATE regression_items SET status = $2
				WHERE regression_id = $1 AND status IN ($3, $4)`, id, ItemCancelled, ItemPending, ItemReplaying); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE regressions SET status = $2, ended_at = $3, updated_at = $3,
			started_at = COALESCE(started_at, $3) WHERE id = $1 AND status IN ($4, $5)`,
			id, status, now, StatusQueued, StatusRunning)
		return err
	})
}
