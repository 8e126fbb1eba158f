package store

import "context"

// Claim records key once. It returns true to exactly one caller across all
// replicas, the one whose insert won, so one-time work (the first-start
// bootstrap) happens once however many processes start together.
func (db *DB) Claim(ctx context.Context, key, value string) (bool, error) {
	res, err := db.W.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING`, key, value, Now())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
