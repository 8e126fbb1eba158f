package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
)

// Balances are kept in micro-credits (1e-6 credit) as integers, so that sums
// are exact and a debit is one atomic integer update on either database.
// The ledger's reads, movements and the metered usage are the billing
// area's (internal/billing); the one write below stays here because
// account creation writes the opening balance with it in the account's
// own transaction.
const microPerCredit = 1_000_000

// ToMicro converts credits to micro-credits, rounding half away from zero.
func ToMicro(credits float64) int64 { return int64(math.Round(credits * microPerCredit)) }

// FromMicro converts micro-credits to credits.
func FromMicro(micro int64) float64 { return float64(micro) / microPerCredit }

// AdjustCredits moves an account's balance by delta micro-credits within
// tx and records the movement in the ledger; it returns the balance after.
// Without overdraft, a debit the balance does not cover changes nothing
// and answers ErrInsufficientCredits (the check and the subtraction are
// one conditional UPDATE, safe under concurrent callers); an unknown
// account answers ErrNotFound.
func AdjustCredits(ctx context.Context, tx *sql.Tx, accountID string, delta int64, reason, reference string, overdraft bool) (int64, error) {
	var after int64
	err := tx.QueryRowContext(ctx, `UPDATE accounts SET credit_balance = credit_balance + $1
		WHERE id = $2 AND ($3 OR credit_balance + $1 >= 0) RETURNING credit_balance`,
		delta, accountID, overdraft || delta >= 0).Scan(&after)
	if errors.Is(err, sql.ErrNoRows) {
		var micro int64
		err := tx.QueryRowContext(ctx, `SELECT credit_balance FROM accounts WHERE id = $1`, accountID).Scan(&micro)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, ErrNotFound
		}
		if err != nil {
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
