package store

import (
	"context"
	"database/sql"
	"errors"
)

// AccountDefaultModel returns the account's own default model ("" when
// it has none and the server's default applies). A missing account is
// ErrNotFound.
func (db *DB) AccountDefaultModel(ctx context.Context, accountID string) (string, error) {
	var m sql.NullString
	err := db.R.QueryRowContext(ctx, `SELECT default_model FROM accounts WHERE id = $1`, accountID).Scan(&m)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return m.String, err
}

// SetAccountDefaultModel sets the account's default model, or clears it
// with "". A missing account is ErrNotFound.
func (db *DB) SetAccountDefaultModel(ctx context.Context, accountID, model string) error {
	var v any
	if model != "" {
		v = model
	}
	n, err := rowsAffected(db.W.ExecContext(ctx, `UPDATE accounts SET default_model = $1, updated_at = $2 WHERE id = $3`, v, Now(), accountID))
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}
