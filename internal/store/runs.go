package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Run statuses.
const (
	RunPending      = "pending"
	RunQueued       = "queued"
	RunProcessing   = "processing"
	RunCompleted    = "completed"
	RunFailed       = "failed"
	RunWaitingHuman = "waiting_human"
)

// unheldStatuses are those of a run no worker executes: a worker may take
// it (StartRunAttempt) or anyone may settle it (FinishRunAttempt, attempt 0).
var unheldStatuses = []string{RunPending, RunQueued, RunWaitingHuman}

// RunTerminal reports whether a run status is final.
func RunTerminal(status string) bool { return status == RunCompleted || status == RunFailed }

// Run is an agent run.
type Run struct {
	ID, AccountID, AgentID string
	Status                 string
	Priority               bool
	TriggerType            string
	Input                  *string
	Output                 *string
	OutputContentType      *string
	Metadata               map[string]any
	InputUploadIDs         []string
	ReplayOfRunID          string
	ParentRunID            string
	CallChain              []string
	Credits                float64
	ErrorCount             int
	Error                  string
	HITLWaitMS, WaitMS     int64
	CancelRequested        bool
	// TraceContext is the run's trace context (telemetry.RunTrace), set
	// when it is created; "" for runs older than it.
	TraceContext string
	// GovernanceInputStatus is what the governance input check decided:
	// safe, blocked or skipped; "" when no policy checked the input.
	GovernanceInputStatus string
	// ChangeID is the workflow version the run executes: set as it is
	// created (the agent's current one unless the caller chose one); ""
	// for runs older than it, which run the current version.
	ChangeID string
	// A rerun names the run it came from, the step it runs again from,
	// and the input it gives that step instead of the recorded one.
	RerunOfRunID  string
	RerunFromStep string
	RerunInput    *string
	// RegressionID marks a replay of a regression run (regressions.go):
	// left out of alerts, production metrics and run lists.
	RegressionID       string
	CreatedAt          time.Time
	StartedAt, EndedAt *time.Time
	UpdatedAt          time.Time
}

// CreateRun inserts a run in status pending (or queued).
func (db *DB) CreateRun(ctx context.Context, r Run) (Run, error) {
	return createRun(ctx, db.W, r)
}

// CreateRunTx is CreateRun within tx, so that the run's first event and
// its job commit with it.
func (db *DB) CreateRunTx(ctx context.Context, tx *sql.Tx, r Run) (Run, error) {
	return createRun(ctx, tx, r)
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func createRun(ctx context.Context, ex execer, r Run) (Run, error) {
	r.ID, r.CreatedAt, r.UpdatedAt = NewID(), Now(), Now()
	if r.Status == "" {
		r.Status = RunPending
	}
	md, _ := json.Marshal(orEmptyMap(r.Metadata))
	ups, _ := json.Marshal(orEmptyList(r.InputUploadIDs))
	chain, _ := json.Marshal(orEmptyList(r.CallChain))
	// A run the caller did not pin to a version runs the agent's current
	// one, read in the same statement.
	_, err := ex.ExecContext(ctx, `INSERT INTO runs (id, account_id, agent_id, status, priority, trigger_type, input, metadata,
		input_upload_ids, replay_of_run_id, parent_run_id, call_chain, created_at, updated_at, trace_context,
		change_id, rerun_of_run_id, rerun_from_step, rerun_input, regression_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14,
		COALESCE($15, (SELECT change_id FROM agents WHERE id = $3)), $16, $17, $18, $19)`,
		r.ID, r.AccountID, r.AgentID, r.Status, r.Priority, r.TriggerType, r.Input, string(md), string(ups),
		nullable(r.ReplayOfRunID), nullable(r.ParentRunID), string(chain), r.CreatedAt, nullable(r.TraceContext),
		nullable(r.ChangeID), nullable(r.RerunOfRunID), nullable(r.RerunFromStep), r.RerunInput, nullable(r.RegressionID))
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
		return Run{}, ErrNotFound
	}
	if err != nil {
		return Run{}, err
	}
	if input.Valid {
		r.Input = &input.String
	}
	if out.Valid {
		r.Output = &out.String
	}
	if outC.Valid {
		r.OutputContentType = &outC.String
	}
	if rerunInput.Valid {
		r.RerunInput = &rerunInput.String
	}
	_ = json.Unmarshal([]byte(md), &r.Metadata)
	_ = json.Unmarshal([]byte(ups), &r.InputUploadIDs)
	_ = json.Unmarshal([]byte(chain), &r.CallChain)
	r.Credits = FromMicro(micro)
	if started.Valid {
		t := started.Time.UTC()
		r.StartedAt = &t
	}
	if ended.Valid {
		t := ended.Time.UTC()
		r.EndedAt = &t
	}
	return r, nil
}

// Run returns one of an account's runs.
func (db *DB) Run(ctx context.Context, accountID, runID string) (Run, error) {
	return scanRun(db.R.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = $1 AND account_id = $2`, runID, accountID))
}

// RunTx reads a run within tx (the caller's transaction sees its own writes).
func (db *DB) RunTx(ctx context.Context, tx *sql.Tx, runID string) (Run, error) {
	return scanRun(tx.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = $1`, runID))
}

// RunForWorker reads a run by id alone; only the job worker, which was
// handed the id by the queue, may call it.
func (db *DB) RunForWorker(ctx context.Context, runID string) (Run, error) {
	return scanRun(db.W.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = $1`, runID))
}

// RunsOfAgent lists an agent's runs, newest first, optionally by status.
func (db *DB) RunsOfAgent(ctx context.Context, accountID, agentID, status string, limit, offset int) ([]Run, int, error) {
	where := `account_id = $1 AND agent_id = $2 AND ($3 = '' OR status = $3) AND regression_id IS NULL`
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs WHERE `+where, accountID, agentID, status).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := db.R.QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE `+where+` ORDER BY id DESC LIMIT $4 OFFSET $5`,
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
// attempt row, and returns the attempt number. ErrConflict means the run
// was in none of those statuses: finished (a cancel won), or already held
// by another worker.
func (db *DB) StartRunAttempt(ctx context.Context, runID string) (int, error) {
	return db.startRunAttempt(ctx, runID, unheldStatuses, nil)
}

// StartRunAttemptThen is StartRunAttempt that also calls then within the
// same transaction once the run is taken (to announce it: one commit).
func (db *DB) StartRunAttemptThen(ctx context.Context, runID string, then func(tx *sql.Tx) error) (int, error) {
	return db.startRunAttempt(ctx, runID, unheldStatuses, then)
}

// RecoverRunAttempt is StartRunAttempt for a retried job, whose earlier
// attempt may have died while holding the run: processing is accepted too,
// and the dead attempt is closed.
func (db *DB) RecoverRunAttempt(ctx context.Context, runID string) (int, error) {
	return db.RecoverRunAttemptThen(ctx, runID, nil)
}

// RecoverRunAttemptThen is RecoverRunAttempt that also calls then within
// the same transaction once the run is taken.
func (db *DB) RecoverRunAttemptThen(ctx context.Context, runID string, then func(tx *sql.Tx) error) (int, error) {
	return db.startRunAttempt(ctx, runID, append([]string{RunProcessing}, unheldStatuses...), then)
}

func (db *DB) startRunAttempt(ctx context.Context, runID string, from []string, then func(tx *sql.Tx) error) (int, error) {
	var n int
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		now := Now()
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

// RunAttempt is one execution attempt of a run.
type RunAttempt struct {
	Attempt   int
	Status    string
	StartedAt time.Time
	EndedAt   *time.Time
	Error     string
}

// RunAttempts lists a run's attempts in order.
func (db *DB) RunAttempts(ctx context.Context, runID string) ([]RunAttempt, error) {
	return runAttempts(ctx, db.R, runID)
}

// RunAttemptsTx is RunAttempts within tx.
func (db *DB) RunAttemptsTx(ctx context.Context, tx *sql.Tx, runID string) ([]RunAttempt, error) {
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
		if ended.Valid {
			t := ended.Time.UTC()
			a.EndedAt = &t
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// RunResult is how an execution ended.
type RunResult struct {
	Status            string
	Output            *string
	OutputContentType *string
	Credits           float64 // added to the run's total
	ErrorCount        int     // added to the run's count
	Error             string
	HITLWaitMS        int64
	// Judged marks the run as holding journaled judgments to materialize
	// (the evals area materializes them); false leaves the mark as it is.
	Judged bool
}

// FinishRunAttempt records an attempt's end and the run's state after it.
// A terminal status ends the run; waiting_human parks it. The change is
// guarded: with attempt > 0 the run must be processing under that attempt,
// still open (the worker holding it); with attempt 0 the run must be one
// nobody holds (pending, queued, waiting_human), which a cancel, a failed
// enqueue or a review deadline settles. ErrConflict means the guard failed
// and nothing was written: someone else moved the run first.
func (db *DB) FinishRunAttempt(ctx context.Context, runID string, attempt int, res RunResult) error {
	return db.FinishRunAttemptThen(ctx, runID, attempt, res, nil)
}

// FinishRunAttemptThen is FinishRunAttempt that also calls then within the
// same transaction once the change is written and its guard held, so the
// events announcing the outcome commit with it (then is not called when
// the guard fails).
func (db *DB) FinishRunAttemptThen(ctx context.Context, runID string, attempt int, res RunResult, then func(tx *sql.Tx) error) error {
	if res.Status == RunProcessing || (attempt == 0 && !RunTerminal(res.Status)) {
		return fmt.Errorf("finish run %s: %q is not an outcome", runID, res.Status)
	}
	return db.Tx(ctx, func(tx *sql.Tx) error {
		now := Now()
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
			res.Output, res.OutputContentType, ToMicro(res.Credits), res.ErrorCount, nullable(res.Error), res.HITLWaitMS, ended, now,
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
				runID, attemptStatus, now, nullable(res.Error)); err != nil {
				return err
			}
		} else {
			up, err := tx.ExecContext(ctx, `UPDATE run_attempts SET status = $1, ended_at = $2, error = $3 WHERE run_id = $4 AND attempt = $5 AND ended_at IS NULL`,
				attemptStatus, now, nullable(res.Error), runID, attempt)
			if err != nil {
				return err
			}
			if n, err := up.RowsAffected(); err != nil {
				return err
			} else if n != 1 {
				// A newer attempt took the run over from this one (its job was
				// rescued as stuck): this worker no longer holds it.
				return ErrConflict
			}
		}
		if then != nil {
			return then(tx)
		}
		return nil
	})
}

// RequestCancel asks for a run to stop. It answers the run as it was when
// the flag was set; a terminal run is left alone (ErrConflict). The flag
// alone settles nothing: the caller settles a run nobody holds with
// FinishRunAttempt (attempt 0), and a worker holding it notices the flag.
func (db *DB) RequestCancel(ctx context.Context, accountID, runID string) (Run, error) {
	var r Run
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE runs SET cancel_requested = TRUE, updated_at = $1 WHERE id = $2 AND account_id = $3
			AND status NOT IN ('completed', 'failed')`, Now(), runID, accountID)
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
			return ErrConflict
		}
		return nil
	})
	return r, err
}

// CancelRequested reports whether someone asked the run to stop.
func (db *DB) CancelRequested(ctx context.Context, runID string) (bool, error) {
	var c bool
	err := db.W.QueryRowContext(ctx, `SELECT cancel_requested FROM runs WHERE id = $1`, runID).Scan(&c)
	return c, err
}

// CancelRequestedTx is CancelRequested within tx.
func (db *DB) CancelRequestedTx(ctx context.Context, tx *sql.Tx, runID string) (bool, error) {
	var c bool
	err := tx.QueryRowContext(ctx, `SELECT cancel_requested FROM runs WHERE id = $1`, runID).Scan(&c)
	return c, err
}

// StepRow is one attempt of one step.
type StepRow struct {
	ID, RunID, AccountID       string
	Key, StepID, StepType      string
	Attempt                    int
	Status                     string
	Input, Output, ContentType string
	StartedAt                  time.Time
	EndedAt                    *time.Time
	Credits                    float64
	// Model and the tokens are the attempt's model calls ("" and 0 when
	// none), written by FinishStep.
	Model                      string
	InputTokens, OutputTokens  int
	ToolCalls                  json.RawMessage
	Error                      string
	Stopped, Final, Superseded bool
	// Judgments are the evaluation results made of the attempt (a JSON
	// array of the evals area's journaled judgments, or what PackJudgments
	// made of one), written by FinishStep; nil: none.
	Judgments json.RawMessage
}

// InsertStep records a step attempt as it starts, within tx, under s.ID
// (a new id when empty).
func (db *DB) InsertStep(ctx context.Context, tx *sql.Tx, s StepRow) (string, error) {
	if s.ID == "" {
		s.ID = NewID()
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO run_steps (id, run_id, account_id, step_key, step_id, step_type, attempt, status, input, started_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		s.ID, s.RunID, s.AccountID, s.Key, s.StepID, s.StepType, s.Attempt, s.Status, s.Input, s.StartedAt.UTC())
	return s.ID, err
}

// SetJudgmentsPacker registers how journaled judgments are packed on
// SQLite: the evals area owns their format (its judgments_pack.go), and
// the server registers its packing here (internal/server), so the store
// writes judgments without knowing what they are.
func (db *DB) SetJudgmentsPacker(pack func(json.RawMessage) json.RawMessage) {
	db.packJudgments.Store(&pack)
}

// PackJudgments returns judgments (a JSON array) as FinishStep stores
// them: packed by the registered packer on SQLite (as they are when none
// is registered), unchanged on PostgreSQL. The journal packs a step's
// judgments before it takes the writer, so packing costs no writer time;
// FinishStep packs what comes to it unpacked.
func (db *DB) PackJudgments(js json.RawMessage) json.RawMessage {
	pack := db.packJudgments.Load()
	if db.Dialect != SQLite || pack == nil {
		return js
	}
	return (*pack)(js)
}

// storedJudgments is the value FinishStep writes for js: a BLOB of packed
// judgments on SQLite, the JSON text on PostgreSQL.
func (db *DB) storedJudgments(js json.RawMessage) any {
	if len(js) == 0 || string(js) == "null" {
		return nil
	}
	if db.Dialect == SQLite {
		return []byte(db.PackJudgments(js))
	}
	return string(js) // PackJudgments leaves them as they are there
}

// FinishStep records a step attempt's outcome within tx.
func (db *DB) FinishStep(ctx context.Context, tx *sql.Tx, s StepRow) error {
	tc := s.ToolCalls
	if len(tc) == 0 {
		tc = json.RawMessage("[]")
	}
	_, err := tx.ExecContext(ctx, `UPDATE run_steps SET status = $1, output = $2, content_type = $3, ended_at = $4, credits = $5,
		tool_calls = $6, error = $7, stopped = $8, final = $9, judgments = $10, model = $12, input_tokens = $13, output_tokens = $14 WHERE id = $11`,
		s.Status, s.Output, nullable(s.ContentType), s.EndedAt, ToMicro(s.Credits), string(tc), nullable(s.Error), s.Stopped, s.Final,
		db.storedJudgments(s.Judgments), s.ID, nullable(s.Model), s.InputTokens, s.OutputTokens)
	return err
}

// SupersedeSteps invalidates the completed attempts of keys (a retry runs them again).
func (db *DB) SupersedeSteps(ctx context.Context, runID string, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	args := []any{runID}
	ph := make([]string, len(keys))
	for i, k := range keys {
		args = append(args, k)
		ph[i] = "$" + strconv.Itoa(i+2)
	}
	_, err := db.W.ExecContext(ctx, `UPDATE run_steps SET superseded = TRUE WHERE run_id = $1 AND step_key IN (`+strings.Join(ph, ", ")+`)`, args...)
	return err
}

// Steps lists a run's step attempts in execution order.
func (db *DB) Steps(ctx context.Context, runID string) ([]StepRow, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT id, run_id, account_id, step_key, step_id, step_type, attempt, status, COALESCE(input, ''),
		COALESCE(output, ''), COALESCE(content_type, ''), started_at, ended_at, credits, tool_calls, COALESCE(error, ''), stopped, final, superseded
		FROM run_steps WHERE run_id = $1 ORDER BY id`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StepRow
	for rows.Next() {
		var (
			s     StepRow
			ended sql.NullTime
			micro int64
			tc    string
		)
		if err := rows.Scan(&s.ID, &s.RunID, &s.AccountID, &s.Key, &s.StepID, &s.StepType, &s.Attempt, &s.Status, &s.Input, &s.Output,
			&s.ContentType, &s.StartedAt, &ended, &micro, &tc, &s.Error, &s.Stopped, &s.Final, &s.Superseded); err != nil {
			return nil, err
		}
		if ended.Valid {
			t := ended.Time.UTC()
			s.EndedAt = &t
		}
		s.Credits, s.ToolCalls = FromMicro(micro), json.RawMessage(tc)
		out = append(out, s)
	}
	return out, rows.Err()
}

// TraceCandidate is a step attempt considered by trace search.
type TraceCandidate struct {
	StepRowID, RunID, AgentID, RunStatus string
	StepID, StepType, Input, Output      string
}

// TraceCandidates returns an account's most recent step attempts matching
// the filters, newest first, for trace search to rank.
func (db *DB) TraceCandidates(ctx context.Context, accountID, agentID, runStatus, stepType string, limit int) ([]TraceCandidate, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT s.id, s.run_id, r.agent_id, r.status, s.step_id, s.step_type, COALESCE(s.input, ''), COALESCE(s.output, '')
		FROM run_steps s JOIN runs r ON r.id = s.run_id
		WHERE s.account_id = $1 AND r.account_id = $1 AND ($2 = '' OR r.agent_id = $2) AND ($3 = '' OR r.status = $3) AND ($4 = '' OR s.step_type = $4)
		AND s.status = 'completed' AND NOT s.superseded
		ORDER BY s.id DESC LIMIT $5`, accountID, agentID, runStatus, stepType, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TraceCandidate
	for rows.Next() {
		var c TraceCandidate
		if err := rows.Scan(&c.StepRowID, &c.RunID, &c.AgentID, &c.RunStatus, &c.StepID, &c.StepType, &c.Input, &c.Output); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RunAttachment is a file a run's step emitted.
type RunAttachment struct {
	StorageKey, RunID, AccountID, StepID string
	Name, ContentType                    string
	Size                                 int64
	CreatedAt                            time.Time
}

// AddRunAttachment records a file stored in the blob store under StorageKey.
func (db *DB) AddRunAttachment(ctx context.Context, a RunAttachment) error {
	_, err := db.W.ExecContext(ctx, `INSERT INTO run_attachments (storage_key, run_id, account_id, step_id, name, content_type, size, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, a.StorageKey, a.RunID, a.AccountID, nullable(a.StepID), a.Name, a.ContentType, a.Size, Now())
	return err
}

// RunAttachmentByKey finds a file of an account's run.
func (db *DB) RunAttachmentByKey(ctx context.Context, accountID, runID, key string) (RunAttachment, error) {
	var a RunAttachment
	err := db.R.QueryRowContext(ctx, `SELECT storage_key, run_id, account_id, COALESCE(step_id, ''), name, content_type, size, created_at
		FROM run_attachments WHERE storage_key = $1 AND run_id = $2 AND account_id = $3`, key, runID, accountID).
		Scan(&a.StorageKey, &a.RunID, &a.AccountID, &a.StepID, &a.Name, &a.ContentType, &a.Size, &a.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return RunAttachment{}, ErrNotFound
	}
	return a, err
}

// PendingRunsBefore lists runs still pending that were created before t,
// oldest first, across accounts: only the stranded-run sweeper calls it.
func (db *DB) PendingRunsBefore(ctx context.Context, t time.Time, limit int) ([]Run, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE status = 'pending' AND created_at < $1 ORDER BY id LIMIT $2`, t.UTC(), limit)
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

// CopyStepsTx writes step records of another run into run runID, within
// tx, in the order given: completed attempts a rerun reuses. They keep
// their times, input and output, and cost nothing here (they were billed
// to the run that made them).
func (db *DB) CopyStepsTx(ctx context.Context, tx *sql.Tx, runID, accountID string, steps []StepRow) error {
	for _, s := range steps {
		c := s
		c.ID, c.RunID, c.AccountID, c.Credits = NewID(), runID, accountID, 0
		if _, err := db.InsertStep(ctx, tx, c); err != nil {
			return err
		}
		if err := db.FinishStep(ctx, tx, c); err != nil {
			return err
		}
	}
	return nil
}

// Reruns lists the runs rerun from runID (oldest first, at most limit).
func (db *DB) Reruns(ctx context.Context, accountID, runID string, limit int) ([]string, error) {
	return All(ctx, db.R, ScanString, `SELECT id FROM runs WHERE rerun_of_run_id = $1 AND account_id = $2 ORDER BY id LIMIT $3`,
		runID, accountID, limit)
}

// The runs' reads a regression (internal/regressions) needs: its recorded
// runs, their credits for the estimate, and whether a run is a replay
// (which raises no alert). They read the runs table, whose SQL is here.

// RegressionSourceRuns are the ids of an agent's last n finished runs
// (completed or failed), newest first; replays of regressions excluded.
func (db *DB) RegressionSourceRuns(ctx context.Context, accountID, agentID string, n int) ([]string, error) {
	return All(ctx, db.R, ScanString, `SELECT id FROM runs WHERE account_id = $1 AND agent_id = $2 AND status IN ($3, $4)
		AND regression_id IS NULL ORDER BY id DESC LIMIT $5`, accountID, agentID, RunCompleted, RunFailed, n)
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
