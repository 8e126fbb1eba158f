package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// SecretInfo describes an account secret without its value.
type SecretInfo struct {
	Name      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// SealedSecret is a secret as stored: its value encrypted.
type SealedSecret struct {
	SecretInfo
	Ciphertext string // base64
	KeyID      string // which key sealed it
}

// ErrTooManySecrets means an account already holds its limit of secrets.
var ErrTooManySecrets = errors.New("too many secrets")

// PutSecret creates or replaces an account's secret. A new name is refused
// with ErrTooManySecrets when the account holds limit secrets already; the
// account's row is locked while counting, so concurrent writes cannot pass
// the limit together. created reports a new name.
func (db *DB) PutSecret(ctx context.Context, accountID string, s SealedSecret, limit int) (info SecretInfo, created bool, err error) {
	now := Now()
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		if err := lockAccountRow(ctx, tx, accountID); err != nil {
			return err
		}
		err := tx.QueryRowContext(ctx, `UPDATE account_secrets SET ciphertext = $1, key_id = $2, updated_at = $3
			WHERE account_id = $4 AND name = $5 RETURNING created_at`, s.Ciphertext, s.KeyID, now, accountID, s.Name).Scan(&info.CreatedAt)
		if err == nil {
			info.Name, info.UpdatedAt = s.Name, now
			info.CreatedAt = info.CreatedAt.UTC()
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM account_secrets WHERE account_id = $1`, accountID).Scan(&n); err != nil {
			return err
		}
		if n >= limit {
			return ErrTooManySecrets
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO account_secrets (account_id, name, ciphertext, key_id, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $5)`, accountID, s.Name, s.Ciphertext, s.KeyID, now); err != nil {
			return err
		}
		info, created = SecretInfo{Name: s.Name, CreatedAt: now, UpdatedAt: now}, true
		return nil
	})
	if err != nil {
		return SecretInfo{}, false, err
	}
	return info, created, nil
}

// Secrets lists an account's secrets by name, without their values.
func (db *DB) Secrets(ctx context.Context, accountID string) ([]SecretInfo, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT name, created_at, updated_at FROM account_secrets
		WHERE account_id = $1 ORDER BY name`, accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SecretInfo{}
	for rows.Next() {
		var s SecretInfo
		if err := rows.Scan(&s.Name, &s.CreatedAt, &s.UpdatedAt); err != nil {
			return nil, err
		}
		s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
		out = append(out, s)
	}
	return out, rows.Err()
}

// SealedSecret returns one of an account's secrets, still sealed, or
// ErrNotFound.
func (db *DB) SealedSecret(ctx context.Context, accountID, name string) (SealedSecret, error) {
	var s SealedSecret
	err := db.R.QueryRowContext(ctx, `SELECT name, ciphertext, key_id, created_at, updated_at FROM account_secrets
		WHERE account_id = $1 AND name = $2`, accountID, name).Scan(&s.Name, &s.Ciphertext, &s.KeyID, &s.CreatedAt, &s.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return SealedSecret{}, ErrNotFound
	}
	s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
	return s, err
}

// DeleteSecret removes an account's secret, or answers ErrNotFound.
func (db *DB) DeleteSecret(ctx context.Context, accountID, name string) error {
	res, err := db.W.ExecContext(ctx, `DELETE FROM account_secrets WHERE account_id = $1 AND name = $2`, accountID, name)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
