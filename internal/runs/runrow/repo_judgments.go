package runrow

import (
	"context"
	"database/sql"
	"errors"

	"github.com/agentry/agentry/internal/store"
)

// The judgments the engine journals on a run's step attempts (run_steps.
// judgments) and the mark on the run (runs.judgments_pending) that says
// some are not yet copied into evaluation results: the evaluations area
// materializes them through these, in its own transactions.

// JudgmentsPending reports whether some run is marked as holding
// judgments not yet materialized: one read of a partial index that is
// empty when there are none.
func JudgmentsPending(ctx context.Context, q store.Querier) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE judgments_pending LIMIT 1`).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// Status returns the status of a run of the account; store.ErrNotFound
// when there is none.
func Status(ctx context.Context, q store.Querier, accountID, runID string) (string, error) {
	return store.One(ctx, q, store.ScanString, `SELECT status FROM runs WHERE id = $1 AND account_id = $2`, runID, accountID)
}

// Marked is a run whose judgments are copied; UpdatedAt is its updated_at
// as text, to tell whether it changed since (UnmarkIfUnchanged).
type Marked struct{ ID, AccountID, AgentID, UpdatedAt string }

// MarkedRuns reads up to limit marked runs by id, or the account's one run
// runID (marked or not) when runID is set; lock is a row-locking clause
// to append (store.DB.LockFor), or "".
func MarkedRuns(ctx context.Context, q store.Querier, accountID, runID string, limit int, lock string) ([]Marked, error) {
	const cols = `SELECT id, account_id, agent_id, CAST(updated_at AS TEXT) FROM runs`
	query, args := cols+` WHERE judgments_pending ORDER BY id LIMIT $1`, []any{limit}
	if runID != "" {
		query, args = cols+` WHERE id = $1 AND account_id = $2`, []any{runID, accountID}
	}
	return store.All(ctx, q, func(row store.Scanner) (Marked, error) {
		var r Marked
		return r, row.Scan(&r.ID, &r.AccountID, &r.AgentID, &r.UpdatedAt)
	}, query+lock, args...)
}

// Unmark clears the mark of the runs ids (as parameters).
func Unmark(ctx context.Context, q store.Querier, ids []any) error {
	_, err := q.ExecContext(ctx, `UPDATE runs SET judgments_pending = FALSE WHERE judgments_pending AND id IN (`+store.Placeholders(1, len(ids))+`)`, ids...)
	return err
}

// UnmarkIfUnchanged clears a run's mark if its updated_at is still
// updatedAt (as text), and answers how many it cleared (0 or 1).
func UnmarkIfUnchanged(ctx context.Context, q store.Querier, id, updatedAt string) (int, error) {
	return store.RowsAffected(q.ExecContext(ctx, `UPDATE runs SET judgments_pending = FALSE
		WHERE id = $1 AND judgments_pending AND CAST(updated_at AS TEXT) = $2`, id, updatedAt))
}

// StepJudgments are the judgments journaled on one step attempt, as
// stored (the engine's packing: the evaluations area unpacks them).
type StepJudgments struct {
	ID, RunID, StepID string
	Stored            []byte
}

// JournaledJudgments reads the judgments the step attempts of the runs
// runIDs (as parameters) hold.
func JournaledJudgments(ctx context.Context, q store.Querier, runIDs []any) ([]StepJudgments, error) {
	return store.All(ctx, q, func(row store.Scanner) (StepJudgments, error) {
		var j StepJudgments
		return j, row.Scan(&j.ID, &j.RunID, &j.StepID, &j.Stored)
	}, `SELECT id, run_id, step_id, judgments FROM run_steps
		WHERE run_id IN (`+store.Placeholders(1, len(runIDs))+`) AND judgments IS NOT NULL`, runIDs...)
}
