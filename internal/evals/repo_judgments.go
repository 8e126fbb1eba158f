package evals

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/agentry/agentry/internal/runs/runrow"
	"github.com/agentry/agentry/internal/store"
)

// Judgments the engine makes of a run's steps (evaluation criteria judged
// in eval_and_retry and sample_and_flag mode) are journaled with the step
// attempt they judge, in run_steps.judgments, by the write that records
// the attempt anyway: a judgment costs its run no write of its own, and is
// exactly as durable as the attempt it judged (a resumed run that redoes
// the attempt judges it again). The run's end or park marks the run
// (runs.judgments_pending) in the write it makes anyway.
//
// materializeJudgments later copies the marked runs' judgments into
// evaluation_results, many runs at a time. Writing results row by row as
// steps were judged cost a SQLite server 15–22% of its runs per second;
// batches cost a fraction of that (docs/governance.md, Speed). Readers of
// results materialize first (the service does, materialize.go), so a result is listed
// as soon as its run has ended or parked; materializeRunJudgments serves
// a read of one run still going.
//
// The runs and their step attempts are the runs area's tables: the marks
// and the journaled judgments are read and cleared through its leaf
// package, runrow, in this area's transactions.

// StepJudgment is one evaluation result as journaled with its step
// attempt. The account, agent, run, attempt and step come from the rows
// that hold it.
//
// EvaluatedAt is in UTC (what store.Now returns).
type StepJudgment struct {
	ID             string          `json:"id"`
	CriteriaID     string          `json:"criteria_id"`
	EvaluationMode string          `json:"evaluation_mode"`
	Status         string          `json:"status"`
	Score          *float64        `json:"score,omitempty"`
	Flagged        bool            `json:"flagged,omitempty"`
	RetryTriggered bool            `json:"retry_triggered,omitempty"`
	RetryCount     int             `json:"retry_count,omitempty"`
	Details        json.RawMessage `json:"details,omitempty"`
	EvaluatedAt    time.Time       `json:"evaluated_at"`
}

// judgedRunsPerMaterialize bounds the runs one materializing transaction
// copies.
const judgedRunsPerMaterialize = 256

// judgmentsPending reports whether some run is marked as holding
// judgments not yet materialized: one read of a partial index that is
// empty when there are none, so readers can ask before every read.
func (rp repo) judgmentsPending(ctx context.Context) (bool, error) {
	return runrow.JudgmentsPending(ctx, rp.db.R)
}

// materializeJudgments copies the judgments of every marked run into
// evaluation_results, in transactions of up to judgedRunsPerMaterialize
// runs each, clears the marks, and returns how many results it wrote. A
// judgment already copied is skipped (a run parked and resumed is marked
// again); one whose criterion has been deleted meanwhile is dropped, as
// the delete dropped the criterion's other results. On PostgreSQL,
// replicas materialize side by side: each takes the runs the others have
// not locked.
func (rp repo) materializeJudgments(ctx context.Context) (int, error) {
	total := 0
	for {
		pending, err := rp.judgmentsPending(ctx)
		if err != nil || !pending {
			return total, err
		}
		n, runs, err := rp.materializeJudgmentsOnce(ctx, "", "")
		total += n
		if err != nil || runs < judgedRunsPerMaterialize {
			return total, err
		}
	}
}

// materializeRunJudgments copies what one run of the account has
// journaled so far while it is still going (it marks itself only as it
// ends or parks). An ended run is left to materializeJudgments, without
// taking SQLite's writer for a read.
func (rp repo) materializeRunJudgments(ctx context.Context, accountID, runID string) (int, error) {
	status, err := runrow.Status(ctx, rp.db.R, accountID, runID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && runrow.Ended(status)) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, _, err := rp.materializeJudgmentsOnce(ctx, accountID, runID)
	return n, err
}

// judgedRun is a run whose judgments are copied; UpdatedAt is its
// updated_at as text (SQLite uses it, see materializeJudgmentsSQLite).
type judgedRun = runrow.Marked

// materializeJudgmentsOnce copies the judgments of up to
// judgedRunsPerMaterialize marked runs, or of the account's one run
// runID, and clears their marks.
func (rp repo) materializeJudgmentsOnce(ctx context.Context, accountID, runID string) (written, runs int, err error) {
	if rp.db.Dialect == store.SQLite {
		return rp.materializeJudgmentsSQLite(ctx, accountID, runID)
	}
	err = rp.db.Tx(ctx, func(tx *sql.Tx) error {
		marked, err := runrow.MarkedRuns(ctx, tx, accountID, runID, judgedRunsPerMaterialize, rp.db.LockFor("UPDATE SKIP LOCKED"))
		if err != nil || len(marked) == 0 {
			return err
		}
		runs = len(marked)
		byID, ids := indexJudgedRuns(marked)
		written, err = rp.copyJudgments(ctx, tx, ids, byID)
		if err != nil {
			return err
		}
		return runrow.Unmark(ctx, tx, ids)
	})
	if err != nil {
		return 0, 0, err
	}
	return written, runs, nil
}

// indexJudgedRuns returns the runs by id, and their ids as parameters.
func indexJudgedRuns(marked []judgedRun) (map[string]judgedRun, []any) {
	byID := make(map[string]judgedRun, len(marked))
	ids := make([]any, len(marked))
	for i, r := range marked {
		byID[r.ID], ids[i] = r, r.ID
	}
	return byID, ids
}

// liveResults keeps the results whose criterion still exists in their
// account (live, from liveCriteria).
func liveResults(rs []EvaluationResult, live map[string]string) []EvaluationResult {
	kept := rs[:0]
	for _, r := range rs {
		if live[r.CriteriaID] == r.AccountID {
			kept = append(kept, r)
		}
	}
	return kept
}

// copyJudgments copies the judgments of the runs ids into results within
// tx, which holds the runs' rows (PostgreSQL). Decoding them here, not in
// SQL, lets a malformed value be skipped and the rest copied: PostgreSQL
// 15 has no way to test a value before a ::json cast fails the statement.
func (rp repo) copyJudgments(ctx context.Context, tx *sql.Tx, ids []any, runs map[string]judgedRun) (int, error) {
	rs, err := journaledResults(ctx, tx, ids, runs)
	if err != nil {
		return 0, err
	}
	live, err := rp.liveCriteria(ctx, tx, rs)
	if err != nil {
		return 0, err
	}
	n, err := insertEvaluationResults(ctx, tx, liveResults(rs, live))
	return int(n), err
}

// materializeJudgmentsSQLite is materializeJudgmentsOnce on SQLite, where
// results are written to their own file (DB.Results) by its own writer,
// and only the marks by the database's writer, which every run of the
// server waits for. The judgments are read and decoded through the read
// pool first; copying in one INSERT … SELECT over SQLite's JSON
// functions kept a writer twice as long (BenchmarkMaterializeJudgments).
//
// The results are committed before the marks are cleared: a crash
// between the two leaves runs marked, and the next pass skips what is
// already copied. A run is unmarked only if it has not changed since its
// judgments were read (updated_at, which every start and settle of the
// run sets): one that journaled more meanwhile keeps its mark, and the
// next pass copies the rest.
func (rp repo) materializeJudgmentsSQLite(ctx context.Context, accountID, runID string) (written, runs int, err error) {
	marked, err := runrow.MarkedRuns(ctx, rp.db.R, accountID, runID, judgedRunsPerMaterialize, "")
	if err != nil || len(marked) == 0 {
		return 0, 0, err
	}
	byID, ids := indexJudgedRuns(marked)
	rs, err := journaledResults(ctx, rp.db.R, ids, byID)
	if err != nil {
		return 0, 0, err
	}
	if rp.afterJudgmentsRead != nil {
		rp.afterJudgmentsRead()
	}
	err = rp.db.ResultsTx(ctx, func(tx *sql.Tx) error {
		// Which criteria still exist is read holding the results file's
		// writer, which a criterion's deletion takes to delete its results
		// once the criterion is gone (deleteCriterion): a
		// criterion found here is deleted, with what this writes, after.
		live, err := rp.liveCriteria(ctx, rp.db.R, rs)
		if err != nil {
			return err
		}
		for _, r := range liveResults(rs, live) {
			// One row a statement: many-row inserts measured no faster
			// (BenchmarkMaterializeJudgments: 15 µs of writing a result
			// with 32 rows and positional parameters, as with one row;
			// 35 µs with the numbered parameters the store writes). The
			// rows and their B-trees are the cost, not the statements.
			n, err := store.RowsAffected(tx.ExecContext(ctx, `INSERT INTO evaluation_results (id, account_id, agent_id, criteria_id, agent_run_id,
				agent_step_run_id, step_id, evaluation_mode, status, score, flagged, retry_triggered, retry_count, details, evaluated_at, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT (id) DO NOTHING`,
				r.ID, r.AccountID, r.AgentID, r.CriteriaID, r.AgentRunID, r.AgentStepRunID, r.StepID, r.EvaluationMode, r.Status,
				r.Score, r.Flagged, r.RetryTriggered, r.RetryCount, store.NullJSON(r.Details), r.EvaluatedAt, r.CreatedAt))
			if err != nil {
				return err
			}
			written += n
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	if rp.afterResultsWritten != nil {
		rp.afterResultsWritten()
	}
	err = rp.db.Tx(ctx, func(tx *sql.Tx) error {
		for _, r := range marked {
			n, err := runrow.UnmarkIfUnchanged(ctx, tx, r.ID, r.UpdatedAt)
			if err != nil {
				return err
			}
			runs += n
		}
		return nil
	})
	if err != nil {
		return written, 0, err
	}
	// runs counts the marks cleared, so materializeJudgments goes on only
	// while a full batch made way.
	return written, runs, nil
}

// journaledResults reads the judgments the runs' step attempts hold, as
// results of those runs.
func journaledResults(ctx context.Context, q store.Querier, runIDs []any, runs map[string]judgedRun) ([]EvaluationResult, error) {
	journaled, err := runrow.JournaledJudgments(ctx, q, runIDs)
	if err != nil {
		return nil, err
	}
	var out []EvaluationResult
	for _, sj := range journaled {
		id, runID, stepID, stored := sj.ID, sj.RunID, sj.StepID, sj.Stored
		var js []StepJudgment
		raw, err := unpackJudgments(stored)
		if err == nil {
			err = json.Unmarshal(raw, &js)
		}
		if err != nil {
			// Nothing but the engine writes the column; a value that does
			// not read is skipped, never left to block the rest.
			slog.Error("skipping unreadable step judgments", "step_run", id, "err", err)
			continue
		}
		r := runs[runID]
		for _, j := range js {
			out = append(out, EvaluationResult{ID: j.ID, AccountID: r.AccountID, AgentID: r.AgentID, CriteriaID: j.CriteriaID,
				AgentRunID: runID, AgentStepRunID: id, StepID: stepID, EvaluationMode: j.EvaluationMode, Status: j.Status,
				Score: j.Score, Flagged: j.Flagged, RetryTriggered: j.RetryTriggered, RetryCount: j.RetryCount,
				Details: j.Details, EvaluatedAt: j.EvaluatedAt, CreatedAt: j.EvaluatedAt})
		}
	}
	return out, nil
}

// liveCriteria returns the account of each criterion rs name that still
// exists: on PostgreSQL read through tx, the transaction that writes rs,
// and kept from being deleted until it ends; on SQLite read through the
// read pool while the caller holds the results file's writer (see
// materializeJudgmentsSQLite).
func (rp repo) liveCriteria(ctx context.Context, tx store.Querier, rs []EvaluationResult) (map[string]string, error) {
	seen := map[string]bool{}
	var ids []any
	for _, r := range rs {
		if !seen[r.CriteriaID] {
			seen[r.CriteriaID] = true
			ids = append(ids, r.CriteriaID)
		}
	}
	live := map[string]string{}
	if len(ids) == 0 {
		return live, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, account_id FROM evaluation_criteria WHERE id IN (`+store.Placeholders(1, len(ids))+`)`+rp.db.LockFor("SHARE"), ids...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, account string
		if err := rows.Scan(&id, &account); err != nil {
			return nil, err
		}
		live[id] = account
	}
	return live, rows.Err()
}
