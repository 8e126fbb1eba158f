package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// APIKey is a stored key. The secret itself is never stored: only its hash.
type APIKey struct {
	ID        string
	AccountID string
	UserID    string
	Name      string
	Prefix    string // the first characters of the key, shown in listings
	Role      string
	// AccountKind is the kind of the key's account, read with the key so
	// that requests need not look the account up again.
	AccountKind string
	// MemberRole is the key's user's current role in the key's account,
	// read with the key by APIKeyByHash; "" when the user is no longer a
	// member (or the key has no user). A key acts with the weaker of Role
	// and MemberRole, so it follows its user's membership.
	MemberRole string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// CreateAPIKey stores a key by its hash.
func (db *DB) CreateAPIKey(ctx context.Context, k APIKey, hash string) (APIKey, error) {
	k.ID, k.CreatedAt = NewID(), Now()
	_, err := db.W.ExecContext(ctx, `INSERT INTO api_keys (id, account_id, user_id, name, prefix, key_hash, role, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		k.ID, k.AccountID, nullable(k.UserID), k.Name, k.Prefix, hash, k.Role, k.CreatedAt)
	switch {
	case err != nil && isUniqueViolation(err):
		return APIKey{}, ErrConflict
	case err != nil && isForeignKeyViolation(err):
		return APIKey{}, ErrNotFound
	}
	return k, err
}

const keyColumns = `id, account_id, COALESCE(user_id, ''), name, prefix, role, created_at, last_used_at, revoked_at`

func scanKey(row interface{ Scan(...any) error }) (APIKey, error) {
	var (
		k        APIKey
		used, rv sql.NullTime
	)
	err := row.Scan(&k.ID, &k.AccountID, &k.UserID, &k.Name, &k.Prefix, &k.Role, &k.CreatedAt, &used, &rv)
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, ErrNotFound
	}
	if used.Valid {
		t := used.Time.UTC()
		k.LastUsedAt = &t
	}
	if rv.Valid {
		t := rv.Time.UTC()
		k.RevokedAt = &t
	}
	return k, err
}

// APIKeyByHash finds a key by the hash of its secret, revoked or not,
// with its account's kind and its user's current role in that account. It
// runs on every uncached request, so its statement is prepared once.
func (db *DB) APIKeyByHash(ctx context.Context, hash string) (APIKey, error) {
	stmt, err := db.prepared(ctx, `SELECT k.id, k.account_id, COALESCE(k.user_id, ''), k.name, k.prefix, k.role, k.created_at,
		k.last_used_at, k.revoked_at, a.kind, COALESCE(m.role, '') FROM api_keys k JOIN accounts a ON a.id = k.account_id
		LEFT JOIN memberships m ON m.account_id = k.account_id AND m.user_id = k.user_id WHERE k.key_hash = $1`)
	if err != nil {
		return APIKey{}, err
	}
	var (
		k        APIKey
		used, rv sql.NullTime
	)
	err = stmt.QueryRowContext(ctx, hash).Scan(&k.ID, &k.AccountID, &k.UserID, &k.Name, &k.Prefix, &k.Role, &k.CreatedAt, &used, &rv, &k.AccountKind, &k.MemberRole)
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, ErrNotFound
	}
	if used.Valid {
		t := used.Time.UTC()
		k.LastUsedAt = &t
	}
	if rv.Valid {
		t := rv.Time.UTC()
		k.RevokedAt = &t
	}
	return k, err
}

// APIKeys lists an account's keys, newest first. An empty account id is
// ErrNotFound rather than every account's keys: listing them all is the
// operator's AllAPIKeys, so no request path can reach it by accident.
func (db *DB) APIKeys(ctx context.Context, accountID string) ([]APIKey, error) {
	if accountID == "" {
		return nil, ErrNotFound
	}
	return db.apiKeys(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE account_id = $1 ORDER BY id DESC`, accountID)
}

// AllAPIKeys lists every account's keys, newest first: for the operator's
// agentry admin keys list, never for a request.
func (db *DB) AllAPIKeys(ctx context.Context) ([]APIKey, error) {
	return db.apiKeys(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY id DESC`)
}

func (db *DB) apiKeys(ctx context.Context, q string, args ...any) ([]APIKey, error) {
	rows, err := db.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []APIKey
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// PruneRevokedAPIKeys deletes an account's revoked keys past the newest
// keep of them (by when they were revoked), so creating and revoking keys
// in a loop cannot grow the table without end. A revoked key authenticates
// nothing, and no other table refers to one.
func (db *DB) PruneRevokedAPIKeys(ctx context.Context, accountID string, keep int) error {
	_, err := db.W.ExecContext(ctx, `DELETE FROM api_keys WHERE account_id = $1 AND revoked_at IS NOT NULL AND id NOT IN (
		SELECT id FROM api_keys WHERE account_id = $1 AND revoked_at IS NOT NULL ORDER BY revoked_at DESC, id DESC LIMIT $2)`, accountID, keep)
	return err
}

// RevokeAPIKey marks a key revoked. Revoking twice keeps the first time.
func (db *DB) RevokeAPIKey(ctx context.Context, id string) error {
	res, err := db.W.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2`, Now(), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// TouchAPIKeys records last use for a batch of keys in one statement each;
// the authenticator calls it off the request path.
func (db *DB) TouchAPIKeys(ctx context.Context, used map[string]time.Time) error {
	return db.Tx(ctx, func(tx *sql.Tx) error {
		for id, at := range used {
			if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)`, at.UTC(), id); err != nil {
				return err
			}
		}
		return nil
	})
}
