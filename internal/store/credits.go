package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"time"
)

// Balances are kept in micro-credits (1e-6 credit) as integers, so that sums
// are exact and a debit is one atomic integer update on either database.
const microPerCredit = 1_000_000

// ToMicro converts credits to micro-credits, rounding half away from zero.
func ToMicro(credits float64) int64 { return int64(math.Round(credits * microPerCredit)) }

// FromMicro converts micro-credits to credits.
func FromMicro(micro int64) float64 { return float64(micro) / microPerCredit }

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

// Balance returns an account's credit balance.
func (db *DB) Balance(ctx context.Context, accountID string) (float64, error) {
	var micro int64
	err := db.R.QueryRowContext(ctx, `SELECT credit_balance FROM accounts WHERE id = $1`, accountID).Scan(&micro)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	return FromMicro(micro), err
}

// Debit takes credits from an account if, and only if, the balance covers
// them; otherwise it returns ErrInsufficientCredits and changes nothing. It
// is safe under any number of concurrent callers on both databases: the check
// and the subtraction are one conditional UPDATE.
func (db *DB) Debit(ctx context.Context, accountID string, credits float64, reason, reference string) (float64, error) {
	return db.adjust(ctx, accountID, -ToMicro(credits), reason, reference, false)
}

// Charge takes credits for work already done, even if that takes the balance
// below zero (a model call whose cost exceeded its estimate). The next Debit
// is then refused.
func (db *DB) Charge(ctx context.Context, accountID string, credits float64, reason, reference string) (float64, error) {
	return db.adjust(ctx, accountID, -ToMicro(credits), reason, reference, true)
}

// Grant adds credits to an account.
func (db *DB) Grant(ctx context.Context, accountID string, credits float64, reason, reference string) (float64, error) {
	return db.adjust(ctx, accountID, ToMicro(credits), reason, reference, true)
}

func (db *DB) adjust(ctx context.Context, accountID string, delta int64, reason, reference string, overdraft bool) (float64, error) {
	var after int64
	err := db.Tx(ctx, func(tx *sql.Tx) error {
		var err error
		after, err = adjust(ctx, tx, accountID, delta, reason, reference, overdraft)
		return err
	})
	return FromMicro(after), err
}

func adjust(ctx context.Context, tx *sql.Tx, accountID string, delta int64, reason, reference string, overdraft bool) (int64, error) {
	var after int64
	err := tx.QueryRowContext(ctx, `UPDATE accounts SET credit_balance = credit_balance + $1
		WHERE id = $2 AND ($3 OR credit_balance + $1 >= 0) RETURNING credit_balance`,
		delta, accountID, overdraft || delta >= 0).Scan(&after)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := getBalanceTx(ctx, tx, accountID); err != nil {
			return 0, err
		}
		return 0, ErrInsufficientCredits
	}
	if err != nil {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO credit_ledger (id, account_id, delta, balance_after, reason, reference, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, NewID(), accountID, delta, after, reason, nullable(reference), Now())
	return after, err
}

func getBalanceTx(ctx context.Context, tx *sql.Tx, accountID string) (int64, error) {
	var micro int64
	err := tx.QueryRowContext(ctx, `SELECT credit_balance FROM accounts WHERE id = $1`, accountID).Scan(&micro)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	return micro, err
}

// Ledger lists an account's most recent balance movements, newest first.
func (db *DB) Ledger(ctx context.Context, accountID string, limit int) ([]LedgerEntry, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT id, account_id, delta, balance_after, reason, COALESCE(reference, ''), created_at
		FROM credit_ledger WHERE account_id = $1 ORDER BY id DESC LIMIT $2`, accountID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []LedgerEntry
	for rows.Next() {
		var (
			e            LedgerEntry
			delta, after int64
		)
		if err := rows.Scan(&e.ID, &e.AccountID, &delta, &after, &e.Reason, &e.Reference, &e.CreatedAt); err != nil {
			return nil, err
		}
		e.Delta, e.BalanceAfter = FromMicro(delta), FromMicro(after)
		out = append(out, e)
	}
	return out, rows.Err()
}
