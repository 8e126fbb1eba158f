package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// SecretInfo describes an account secret without its value.
type SecretInfo struct {
	Name string
	// Hosts are the host patterns the secret may be sent to; empty for a
	// secret stored before secrets were bound to hosts.
	Hosts     []string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// hostsColumn encodes hosts for the hosts column (NULL for none).
func hostsColumn(hosts []string) any {
	if hosts == nil {
		return nil
	}
	b, _ := json.Marshal(hosts)
	return string(b)
}

// scanHosts decodes the hosts column; a value that does not decode binds
// the secret to nothing.
func scanHosts(v sql.NullString) []string {
	out := []string{}
	if v.Valid {
		_ = json.Unmarshal([]byte(v.String), &out)
	}
	return out
}

// SealedSecret is a secret as stored: its value encrypted.
type SealedSecret struct {
	SecretInfo
	Ciphertext string // base64
	KeyID      string // which key sealed it
}

// ErrSecretNeedsHosts means a new secret was stored without hosts.
var ErrSecretNeedsHosts = errors.New("a new secret needs hosts")

// ErrTooManySecrets means an account already holds its limit of secrets.
var ErrTooManySecrets = errors.New("too many secrets")

// PutSecret creates or replaces an account's secret. An empty Ciphertext
// keeps the stored value (changing only the hosts; ErrNotFound when there
// is no such secret); nil hosts keep the stored hosts, and a new secret
// needs them (ErrSecretNeedsHosts). A new name is
// refused with ErrTooManySecrets when the account holds limit secrets
// already; the account's row is locked while counting, so concurrent
// writes cannot pass the limit together. created reports a new name.
func (db *DB) PutSecret(ctx context.Context, accountID string, s SealedSecret, hosts []string, limit int) (info SecretInfo, created bool, err error) {
	now := Now()
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		if err := lockAccountRow(ctx, tx, accountID); err != nil {
			return err
		}
		var stored sql.NullString
		err := tx.QueryRowContext(ctx, `UPDATE account_secrets SET
				ciphertext = CASE WHEN $1 = '' THEN ciphertext ELSE $1 END,
				key_id = CASE WHEN $1 = '' THEN key_id ELSE $2 END,
				hosts = COALESCE($3, hosts), updated_at = $4
			WHERE account_id = $5 AND name = $6 RETURNING created_at, hosts`,
			s.Ciphertext, s.KeyID, hostsColumn(hosts), now, accountID, s.Name).Scan(&info.CreatedAt, &stored)
		if err == nil {
			info.Name, info.UpdatedAt, info.Hosts = s.Name, now, scanHosts(stored)
			info.CreatedAt = info.CreatedAt.UTC()
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if s.Ciphertext == "" {
			return ErrNotFound
		}
		if hosts == nil {
			return ErrSecretNeedsHosts
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM account_secrets WHERE account_id = $1`, accountID).Scan(&n); err != nil {
			return err
		}
		if n >= limit {
			return ErrTooManySecrets
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO account_secrets (account_id, name, ciphertext, key_id, hosts, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $6)`, accountID, s.Name, s.Ciphertext, s.KeyID, hostsColumn(hosts), now); err != nil {
			return err
		}
		info, created = SecretInfo{Name: s.Name, Hosts: append([]string{}, hosts...), CreatedAt: now, UpdatedAt: now}, true
		return nil
	})
	if err != nil {
		return SecretInfo{}, false, err
	}
	return info, created, nil
}

// Secrets lists an account's secrets by name, without their values.
func (db *DB) Secrets(ctx context.Context, accountID string) ([]SecretInfo, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT name, hosts, created_at, updated_at FROM account_secrets
		WHERE account_id = $1 ORDER BY name`, accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SecretInfo{}
	for rows.Next() {
		var s SecretInfo
		var hosts sql.NullString
		if err := rows.Scan(&s.Name, &hosts, &s.CreatedAt, &s.UpdatedAt); err != nil {
			return nil, err
		}
		s.Hosts = scanHosts(hosts)
		s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
		out = append(out, s)
	}
	return out, rows.Err()
}

// SealedSecret returns one of an account's secrets, still sealed, or
// ErrNotFound.
func (db *DB) SealedSecret(ctx context.Context, accountID, name string) (SealedSecret, error) {
	var s SealedSecret
	var hosts sql.NullString
	err := db.R.QueryRowContext(ctx, `SELECT name, ciphertext, key_id, hosts, created_at, updated_at FROM account_secrets
		WHERE account_id = $1 AND name = $2`, accountID, name).Scan(&s.Name, &s.Ciphertext, &s.KeyID, &hosts, &s.CreatedAt, &s.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return SealedSecret{}, ErrNotFound
	}
	s.Hosts = scanHosts(hosts)
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
