package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"time"
)

// RunFilter narrows an account's runs (AccountRuns, RunStats). Empty
// fields do not filter.
type RunFilter struct {
	AgentID, Status, Trigger string
	// From and To bound the creation time, From inclusive and To
	// exclusive, at the millisecond precision of the run ids (UUIDv7):
	// the window is an id range, which the indexes serve directly.
	From, To time.Time
	// Before is a cursor: only runs with a smaller id (older) are listed.
	Before string
}

// RunListItem is one run of a list: what a table row shows, without the
// run's input and output, which may be large.
type RunListItem struct {
	ID, AgentID, Status, TriggerType, ParentRunID string
	Priority                                      bool
	Credits                                       float64
	ErrorCount                                    int
	Error                                         string
	CreatedAt                                     time.Time
	StartedAt, EndedAt                            *time.Time
}

// TimeIDBound is the smallest UUIDv7 string of the millisecond of t: every
// id minted at or after t sorts at or above it, every id minted before t
// below it.
func TimeIDBound(t time.Time) string {
	var b [16]byte
	ms := t.UnixMilli()
	if ms < 0 {
		ms = 0
	}
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(ms))
	copy(b[:6], ts[2:])
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// where renders the filter as a condition on runs, numbering placeholders
// after args.
func (f RunFilter) where(accountID string) (string, []any) {
	args := []any{accountID}
	// Replays of regression runs are no production runs: left out of
	// lists and summaries (their regression's report names them).
	cond := `account_id = $1 AND regression_id IS NULL`
	add := func(col, op string, v any) {
		args = append(args, v)
		cond += ` AND ` + col + ` ` + op + ` $` + itoa(len(args))
	}
	if f.AgentID != "" {
		add("agent_id", "=", f.AgentID)
	}
	if f.Status != "" {
		add("status", "=", f.Status)
	}
	if f.Trigger != "" {
		add("trigger_type", "=", f.Trigger)
	}
	if !f.From.IsZero() {
		add("id", ">=", TimeIDBound(f.From))
	}
	if !f.To.IsZero() {
		add("id", "<", TimeIDBound(f.To))
	}
	if f.Before != "" {
		add("id", "<", f.Before)
	}
	return cond, args
}

const runListColumns = `id, agent_id, status, trigger_type, COALESCE(parent_run_id, ''), priority, credits, error_count,
	COALESCE(error, ''), created_at, started_at, ended_at`

func scanRunListItem(rows *sql.Rows) (RunListItem, error) {
	var (
		r              RunListItem
		micro          int64
		started, ended sql.NullTime
	)
	if err := rows.Scan(&r.ID, &r.AgentID, &r.Status, &r.TriggerType, &r.ParentRunID, &r.Priority, &micro, &r.ErrorCount,
		&r.Error, &r.CreatedAt, &started, &ended); err != nil {
		return r, err
	}
	r.Credits, r.CreatedAt = FromMicro(micro), r.CreatedAt.UTC()
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

// AccountRuns lists an account's runs newest first, at most limit of them,
// and whether more follow (the next page's cursor is the last id). It never
// counts or sorts the whole list: each filter walks an index in id order.
func (db *DB) AccountRuns(ctx context.Context, accountID string, f RunFilter, limit int) ([]RunListItem, bool, error) {
	cond, args := f.where(accountID)
	args = append(args, limit+1)
	rows, err := db.R.QueryContext(ctx, `SELECT `+runListColumns+` FROM runs WHERE `+cond+` ORDER BY id DESC LIMIT $`+itoa(len(args)), args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	out := []RunListItem{}
	for rows.Next() {
		r, err := scanRunListItem(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

// ChildRuns lists the sub-runs a run started (call_agent steps), oldest
// first, at most limit.
func (db *DB) ChildRuns(ctx context.Context, accountID, parentRunID string, limit int) ([]RunListItem, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT `+runListColumns+` FROM runs WHERE parent_run_id = $1 AND account_id = $2
		ORDER BY id LIMIT $3`, parentRunID, accountID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []RunListItem{}
	for rows.Next() {
		r, err := scanRunListItem(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// RunAttachments lists the files a run's steps emitted, oldest first.
func (db *DB) RunAttachments(ctx context.Context, accountID, runID string, limit int) ([]RunAttachment, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT storage_key, run_id, account_id, COALESCE(step_id, ''), name, content_type, size, created_at
		FROM run_attachments WHERE run_id = $1 AND account_id = $2 ORDER BY created_at, storage_key LIMIT $3`, runID, accountID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []RunAttachment{}
	for rows.Next() {
		var a RunAttachment
		if err := rows.Scan(&a.StorageKey, &a.RunID, &a.AccountID, &a.StepID, &a.Name, &a.ContentType, &a.Size, &a.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// RunStatRow is what run statistics read of one run.
type RunStatRow struct {
	Status             string
	Credits            float64
	CreatedAt          time.Time
	StartedAt, EndedAt *time.Time
}

// RunStats calls fn for each of an account's runs in the filter's window
// (at most limit rows, newest first), for summaries computed in Go: the
// percentiles of durations are not portable SQL.
func (db *DB) RunStats(ctx context.Context, accountID string, f RunFilter, limit int, fn func(RunStatRow)) (truncated bool, err error) {
	cond, args := f.where(accountID)
	args = append(args, limit+1)
	rows, err := db.R.QueryContext(ctx, `SELECT status, credits, created_at, started_at, ended_at FROM runs WHERE `+cond+
		` ORDER BY id DESC LIMIT $`+itoa(len(args)), args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		if n == limit {
			return true, nil
		}
		n++
		var (
			r              RunStatRow
			micro          int64
			started, ended sql.NullTime
		)
		if err := rows.Scan(&r.Status, &micro, &r.CreatedAt, &started, &ended); err != nil {
			return false, err
		}
		r.Credits, r.CreatedAt = FromMicro(micro), r.CreatedAt.UTC()
		if started.Valid {
			t := started.Time.UTC()
			r.StartedAt = &t
		}
		if ended.Valid {
			t := ended.Time.UTC()
			r.EndedAt = &t
		}
		fn(r)
	}
	return false, rows.Err()
}

// StepUsage is the model use of one step attempt.
type StepUsage struct {
	StepID                    string
	Model                     string
	InputTokens, OutputTokens int
}

// StepUsages lists a run's step attempts' model use, in the order of
// Steps (execution order).
func (db *DB) StepUsages(ctx context.Context, accountID, runID string) ([]StepUsage, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT step_id, COALESCE(model, ''), input_tokens, output_tokens FROM run_steps
		WHERE run_id = $1 AND account_id = $2 ORDER BY id`, runID, accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []StepUsage{}
	for rows.Next() {
		var u StepUsage
		if err := rows.Scan(&u.StepID, &u.Model, &u.InputTokens, &u.OutputTokens); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}
