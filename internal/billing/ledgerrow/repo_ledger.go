package ledgerrow

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Record writes one movement of an account's balance, delta micro-credits
// leaving after, in the caller's transaction: the one that moved the
// balance (directory.MoveCredits) or created the account with it.
func Record(ctx context.Context, q store.Querier, accountID string, delta, after int64, reason, reference string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO credit_ledger (id, account_id, delta, balance_after, reason, reference, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, store.NewID(), accountID, delta, after, reason, store.NullIfEmpty(reference), store.Now())
	return err
}

// Spent sums what an account was debited in [from, to), in micro-credits.
func Spent(ctx context.Context, q store.Querier, accountID string, from, to time.Time) (int64, error) {
	var micro int64
	err := q.QueryRowContext(ctx, `SELECT COALESCE(SUM(-delta), 0) FROM credit_ledger
		WHERE account_id = $1 AND delta < 0 AND created_at >= $2 AND created_at < $3`, accountID, from.UTC(), to.UTC()).Scan(&micro)
	return micro, err
}

// Spenders lists the accounts debited since `since`, after afterID, by
// id, at most limit: the ledger's rows go with their account (ON DELETE
// CASCADE), so each is an account that exists.
func Spenders(ctx context.Context, q store.Querier, since time.Time, afterID string, limit int) ([]string, error) {
	return store.All(ctx, q, store.ScanString, `SELECT DISTINCT account_id FROM credit_ledger
		WHERE account_id > $1 AND delta < 0 AND created_at >= $2 ORDER BY account_id LIMIT $3`, afterID, since.UTC(), limit)
}
