package store

import "context"

// RecentModels lists the models of an account's latest metered calls,
// newest first, at most limit (repeats included).
func (db *DB) RecentModels(ctx context.Context, accountID string, limit int) ([]string, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT model FROM model_usage WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
		accountID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
