package runs

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// The account-wide views of runs keep their SQL here, beside the service
// that serves them (account.go): the list across agents, the rows a
// summary adds up, a run's sub-runs, files and model use. They read the
// runs, run_steps and run_attachments tables, which the runs area owns
// (a run's own reads and writes are Repo's, repo_runs.go).
type accountRepo struct{ db *store.DB }

// RunFilter narrows an account's runs (AccountRuns, Summarise). Empty
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

// runStatRow is what run statistics read of one run.
type runStatRow struct {
	Status             string
	Credits            float64
	CreatedAt          time.Time
	StartedAt, EndedAt *time.Time
}

// StepUsage is the model use of one step attempt.
type StepUsage struct {
	StepID                    string
	Model                     string
	InputTokens, OutputTokens int
}

// timeIDBound is the smallest UUIDv7 string of the millisecond of t: every
// id minted at or after t sorts at or above it, every id minted before t
// below it.
func timeIDBound(t time.Time) string {
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
		cond += ` AND ` + col + ` ` + op + ` $` + strconv.Itoa(len(args))
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
		add("id", ">=", timeIDBound(f.From))
	}
	if !f.To.IsZero() {
		add("id", "<", timeIDBound(f.To))
	}
	if f.Before != "" {
		add("id", "<", f.Before)
	}
	return cond, args
}

const runListColumns = `id, agent_id, status, trigger_type, COALESCE(parent_run_id, ''), priority, credits, error_count,
	COALESCE(error, ''), created_at, started_at, ended_at`

func scanRunListItem(row store.Scanner) (RunListItem, error) {
	var (
		r              RunListItem
		micro          int64
		started, ended sql.NullTime
	)
	if err := row.Scan(&r.ID, &r.AgentID, &r.Status, &r.TriggerType, &r.ParentRunID, &r.Priority, &micro, &r.ErrorCount,
		&r.Error, &r.CreatedAt, &started, &ended); err != nil {
		return r, err
	}
	r.Credits, r.CreatedAt = store.FromMicro(micro), r.CreatedAt.UTC()
	r.StartedAt, r.EndedAt = store.TimeOrNil(started), store.TimeOrNil(ended)
	return r, nil
}

// list lists an account's runs newest first, at most limit of them, and
// whether more follow (the next page's cursor is the last id). It never
// counts or sorts the whole list: each filter walks an index in id order.
func (r accountRepo) list(ctx context.Context, accountID string, f RunFilter, limit int) ([]RunListItem, bool, error) {
	cond, args := f.where(accountID)
	args = append(args, limit+1)
	out, err := store.All(ctx, r.db.R, scanRunListItem, `SELECT `+runListColumns+` FROM runs WHERE `+cond+
		` ORDER BY id DESC LIMIT $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, false, err
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

// children lists the sub-runs a run started (call_agent steps), oldest
// first, at most limit.
func (r accountRepo) children(ctx context.Context, accountID, parentRunID string, limit int) ([]RunListItem, error) {
	return store.All(ctx, r.db.R, scanRunListItem, `SELECT `+runListColumns+` FROM runs WHERE parent_run_id = $1 AND account_id = $2
		ORDER BY id LIMIT $3`, parentRunID, accountID, limit)
}

// attachments lists the files a run's steps emitted, oldest first.
func (r accountRepo) attachments(ctx context.Context, accountID, runID string, limit int) ([]RunAttachment, error) {
	return store.All(ctx, r.db.R, func(s store.Scanner) (RunAttachment, error) {
		var a RunAttachment
		err := s.Scan(&a.StorageKey, &a.RunID, &a.AccountID, &a.StepID, &a.Name, &a.ContentType, &a.Size, &a.CreatedAt)
		return a, err
	}, `SELECT storage_key, run_id, account_id, COALESCE(step_id, ''), name, content_type, size, created_at
		FROM run_attachments WHERE run_id = $1 AND account_id = $2 ORDER BY created_at, storage_key LIMIT $3`, runID, accountID, limit)
}

// stats calls fn for each of an account's runs in the filter's window (at
// most limit rows, newest first), for summaries computed in Go: the
// percentiles of durations are not portable SQL. It streams: a window of
// 200,000 runs is never held in memory.
func (r accountRepo) stats(ctx context.Context, accountID string, f RunFilter, limit int, fn func(runStatRow)) (truncated bool, err error) {
	cond, args := f.where(accountID)
	args = append(args, limit+1)
	rows, err := r.db.R.QueryContext(ctx, `SELECT status, credits, created_at, started_at, ended_at FROM runs WHERE `+cond+
		` ORDER BY id DESC LIMIT $`+strconv.Itoa(len(args)), args...)
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
			s              runStatRow
			micro          int64
			started, ended sql.NullTime
		)
		if err := rows.Scan(&s.Status, &micro, &s.CreatedAt, &started, &ended); err != nil {
			return false, err
		}
		s.Credits, s.CreatedAt = store.FromMicro(micro), s.CreatedAt.UTC()
		s.StartedAt, s.EndedAt = store.TimeOrNil(started), store.TimeOrNil(ended)
		fn(s)
	}
	return false, rows.Err()
}

// stepUsages lists a run's step attempts' model use, in the order of the
// run's steps (execution order).
func (r accountRepo) stepUsages(ctx context.Context, accountID, runID string) ([]StepUsage, error) {
	return store.All(ctx, r.db.R, func(s store.Scanner) (StepUsage, error) {
		var u StepUsage
		err := s.Scan(&u.StepID, &u.Model, &u.InputTokens, &u.OutputTokens)
		return u, err
	}, `SELECT step_id, COALESCE(model, ''), input_tokens, output_tokens FROM run_steps
		WHERE run_id = $1 AND account_id = $2 ORDER BY id`, runID, accountID)
}
