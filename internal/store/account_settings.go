package store

import (
	"context"
	"time"
)

// What an account's own owners and members read about it through the
// API (the settings extension) that is still the store's: the credits
// spent per day, read from the credit ledger (the credits' table, not the
// accounts area's).

// DailyCreditsSpent sums the credits an account spent (the ledger's
// debits) per UTC day since a time, keyed by "2006-01-02".
func (db *DB) DailyCreditsSpent(ctx context.Context, accountID string, since time.Time) (map[string]float64, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT delta, created_at FROM credit_ledger
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
		out[day] = FromMicro(m)
	}
	return out, rows.Err()
}
