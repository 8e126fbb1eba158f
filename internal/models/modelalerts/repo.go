package modelalerts

// The model alerts area keeps its own persistence (issue 31's vertical
// slices): the tables model_alerts, model_upgrades and model_signals are
// read and written only here.

import (
	"context"
	"database/sql"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// repo is the area's SQL.
type repo struct{ db *store.DB }

// ModelAlert is an in-app notification about a model an account uses:
// deprecation, retirement, a newer model, or an automatic model change.
type ModelAlert struct {
	ID                 string
	AccountID          string
	AgentID            string // "" for an account-wide alert
	ModelID            string
	ModelName          string
	Type               string
	Message            string
	SuccessorModelID   string
	SuccessorModelName string
	// DedupeKey identifies the alert's substance within the account; an
	// alert with a key already recorded is not recorded again.
	DedupeKey string
	ReadAt    *time.Time
	CreatedAt time.Time
}

// recordAlert stores a, unless the account already has an alert with
// its DedupeKey. created says which happened.
func (rp repo) recordAlert(ctx context.Context, a ModelAlert) (out ModelAlert, created bool, err error) {
	a.ID, a.CreatedAt = store.NewID(), store.Now()
	res, err := rp.db.W.ExecContext(ctx, `INSERT INTO model_alerts (id, account_id, agent_id, prompt_model_id, model_name,
		alert_type, message, successor_model_id, successor_model_name, dedupe_key, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (account_id, dedupe_key) DO NOTHING`,
		a.ID, a.AccountID, store.NullIfEmpty(a.AgentID), a.ModelID, a.ModelName, a.Type, a.Message,
		store.NullIfEmpty(a.SuccessorModelID), store.NullIfEmpty(a.SuccessorModelName), a.DedupeKey, a.CreatedAt)
	if err != nil {
		if store.IsForeignKeyViolation(err) {
			return ModelAlert{}, false, store.ErrNotFound
		}
		return ModelAlert{}, false, err
	}
	n, _ := res.RowsAffected()
	return a, n > 0, nil
}

// alertFilter selects alerts of an account.
type alertFilter struct {
	AgentID    string // "" for all
	UnreadOnly bool
}

// alerts returns a page of an account's alerts, newest first, and how
// many match in all.
func (rp repo) alerts(ctx context.Context, accountID string, f alertFilter, offset, limit int) ([]ModelAlert, int, error) {
	where := ` FROM model_alerts WHERE account_id = $1 AND ($2 = '' OR agent_id = $2) AND ($3 = FALSE OR read_at IS NULL)`
	var total int
	if err := rp.db.R.QueryRowContext(ctx, `SELECT COUNT(*)`+where, accountID, f.AgentID, f.UnreadOnly).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := rp.db.R.QueryContext(ctx, `SELECT id, account_id, COALESCE(agent_id, ''), prompt_model_id, model_name, alert_type,
		message, COALESCE(successor_model_id, ''), COALESCE(successor_model_name, ''), dedupe_key, read_at, created_at`+where+
		` ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`, accountID, f.AgentID, f.UnreadOnly, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []ModelAlert{}
	for rows.Next() {
		var (
			a    ModelAlert
			read sql.NullTime
		)
		if err := rows.Scan(&a.ID, &a.AccountID, &a.AgentID, &a.ModelID, &a.ModelName, &a.Type, &a.Message,
			&a.SuccessorModelID, &a.SuccessorModelName, &a.DedupeKey, &read, &a.CreatedAt); err != nil {
			return nil, 0, err
		}
		if read.Valid {
			t := read.Time.UTC()
			a.ReadAt = &t
		}
		a.CreatedAt = a.CreatedAt.UTC()
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// unreadAlerts counts an account's unread alerts.
func (rp repo) unreadAlerts(ctx context.Context, accountID string) (int, error) {
	var n int
	err := rp.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM model_alerts WHERE account_id = $1 AND read_at IS NULL`, accountID).Scan(&n)
	return n, err
}

// markAlertRead marks one of an account's alerts read. Marking a read
// alert again keeps its first read time.
func (rp repo) markAlertRead(ctx context.Context, accountID, id string) error {
	res, err := rp.db.W.ExecContext(ctx, `UPDATE model_alerts SET read_at = COALESCE(read_at, $1) WHERE id = $2 AND account_id = $3`,
		store.Now(), id, accountID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// markAllAlertsRead marks every unread alert of the account read and
// says how many there were.
func (rp repo) markAllAlertsRead(ctx context.Context, accountID string) (int, error) {
	res, err := rp.db.W.ExecContext(ctx, `UPDATE model_alerts SET read_at = $1 WHERE account_id = $2 AND read_at IS NULL`, store.Now(), accountID)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
