package store

import (
	"context"
	"database/sql"
	"errors"
)

// The settings table holds process-wide values, no account's: the first
// start's bootstrap claim (the server) and the mail links' signing key
// (mail/sending) are its two users, so it stays with the store's shared
// machinery rather than in any one area.

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

// Setting returns a process-wide setting's value, or ErrNotFound.
func (db *DB) Setting(ctx context.Context, key string) (string, error) {
	var v string
	err := db.R.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = $1`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return v, err
}
