package billing

import (
	"context"
	"database/sql"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/billing/ledgerrow"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/store"
)

// Credits and usage keep their SQL here, beside the meter (issue 31's
// vertical slices): the credit ledger's reads and movements, the metered
// calls (model_usage) and what they total. The balance is a column of the
// account's row, the accounts area's: it moves it (directory.MoveCredits)
// in the transaction that records the movement here (adjustCredits). The
// ledger's writes and the reads other areas make of it are in this
// area's leaf package, ledgerrow, which the accounts area also uses to
// record a new account's opening balance.

// DefaultOpeningCredits is the balance new accounts open with unless the
// operator sets another (SERVICE_DEFAULT_CREDITS): 5,000,000 credits, which
// at the catalog's rate of one credit per US$0.000001 is US$5 — enough for
// hundreds of short runs on a hosted model, so a first try does not end in
// a 402.
const DefaultOpeningCredits = 5_000_000

// LedgerEntry is one movement of an account's balance.
type LedgerEntry struct {
	ID           string
	AccountID    string
	Delta        float64
	BalanceAfter float64
	Reason       string
	Reference    string
	CreatedAt    time.Time
}

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

// UsageTotals sums credits and tokens of the calls of a run or an experiment.
type UsageTotals struct {
	Calls                                   int
	InputTokens, OutputTokens, CachedTokens int64
	Credits                                 float64
}

// ModelUse is how an account has used one model.
type ModelUse struct {
	Calls    int64
	LastUsed *time.Time // nil when never
}

// Credits is the accounts' balances, ledger and metered usage.
type Credits struct{ db *store.DB }

// NewCredits returns the credits of the accounts of db.
func NewCredits(db *store.DB) Credits { return Credits{db} }

// Balance returns an account's credit balance (store.ErrNotFound for an
// unknown account).
func (c Credits) Balance(ctx context.Context, accountID string) (float64, error) {
	micro, err := directory.CreditBalance(ctx, c.db.R, accountID)
	return store.FromMicro(micro), err
}

// Debit takes credits from an account if, and only if, the balance covers
// them; otherwise it returns store.ErrInsufficientCredits and changes
// nothing. It is safe under any number of concurrent callers on both
// databases: the check and the subtraction are one conditional UPDATE.
func (c Credits) Debit(ctx context.Context, accountID string, credits float64, reason, reference string) (float64, error) {
	return c.adjust(ctx, accountID, -store.ToMicro(credits), reason, reference, false)
}

// Charge takes credits for work already done, even if that takes the
// balance below zero (a model call whose cost exceeded its estimate). The
// next Debit is then refused.
func (c Credits) Charge(ctx context.Context, accountID string, credits float64, reason, reference string) (float64, error) {
	return c.adjust(ctx, accountID, -store.ToMicro(credits), reason, reference, true)
}

// Grant adds credits to an account.
func (c Credits) Grant(ctx context.Context, accountID string, credits float64, reason, reference string) (float64, error) {
	return c.adjust(ctx, accountID, store.ToMicro(credits), reason, reference, true)
}

func (c Credits) adjust(ctx context.Context, accountID string, delta int64, reason, reference string, overdraft bool) (float64, error) {
	var after int64
	err := c.db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		after, err = adjustCredits(ctx, tx, accountID, delta, reason, reference, overdraft)
		return err
	})
	return store.FromMicro(after), err
}

// adjustCredits moves an account's balance by delta micro-credits within
// tx and records the movement in the ledger; it returns the balance after.
// Without overdraft, a debit the balance does not cover changes nothing
// and answers store.ErrInsufficientCredits; an unknown account answers
// store.ErrNotFound (directory.MoveCredits).
func adjustCredits(ctx context.Context, tx *sql.Tx, accountID string, delta int64, reason, reference string, overdraft bool) (int64, error) {
	after, err := directory.MoveCredits(ctx, tx, accountID, delta, overdraft)
	if err != nil {
		return 0, err
	}
	return after, ledgerrow.Record(ctx, tx, accountID, delta, after, reason, reference)
}

// Ledger lists an account's most recent balance movements, newest first.
func (c Credits) Ledger(ctx context.Context, accountID string, limit int) ([]LedgerEntry, error) {
	return store.All(ctx, c.db.R, func(row store.Scanner) (LedgerEntry, error) {
		var (
			e            LedgerEntry
			delta, after int64
		)
		err := row.Scan(&e.ID, &e.AccountID, &delta, &after, &e.Reason, &e.Reference, &e.CreatedAt)
		e.Delta, e.BalanceAfter = store.FromMicro(delta), store.FromMicro(after)
		return e, err
	}, `SELECT id, account_id, delta, balance_after, reason, COALESCE(reference, ''), created_at
		FROM credit_ledger WHERE account_id = $1 ORDER BY id DESC LIMIT $2`, accountID, limit)
}

// DailySpent sums the credits an account spent (the ledger's debits) per
// UTC day since a time, keyed by "2006-01-02": the settings extension's
// spending chart. It streams the debits, a month of an account's at most.
func (c Credits) DailySpent(ctx context.Context, accountID string, since time.Time) (map[string]float64, error) {
	rows, err := c.db.R.QueryContext(ctx, `SELECT delta, created_at FROM credit_ledger
		WHERE account_id = $1 AND created_at >= $2 AND delta < 0`, accountID, since.UTC())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	micro := map[string]int64{}
	for rows.Next() {
		var (
			delta int64
			at    time.Time
		)
		if err := rows.Scan(&delta, &at); err != nil {
			return nil, err
		}
		micro[at.UTC().Format(time.DateOnly)] -= delta
	}
	out := make(map[string]float64, len(micro))
	for day, m := range micro {
		out[day] = store.FromMicro(m)
	}
	return out, rows.Err()
}

// Require returns nil when the account's balance is positive and covers
// estimate, else a *fault.NoCredits (store.ErrInsufficientCredits) that
// says both: a refusal made before any work.
func (c Credits) Require(ctx context.Context, accountID string, estimate float64) error {
	bal, err := c.Balance(ctx, accountID)
	if err != nil {
		return err
	}
	if bal >= estimate && bal > 0 {
		return nil
	}
	return &fault.NoCredits{AccountID: accountID, Estimate: estimate, Balance: bal}
}

// RecordUsage stores a call and charges its credits to the account in one
// transaction, so the usage log and the ledger never disagree. The call
// has already happened, so the charge is taken even past zero (see
// Charge). It returns the balance after.
func (c Credits) RecordUsage(ctx context.Context, u Usage) (Usage, float64, error) {
	u.ID, u.CreatedAt = store.NewID(), store.Now()
	micro := store.ToMicro(u.Credits)
	var after int64
	err := c.db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO model_usage (id, account_id, purpose, model, input_tokens, output_tokens, cached_tokens,
			credits, latency_ms, run_id, step_id, experiment_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			u.ID, u.AccountID, u.Purpose, u.Model, u.InputTokens, u.OutputTokens, u.CachedTokens, micro, u.Latency.Milliseconds(),
			store.NullIfEmpty(u.RunID), store.NullIfEmpty(u.StepID), store.NullIfEmpty(u.ExperimentID), u.CreatedAt)
		if err != nil {
			if store.IsForeignKeyViolation(err) {
				return store.ErrNotFound
			}
			return err
		}
		if micro == 0 {
			after, err = directory.CreditBalance(ctx, tx, u.AccountID)
			return err
		}
		after, err = adjustCredits(ctx, tx, u.AccountID, -micro, u.Purpose+" "+u.Model, "usage:"+u.ID, true)
		return err
	})
	return u, store.FromMicro(after), err
}

// UsageOf totals the usage recorded for a run (kind "run") or an
// experiment (kind "experiment") of an account.
func (c Credits) UsageOf(ctx context.Context, accountID, kind, id string) (UsageTotals, error) {
	col := "run_id"
	if kind == "experiment" {
		col = "experiment_id"
	}
	var (
		t     UsageTotals
		micro int64
	)
	err := c.db.R.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0),
		COALESCE(SUM(cached_tokens), 0), COALESCE(SUM(credits), 0) FROM model_usage WHERE account_id = $1 AND `+col+` = $2`, accountID, id).
		Scan(&t.Calls, &t.InputTokens, &t.OutputTokens, &t.CachedTokens, &micro)
	t.Credits = store.FromMicro(micro)
	return t, err
}

// RecentModels lists the models of an account's latest metered calls,
// newest first, at most limit (repeats included).
func (c Credits) RecentModels(ctx context.Context, accountID string, limit int) ([]string, error) {
	return store.All(ctx, c.db.R, func(row store.Scanner) (m string, err error) { return m, row.Scan(&m) },
		`SELECT model FROM model_usage WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, accountID, limit)
}

// ModelUsage reports how many calls an account made to a model and when
// the last one was.
func (c Credits) ModelUsage(ctx context.Context, accountID, model string) (ModelUse, error) {
	var u ModelUse
	if err := c.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM model_usage WHERE account_id = $1 AND model = $2`, accountID, model).Scan(&u.Calls); err != nil {
		return ModelUse{}, err
	}
	if u.Calls == 0 {
		return u, nil
	}
	var last time.Time
	err := c.db.R.QueryRowContext(ctx, `SELECT created_at FROM model_usage WHERE account_id = $1 AND model = $2
		ORDER BY created_at DESC, id DESC LIMIT 1`, accountID, model).Scan(&last)
	if err != nil {
		return ModelUse{}, err
	}
	last = last.UTC()
	u.LastUsed = &last
	return u, nil
}
