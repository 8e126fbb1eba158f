package runs

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentry/agentry/internal/store"
)

// InsertStep records a step attempt as it starts, within tx, under s.ID
// (a new id when empty).
func (q *Repo) InsertStep(ctx context.Context, tx *sql.Tx, s StepRow) (string, error) {
	if s.ID == "" {
		s.ID = store.NewID()
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO run_steps (id, run_id, account_id, step_key, step_id, step_type, attempt, status, input, started_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		s.ID, s.RunID, s.AccountID, s.Key, s.StepID, s.StepType, s.Attempt, s.Status, s.Input, s.StartedAt.UTC())
	return s.ID, err
}

// PackJudgments returns judgments (a JSON array) as FinishStep stores
// them: packed by the repository's packer on SQLite (as they are when it
// has none, see NewRepo), unchanged on PostgreSQL. The journal packs a step's
// judgments before it takes the writer, so packing costs no writer time;
// FinishStep packs what comes to it unpacked.
func (q *Repo) PackJudgments(js json.RawMessage) json.RawMessage {
	if q.db.Dialect != store.SQLite || q.pack == nil {
		return js
	}
	return q.pack(js)
}

// storedJudgments is the value FinishStep writes for js: a BLOB of packed
// judgments on SQLite, the JSON text on PostgreSQL.
func (q *Repo) storedJudgments(js json.RawMessage) any {
	if len(js) == 0 || string(js) == "null" {
		return nil
	}
	if q.db.Dialect == store.SQLite {
		return []byte(q.PackJudgments(js))
	}
	return string(js) // PackJudgments leaves them as they are there
}

// FinishStep records a step attempt's outcome within tx.
func (q *Repo) FinishStep(ctx context.Context, tx *sql.Tx, s StepRow) error {
	tc := s.ToolCalls
	if len(tc) == 0 {
		tc = json.RawMessage("[]")
	}
	_, err := tx.ExecContext(ctx, `UPDATE run_steps SET status = $1, output = $2, content_type = $3, ended_at = $4, credits = $5,
		tool_calls = $6, error = $7, stopped = $8, final = $9, judgments = $10, model = $12, input_tokens = $13, output_tokens = $14 WHERE id = $11`,
		s.Status, s.Output, store.NullIfEmpty(s.ContentType), s.EndedAt, store.ToMicro(s.Credits), string(tc), store.NullIfEmpty(s.Error), s.Stopped, s.Final,
		q.storedJudgments(s.Judgments), s.ID, store.NullIfEmpty(s.Model), s.InputTokens, s.OutputTokens)
	return err
}

// SupersedeSteps invalidates the completed attempts of keys (a retry runs them again).
func (q *Repo) SupersedeSteps(ctx context.Context, runID string, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	args := []any{runID}
	ph := make([]string, len(keys))
	for i, k := range keys {
		args = append(args, k)
		ph[i] = "$" + strconv.Itoa(i+2)
	}
	_, err := q.db.W.ExecContext(ctx, `UPDATE run_steps SET superseded = TRUE WHERE run_id = $1 AND step_key IN (`+strings.Join(ph, ", ")+`)`, args...)
	return err
}

// Steps lists a run's step attempts in execution order.
func (q *Repo) Steps(ctx context.Context, runID string) ([]StepRow, error) {
	rows, err := q.db.R.QueryContext(ctx, `SELECT id, run_id, account_id, step_key, step_id, step_type, attempt, status, COALESCE(input, ''),
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
		s.EndedAt = store.TimeOrNil(ended)
		s.Credits, s.ToolCalls = store.FromMicro(micro), json.RawMessage(tc)
		out = append(out, s)
	}
	return out, rows.Err()
}

// TraceCandidates returns an account's most recent step attempts matching
// the filters, newest first, for trace search to rank.
func (q *Repo) TraceCandidates(ctx context.Context, accountID, agentID, runStatus, stepType string, limit int) ([]TraceCandidate, error) {
	rows, err := q.db.R.QueryContext(ctx, `SELECT s.id, s.run_id, r.agent_id, r.status, s.step_id, s.step_type, COALESCE(s.input, ''), COALESCE(s.output, '')
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

// CopyStepsTx writes step records of another run into run runID, within
// tx, in the order given: completed attempts a rerun reuses. They keep
// their times, input and output, and cost nothing here (they were billed
// to the run that made them).
func (q *Repo) CopyStepsTx(ctx context.Context, tx *sql.Tx, runID, accountID string, steps []StepRow) error {
	for _, s := range steps {
		c := s
		c.ID, c.RunID, c.AccountID, c.Credits = store.NewID(), runID, accountID, 0
		if _, err := q.InsertStep(ctx, tx, c); err != nil {
			return err
		}
		if err := q.FinishStep(ctx, tx, c); err != nil {
			return err
		}
	}
	return nil
}
