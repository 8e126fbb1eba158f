package runs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/store"
)

// Repo is the SQL of the runs area's own tables: runs, run_attempts,
// run_steps and run_attachments (the account-wide views are in
// repo_account.go, the reviews in repo_reviews.go). The service holds
// one; the server hands the same one to evaluations and governance,
// which read or mark a run through small interfaces of their own, and the
// regressions area reads its recorded runs and replays through one.
type Repo struct {
	db *store.DB
	// pack packs journaled judgments on SQLite (PackJudgments); nil
	// stores them as they come.
	pack func(json.RawMessage) json.RawMessage
}

// NewRepo builds the repository on db. pack is how judgments are packed
// on SQLite: the evals area owns their format (its judgments_pack.go) and
// the server passes its packing here, so the runs area writes judgments
// without knowing what they are; nil stores them unpacked (a reader
// accepts both).
func NewRepo(db *store.DB, pack func(json.RawMessage) json.RawMessage) *Repo {
	return &Repo{db: db, pack: pack}
}

// CreateRun inserts a run in status pending (or queued).
func (q *Repo) CreateRun(ctx context.Context, r Run) (Run, error) {
	return createRun(ctx, q.db.W, r)
}

// CreateRunTx is CreateRun within tx, so that the run's first event and
// its job commit with it.
func (q *Repo) CreateRunTx(ctx context.Context, tx *sql.Tx, r Run) (Run, error) {
	return createRun(ctx, tx, r)
}

func createRun(ctx context.Context, ex store.Querier, r Run) (Run, error) {
	r.ID, r.CreatedAt, r.UpdatedAt = store.NewID(), store.Now(), store.Now()
	if r.Status == "" {
		r.Status = RunPending
	}
	md, _ := json.Marshal(orEmptyMap(r.Metadata))
	ups, _ := json.Marshal(orEmptyList(r.InputUploadIDs))
	chain, _ := json.Marshal(orEmptyList(r.CallChain))
	// A run the caller did not pin to a version runs the agent's current
	// one, read just before (in the caller's transaction when it has one).
	changeID := store.NullIfEmpty(r.ChangeID)
	if r.ChangeID == "" {
		current, err := agentrow.ChangeID(ctx, ex, r.AgentID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return r, err
		}
		changeID = store.NullIfEmpty(current)
	}
	_, err := ex.ExecContext(ctx, `INSERT INTO runs (id, account_id, agent_id, status, priority, trigger_type, input, metadata,
		input_upload_ids, replay_of_run_id, parent_run_id, call_chain, created_at, updated_at, trace_context,
		change_id, rerun_of_run_id, rerun_from_step, rerun_input, regression_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14,
		$15, $16, $17, $18, $19)`,
		r.ID, r.AccountID, r.AgentID, r.Status, r.Priority, r.TriggerType, r.Input, string(md), string(ups),
		store.NullIfEmpty(r.ReplayOfRunID), store.NullIfEmpty(r.ParentRunID), string(chain), r.CreatedAt, store.NullIfEmpty(r.TraceContext),
		changeID, store.NullIfEmpty(r.RerunOfRunID), store.NullIfEmpty(r.RerunFromStep), r.RerunInput, store.NullIfEmpty(r.RegressionID))
	return r, err
}

func orEmptyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func orEmptyList(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

const runColumns = `id, account_id, agent_id, status, priority, trigger_type, input, output, output_content_type, metadata,
	input_upload_ids, COALESCE(replay_of_run_id, ''), COALESCE(parent_run_id, ''), call_chain, credits, error_count,
	COALESCE(error, ''), hitl_wait_ms, wait_ms, cancel_requested, created_at, started_at, ended_at, updated_at,
	COALESCE(trace_context, ''), COALESCE(governance_input_status, ''), COALESCE(change_id, ''), COALESCE(rerun_of_run_id, ''), COALESCE(rerun_from_step, ''),
	rerun_input, COALESCE(regression_id, '')`

func scanRun(row interface{ Scan(...any) error }) (Run, error) {
	var (
		r                Run
		md, ups, chain   string
		micro            int64
		started, ended   sql.NullTime
		input, out, outC sql.NullString
		rerunInput       sql.NullString
	)
	err := row.Scan(&r.ID, &r.AccountID, &r.AgentID, &r.Status, &r.Priority, &r.TriggerType, &input, &out, &outC, &md, &ups,
		&r.ReplayOfRunID, &r.ParentRunID, &chain, &micro, &r.ErrorCount, &r.Error, &r.HITLWaitMS, &r.WaitMS, &r.CancelRequested,
		&r.CreatedAt, &started, &ended, &r.UpdatedAt, &r.TraceContext, &r.GovernanceInputStatus,
		&r.ChangeID, &r.RerunOfRunID, &r.RerunFromStep, &rerunInput, &r.RegressionID)
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, store.ErrNotFound
	}
	if err != nil {
		return Run{}, err
	}
	r.Input, r.Output = store.StringOrNil(input), store.StringOrNil(out)
	r.OutputContentType, r.RerunInput = store.StringOrNil(outC), store.StringOrNil(rerunInput)
	_ = json.Unmarshal([]byte(md), &r.Metadata)
	_ = json.Unmarshal([]byte(ups), &r.InputUploadIDs)
	_ = json.Unmarshal([]byte(chain), &r.CallChain)
	r.Credits = store.FromMicro(micro)
	r.StartedAt, r.EndedAt = store.TimeOrNil(started), store.TimeOrNil(ended)
	return r, nil
}

// Run returns one of an account's runs.
func (q *Repo) Run(ctx context.Context, accountID, runID string) (Run, error) {
	return scanRun(q.db.R.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = $1 AND account_id = $2`, runID, accountID))
}

// RunTx reads a run within tx (the caller's transaction sees its own writes).
func (q *Repo) RunTx(ctx context.Context, tx *sql.Tx, runID string) (Run, error) {
	return scanRun(tx.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = $1`, runID))
}

// RunForWorker reads a run by id alone; only the job worker, which was
// handed the id by the queue, may call it.
func (q *Repo) RunForWorker(ctx context.Context, runID string) (Run, error) {
	return scanRun(q.db.W.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = $1`, runID))
}

// RunsOfAgent lists an agent's runs, newest first, optionally by status.
func (q *Repo) RunsOfAgent(ctx context.Context, accountID, agentID, status string, limit, offset int) ([]Run, int, error) {
	where := `account_id = $1 AND agent_id = $2 AND ($3 = '' OR status = $3) AND regression_id IS NULL`
	var total int
	if err := q.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs WHERE `+where, accountID, agentID, status).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.db.R.QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE `+where+` ORDER BY id DESC LIMIT $4 OFFSET $5`,
		accountID, agentID, status, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// StartRunAttempt takes a run nobody holds (pending, queued, or parked in
// waiting_human) for execution: it moves it to processing and opens an
// attempt row, and returns the attempt number. store.ErrConflict means the run
// was in none of those statuses: finished (a cancel won), or already held
// by another worker.
func (q *Repo) StartRunAttempt(ctx context.Context, runID string) (int, error) {
	return q.startRunAttempt(ctx, runID, unheldStatuses, nil)
}

// StartRunAttemptThen is StartRunAttempt that also calls then within the
// same transaction once the run is taken (to announce it: one commit).
func (q *Repo) StartRunAttemptThen(ctx context.Context, runID string, then func(tx *sql.Tx) error) (int, error) {
	return q.startRunAttempt(ctx, runID, unheldStatuses, then)
}

// RecoverRunAttempt is StartRunAttempt for a retried job, whose earlier
// attempt may have died while holding the run: processing is accepted too,
// and the dead attempt is closed.
func (q *Repo) RecoverRunAttempt(ctx context.Context, runID string) (int, error) {
	return q.RecoverRunAttemptThen(ctx, runID, nil)
}

// RecoverRunAttemptThen is RecoverRunAttempt that also calls then within
// the same transaction once the run is taken.
func (q *Repo) RecoverRunAttemptThen(ctx context.Context, runID string, then func(tx *sql.Tx) error) (int, error) {
	return q.startRunAttempt(ctx, runID, append([]string{RunProcessing}, unheldStatuses...), then)
}

func (q *Repo) startRunAttempt(ctx context.Context, runID string, from []string, then func(tx *sql.Tx) error) (int, error) {
	var n int
	err := q.db.Tx(ctx, func(tx *sql.Tx) error {
		now := store.Now()
		// The guarded move comes first: it locks the row, so a concurrent
		// cancel either settled the run before (and this fails) or waits
		// and finds it processing.
		if err := moveRun(ctx, tx, runID, from, RunProcessing, `started_at = COALESCE(started_at, $1), updated_at = $1`, now); err != nil {
			return err
		}
		// The new attempt is numbered after the run's others in the same
		// statement (the guarded move above holds the run's row).
		if err := tx.QueryRowContext(ctx, `INSERT INTO run_attempts (run_id, attempt, status, started_at)
			SELECT $1, COALESCE(MAX(attempt), 0) + 1, $2, $3 FROM run_attempts WHERE run_id = $1 RETURNING attempt`,
			runID, RunProcessing, now).Scan(&n); err != nil {
			return err
		}
		// An earlier attempt still open belongs to a process that died:
		// close it, and so its step attempts that never finished. (A first
		// attempt has nothing to close: steps are only written under an
		// attempt.)
		if n > 1 {
			if _, err := tx.ExecContext(ctx, `UPDATE run_attempts SET status = $1, ended_at = $2, error = 'interrupted: the process running it stopped'
				WHERE run_id = $3 AND ended_at IS NULL AND attempt < $4`, RunFailed, now, runID, n); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE run_steps SET status = $1, ended_at = $2, error = 'interrupted: the process running it stopped'
				WHERE run_id = $3 AND status = $4`, RunFailed, now, runID, RunProcessing); err != nil {
				return err
			}
		}
		if then != nil {
			return then(tx)
		}
		return nil
	})
	return n, err
}

// RunAttempts lists a run's attempts in order.
func (q *Repo) RunAttempts(ctx context.Context, runID string) ([]RunAttempt, error) {
	return runAttempts(ctx, q.db.R, runID)
}

// RunAttemptsTx is RunAttempts within tx.
func (q *Repo) RunAttemptsTx(ctx context.Context, tx *sql.Tx, runID string) ([]RunAttempt, error) {
	return runAttempts(ctx, tx, runID)
}

func runAttempts(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, runID string) ([]RunAttempt, error) {
	rows, err := q.QueryContext(ctx, `SELECT attempt, status, started_at, ended_at, COALESCE(error, '') FROM run_attempts WHERE run_id = $1 ORDER BY attempt`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RunAttempt
	for rows.Next() {
		var (
			a     RunAttempt
			ended sql.NullTime
		)
		if err := rows.Scan(&a.Attempt, &a.Status, &a.StartedAt, &ended, &a.Error); err != nil {
			return nil, err
		}
		a.EndedAt = store.TimeOrNil(ended)
		out = append(out, a)
	}
	return out, rows.Err()
}

// FinishRunAttempt records an attempt's end and the run's state after it.
// A terminal status ends the run; waiting_human parks it. The change is
// guarded: with attempt > 0 the run must be processing under that attempt,
// still open (the worker holding it); with attempt 0 the run must be one
// nobody holds (pending, queued, waiting_human), which a cancel, a failed
// enqueue or a review deadline settles. store.ErrConflict means the guard failed
// and nothing was written: someone else moved the run first.
func (q *Repo) FinishRunAttempt(ctx context.Context, runID string, attempt int, res RunResult) error {
	return q.FinishRunAttemptThen(ctx, runID, attempt, res, nil)
}

// FinishRunAttemptThen is FinishRunAttempt that also calls then within the
// same transaction once the change is written and its guard held, so the
// events announcing the outcome commit with it (then is not called when
// the guard fails).
func (q *Repo) FinishRunAttemptThen(ctx context.Context, runID string, attempt int, res RunResult, then func(tx *sql.Tx) error) error {
	if res.Status == RunProcessing || (attempt == 0 && !RunTerminal(res.Status)) {
		return fmt.Errorf("finish run %s: %q is not an outcome", runID, res.Status)
	}
	return q.db.Tx(ctx, func(tx *sql.Tx) error {
		now := store.Now()
		var ended any
		if RunTerminal(res.Status) {
			ended = now
		}
		from := []string{RunProcessing}
		if attempt == 0 {
			from = unheldStatuses
		}
		if err := moveRun(ctx, tx, runID, from, res.Status, `output = COALESCE($1, output), output_content_type = COALESCE($2, output_content_type),
			credits = credits + $3, error_count = error_count + $4, error = $5, hitl_wait_ms = hitl_wait_ms + $6,
			ended_at = COALESCE($7, ended_at), updated_at = $8, judgments_pending = (judgments_pending OR $9)`,
			res.Output, res.OutputContentType, store.ToMicro(res.Credits), res.ErrorCount, store.NullIfEmpty(res.Error), res.HITLWaitMS, ended, now,
			res.Judged); err != nil {
			return err
		}
		attemptStatus := res.Status
		if !RunTerminal(attemptStatus) {
			attemptStatus = RunCompleted // the attempt ended by parking, without failing
		}
		if attempt == 0 {
			// Settled without being executed (cancelled before a worker
			// took it): record the outcome as an attempt, so its error shows.
			if _, err := tx.ExecContext(ctx, `INSERT INTO run_attempts (run_id, attempt, status, started_at, ended_at, error)
				SELECT $1, COALESCE(MAX(attempt), 0) + 1, $2, $3, $3, $4 FROM run_attempts WHERE run_id = $1`,
				runID, attemptStatus, now, store.NullIfEmpty(res.Error)); err != nil {
				return err
			}
		} else {
			up, err := tx.ExecContext(ctx, `UPDATE run_attempts SET status = $1, ended_at = $2, error = $3 WHERE run_id = $4 AND attempt = $5 AND ended_at IS NULL`,
				attemptStatus, now, store.NullIfEmpty(res.Error), runID, attempt)
			if err != nil {
				return err
			}
			if n, err := up.RowsAffected(); err != nil {
				return err
			} else if n != 1 {
				// A newer attempt took the run over from this one (its job was
				// rescued as stuck): this worker no longer holds it.
				return store.ErrConflict
			}
		}
		if then != nil {
			return then(tx)
		}
		return nil
	})
}

// RequestCancel asks for a run to stop. It answers the run as it was when
// the flag was set; a terminal run is left alone (store.ErrConflict). The flag
// alone settles nothing: the caller settles a run nobody holds with
// FinishRunAttempt (attempt 0), and a worker holding it notices the flag.
func (q *Repo) RequestCancel(ctx context.Context, accountID, runID string) (Run, error) {
	var r Run
	err := q.db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE runs SET cancel_requested = TRUE, updated_at = $1 WHERE id = $2 AND account_id = $3
			AND status NOT IN ('completed', 'failed')`, store.Now(), runID, accountID)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		// Read in the same transaction: the status as the flag found it.
		if r, err = scanRun(tx.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = $1 AND account_id = $2`, runID, accountID)); err != nil {
			return err
		}
		if n == 0 {
			return store.ErrConflict
		}
		return nil
	})
	return r, err
}

// CancelRequested reports whether someone asked the run to stop.
func (q *Repo) CancelRequested(ctx context.Context, runID string) (bool, error) {
	var c bool
	err := q.db.W.QueryRowContext(ctx, `SELECT cancel_requested FROM runs WHERE id = $1`, runID).Scan(&c)
	return c, err
}

// CancelRequestedTx is CancelRequested within tx.
func (q *Repo) CancelRequestedTx(ctx context.Context, tx *sql.Tx, runID string) (bool, error) {
	var c bool
	err := tx.QueryRowContext(ctx, `SELECT cancel_requested FROM runs WHERE id = $1`, runID).Scan(&c)
	return c, err
}

// PendingRunsBefore lists runs still pending that were created before t,
// oldest first, across accounts: only the stranded-run sweeper calls it.
func (q *Repo) PendingRunsBefore(ctx context.Context, t time.Time, limit int) ([]Run, error) {
	rows, err := q.db.R.QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE status = 'pending' AND created_at < $1 ORDER BY id LIMIT $2`, t.UTC(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Reruns lists the runs rerun from runID (oldest first, at most limit).
func (q *Repo) Reruns(ctx context.Context, accountID, runID string, limit int) ([]string, error) {
	return store.All(ctx, q.db.R, store.ScanString, `SELECT id FROM runs WHERE rerun_of_run_id = $1 AND account_id = $2 ORDER BY id LIMIT $3`,
		runID, accountID, limit)
}
