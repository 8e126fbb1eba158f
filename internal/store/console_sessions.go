package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// ConsoleSession is a web console sign-in. The browser holds its token;
// the row holds the token's hash (see migration 00170).
type ConsoleSession struct {
	ID string
	// UserID is the user the session acts as ("" for a key made without
	// a user).
	UserID string
	// KeyHash is set when the session was opened with an API key: the
	// session then acts as that key, and ends with it.
	KeyHash string
	// AccountID is the account the session was opened in; a user's
	// session may switch to another account they belong to.
	AccountID  string
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time // the absolute expiry
	RevokedAt  *time.Time
}

// CreateConsoleSession stores a new session under its token's hash.
func (db *DB) CreateConsoleSession(ctx context.Context, s ConsoleSession, tokenHash string) (ConsoleSession, error) {
	s.ID = NewID()
	now := Now()
	s.CreatedAt, s.LastSeenAt = now, now
	_, err := db.W.ExecContext(ctx, `INSERT INTO console_sessions (id, token_hash, user_id, key_hash, account_id, created_at, last_seen_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		s.ID, tokenHash, nullIfEmpty(s.UserID), nullIfEmpty(s.KeyHash), s.AccountID, s.CreatedAt, s.LastSeenAt, s.ExpiresAt.UTC())
	return s, err
}

// ConsoleSessionByToken reads the session a token's hash names, revoked
// or expired ones included (the caller decides).
func (db *DB) ConsoleSessionByToken(ctx context.Context, tokenHash string) (ConsoleSession, error) {
	var (
		s             ConsoleSession
		user, keyHash sql.NullString
		revoked       sql.NullTime
	)
	err := db.R.QueryRowContext(ctx, `SELECT id, user_id, key_hash, account_id, created_at, last_seen_at, expires_at, revoked_at
		FROM console_sessions WHERE token_hash = $1`, tokenHash).
		Scan(&s.ID, &user, &keyHash, &s.AccountID, &s.CreatedAt, &s.LastSeenAt, &s.ExpiresAt, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return ConsoleSession{}, ErrNotFound
	}
	if err != nil {
		return ConsoleSession{}, err
	}
	s.UserID, s.KeyHash = user.String, keyHash.String
	if revoked.Valid {
		t := revoked.Time
		s.RevokedAt = &t
	}
	return s, nil
}

// TouchConsoleSession records activity, which pushes the idle expiry.
func (db *DB) TouchConsoleSession(ctx context.Context, id string) error {
	_, err := db.W.ExecContext(ctx, `UPDATE console_sessions SET last_seen_at = $1 WHERE id = $2`, Now(), id)
	return err
}

// SetConsoleSessionAccount switches the account a session acts in.
func (db *DB) SetConsoleSessionAccount(ctx context.Context, id, accountID string) error {
	_, err := db.W.ExecContext(ctx, `UPDATE console_sessions SET account_id = $1 WHERE id = $2`, accountID, id)
	return err
}

// RevokeConsoleSession ends one session (sign out).
func (db *DB) RevokeConsoleSession(ctx context.Context, id string) error {
	_, err := db.W.ExecContext(ctx, `UPDATE console_sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, Now(), id)
	return err
}

// RevokeConsoleSessionsOf ends every session of the same signer as s (sign
// out everywhere): all of its user's sessions, or, for a key made without
// a user, all sessions opened with that key. It returns how many ended.
func (db *DB) RevokeConsoleSessionsOf(ctx context.Context, s ConsoleSession) (int64, error) {
	q, arg := `UPDATE console_sessions SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL`, s.UserID
	if s.UserID == "" {
		q, arg = `UPDATE console_sessions SET revoked_at = $1 WHERE key_hash = $2 AND revoked_at IS NULL`, s.KeyHash
	}
	res, err := db.W.ExecContext(ctx, q, Now(), arg)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// DeleteExpiredConsoleSessions removes sessions past their absolute
// expiry, or revoked, before the given time.
func (db *DB) DeleteExpiredConsoleSessions(ctx context.Context, before time.Time) error {
	_, err := db.W.ExecContext(ctx, `DELETE FROM console_sessions WHERE expires_at < $1 OR revoked_at < $1`, before.UTC())
	if err != nil {
		return err
	}
	_, err = db.W.ExecContext(ctx, `DELETE FROM console_signin_links WHERE expires_at < $1`, before.UTC())
	return err
}

// CreateSigninLink stores a one-time sign-in link for a user.
func (db *DB) CreateSigninLink(ctx context.Context, userID, tokenHash string, expiresAt time.Time) error {
	_, err := db.W.ExecContext(ctx, `INSERT INTO console_signin_links (id, token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
		NewID(), tokenHash, userID, Now(), expiresAt.UTC())
	return err
}

// UseSigninLink spends a link: it returns its user the first time, within
// its lifetime, and ErrNotFound ever after (or for an unknown link). The
// single UPDATE makes two concurrent uses impossible.
func (db *DB) UseSigninLink(ctx context.Context, tokenHash string) (string, error) {
	now := Now()
	var user string
	err := db.W.QueryRowContext(ctx, `UPDATE console_signin_links SET used_at = $1
		WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING user_id`, now, tokenHash).Scan(&user)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return user, err
}
