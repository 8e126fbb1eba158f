package store

import (
	"context"
	"time"
)

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

// ModelUse is how an account has used one model.
type ModelUse struct {
	Calls    int64
	LastUsed *time.Time // nil when never
}

// ModelUsage reports how many calls an account made to a model and when
// the last one was.
func (db *DB) ModelUsage(ctx context.Context, accountID, model string) (ModelUse, error) {
	var u ModelUse
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM model_usage WHERE account_id = $1 AND model = $2`, accountID, model).Scan(&u.Calls); err != nil {
		return ModelUse{}, err
	}
	if u.Calls == 0 {
		return u, nil
	}
	var last time.Time
	err := db.R.QueryRowContext(ctx, `SELECT created_at FROM model_usage WHERE account_id = $1 AND model = $2
		ORDER BY created_at DESC, id DESC LIMIT 1`, accountID, model).Scan(&last)
	if err != nil {
		return ModelUse{}, err
	}
	last = last.UTC()
	u.LastUsed = &last
	return u, nil
}
