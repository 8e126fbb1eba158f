package auth

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
)

// The API keys' persistence: the table api_keys is read and written only
// here, beside the keys' format and hashing (keys.go) and the
// authenticator that looks a key up on every uncached request. The
// accounts area's settings and the operator's admin commands create, list
// and revoke keys through these functions; auth is where they can (the
// accounts area imports auth for the principal, so the keys cannot live
// there without auth importing it back).

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

// CreateAPIKey stores a key by its hash: store.ErrConflict for a hash
// already stored, store.ErrNotFound for a missing account or user.
func CreateAPIKey(ctx context.Context, db *store.DB, k APIKey, hash string) (APIKey, error) {
	k.ID, k.CreatedAt = store.NewID(), store.Now()
	_, err := db.W.ExecContext(ctx, `INSERT INTO api_keys (id, account_id, user_id, name, prefix, key_hash, role, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		k.ID, k.AccountID, store.NullIfEmpty(k.UserID), k.Name, k.Prefix, hash, k.Role, k.CreatedAt)
	switch {
	case store.IsUniqueViolation(err):
		return APIKey{}, store.ErrConflict
	case store.IsForeignKeyViolation(err):
		return APIKey{}, store.ErrNotFound
	}
	return k, err
}

const keyColumns = `id, account_id, COALESCE(user_id, ''), name, prefix, role, created_at, last_used_at, revoked_at`

func scanKey(row store.Scanner) (APIKey, error) {
	var (
		k        APIKey
		used, rv sql.NullTime
	)
	err := row.Scan(&k.ID, &k.AccountID, &k.UserID, &k.Name, &k.Prefix, &k.Role, &k.CreatedAt, &used, &rv)
	k.LastUsedAt, k.RevokedAt = store.TimeOrNil(used), store.TimeOrNil(rv)
	return k, err
}

// APIKeyByHash finds a key by the hash of its secret, revoked or not,
// with its account's kind and its user's current role in that account
// (asked of the accounts area, directory.KindAndRole). It runs on every
// uncached request, so both statements are prepared once.
func APIKeyByHash(ctx context.Context, db *store.DB, hash string) (APIKey, error) {
	stmt, err := db.Prepared(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE key_hash = $1`)
	if err != nil {
		return APIKey{}, err
	}
	k, err := scanKey(stmt.QueryRowContext(ctx, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, store.ErrNotFound
	}
	if err != nil {
		return k, err
	}
	k.AccountKind, k.MemberRole, err = directory.KindAndRole(ctx, db, k.AccountID, k.UserID)
	if err != nil {
		return APIKey{}, err
	}
	return k, nil
}

// APIKeys lists an account's keys, newest first. An empty account id is
// store.ErrNotFound rather than every account's keys: listing them all is
// the operator's AllAPIKeys, so no request path can reach it by accident.
func APIKeys(ctx context.Context, db *store.DB, accountID string) ([]APIKey, error) {
	if accountID == "" {
		return nil, store.ErrNotFound
	}
	return store.All(ctx, db.R, scanKey, `SELECT `+keyColumns+` FROM api_keys WHERE account_id = $1 ORDER BY id DESC`, accountID)
}

// AllAPIKeys lists every account's keys, newest first: for the operator's
// agentry admin keys list, never for a request.
func AllAPIKeys(ctx context.Context, db *store.DB) ([]APIKey, error) {
	return store.All(ctx, db.R, scanKey, `SELECT `+keyColumns+` FROM api_keys ORDER BY id DESC`)
}

// APIKeyInAccount reads one key of an account (store.ErrNotFound for
// another account's, so that its existence does not leak).
func APIKeyInAccount(ctx context.Context, db *store.DB, accountID, id string) (APIKey, error) {
	return store.One(ctx, db.R, scanKey, `SELECT `+keyColumns+` FROM api_keys WHERE account_id = $1 AND id = $2`, accountID, id)
}

// PruneRevokedAPIKeys deletes an account's revoked keys past the newest
// keep of them (by when they were revoked), so creating and revoking keys
// in a loop cannot grow the table without end. A revoked key authenticates
// nothing, and no other table refers to one.
func PruneRevokedAPIKeys(ctx context.Context, db *store.DB, accountID string, keep int) error {
	_, err := db.W.ExecContext(ctx, `DELETE FROM api_keys WHERE account_id = $1 AND revoked_at IS NOT NULL AND id NOT IN (
		SELECT id FROM api_keys WHERE account_id = $1 AND revoked_at IS NOT NULL ORDER BY revoked_at DESC, id DESC LIMIT $2)`, accountID, keep)
	return err
}

// RevokeAPIKey marks a key revoked. Revoking twice keeps the first time.
func RevokeAPIKey(ctx context.Context, db *store.DB, id string) error {
	return store.Affected(ctx, db.W, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2`, store.Now(), id)
}

// touchAPIKeys records last use for a batch of keys in one statement each;
// the authenticator calls it off the request path.
func touchAPIKeys(ctx context.Context, db *store.DB, used map[string]time.Time) error {
	return db.Tx(ctx, func(tx *sql.Tx) error {
		for id, at := range used {
			if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)`, at.UTC(), id); err != nil {
				return err
			}
		}
		return nil
	})
}

// KeySearch is how the account search (internal/search) finds an
// account's live keys: by name.
var KeySearch = store.SearchTable{Table: "api_keys", NameExpr: "name", Where: "revoked_at IS NULL"}
