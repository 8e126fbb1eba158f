package store

import (
	"context"
	"database/sql"
	"time"
)

// Usage is one metered model call.
type Usage struct {
	ID           string
	AccountID    string
	Purpose      string // e.g. prompt_call, evaluation, playground, embedding
	Model        string
	InputTokens  int64
	OutputTokens int64
	CachedTokens int64
	Credits      float64
	Latency      time.Duration
	RunID        string
	StepID       string
	ExperimentID string
	CreatedAt    time.Time
}

// RecordUsage stores a call and charges its credits to the account in one
// transaction, so the usage log and the ledger never disagree. The call has
// already happened, so the charge is taken even past zero (see Charge).
func (db *DB) RecordUsage(ctx context.Context, u Usage) (Usage, float64, error) {
	u.ID, u.CreatedAt = NewID(), Now()
	micro := ToMicro(u.Credits)
	var after int64
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO model_usage (id, account_id, purpose, model, input_tokens, output_tokens, cached_tokens,
			credits, latency_ms, run_id, step_id, experiment_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			u.ID, u.AccountID, u.Purpose, u.Model, u.InputTokens, u.OutputTokens, u.CachedTokens, micro, u.Latency.Milliseconds(),
			nullable(u.RunID), nullable(u.StepID), nullable(u.ExperimentID), u.CreatedAt)
		if err != nil {
			if isForeignKeyViolation(err) {
				return ErrNotFound
			}
			return err
		}
		if micro == 0 {
			after, err = getBalanceTx(ctx, tx, u.AccountID)
			return err
		}
		after, err = adjust(ctx, tx, u.AccountID, -micro, u.Purpose+" "+u.Model, "usage:"+u.ID, true)
		return err
	})
	return u, FromMicro(after), err
}

// UsageTotals sums credits and tokens of the calls of a run or an experiment.
type UsageTotals struct {
	Calls                                   int
	InputTokens, OutputTokens, CachedTokens int64
	Credits                                 float64
}

// UsageOf totals the usage recorded for a run (kind "run") or an experiment
// (kind "experiment") of an account.
func (db *DB) UsageOf(ctx context.Context, accountID, kind, id string) (UsageTotals, error) {
	col := "run_id"
	if kind == "experiment" {
		col = "experiment_id"
	}
	var (
		t     UsageTotals
		micro int64
	)
	err := db.R.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0),
		COALESCE(SUM(cached_tokens), 0), COALESCE(SUM(credits), 0) FROM model_usage WHERE account_id = $1 AND `+col+` = $2`, accountID, id).
		Scan(&t.Calls, &t.InputTokens, &t.OutputTokens, &t.CachedTokens, &micro)
	t.Credits = FromMicro(micro)
	return t, err
}

// CanAfford reports whether an account's balance covers credits; callers
// refuse a model call before making it when it does not.
func (db *DB) CanAfford(ctx context.Context, accountID string, credits float64) (bool, error) {
	bal, err := db.Balance(ctx, accountID)
	if err != nil {
		return false, err
	}
	return bal >= credits && bal > 0, nil
}
