package web

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// The console keeps its own persistence (issue 31's vertical slices): its
// sessions (console_sessions) and one-time sign-in links
// (console_signin_links) are read and written only here. Everything else
// the console shows it reads through the API.
type sessionRepo struct{ db *store.DB }

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

// create stores a new session under its token's hash.
func (r sessionRepo) create(ctx context.Context, s ConsoleSession, tokenHash string) (ConsoleSession, error) {
	s.ID = store.NewID()
	now := store.Now()
	s.CreatedAt, s.LastSeenAt = now, now
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO console_sessions (id, token_hash, user_id, key_hash, account_id, created_at, last_seen_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		s.ID, tokenHash, store.NullIfEmpty(s.UserID), store.NullIfEmpty(s.KeyHash), s.AccountID, s.CreatedAt, s.LastSeenAt, s.ExpiresAt.UTC())
	return s, err
}

// byToken reads the session a token's hash names, revoked
// or expired ones included (the caller decides).
func (r sessionRepo) byToken(ctx context.Context, tokenHash string) (ConsoleSession, error) {
	var (
		s             ConsoleSession
		user, keyHash sql.NullString
		revoked       sql.NullTime
	)
	err := r.db.R.QueryRowContext(ctx, `SELECT id, user_id, key_hash, account_id, created_at, last_seen_at, expires_at, revoked_at
		FROM console_sessions WHERE token_hash = $1`, tokenHash).
		Scan(&s.ID, &user, &keyHash, &s.AccountID, &s.CreatedAt, &s.LastSeenAt, &s.ExpiresAt, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return ConsoleSession{}, store.ErrNotFound
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

// touch records activity, which pushes the idle expiry.
func (r sessionRepo) touch(ctx context.Context, id string) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE console_sessions SET last_seen_at = $1 WHERE id = $2`, store.Now(), id)
	return err
}

// setAccount switches the account a session acts in.
func (r sessionRepo) setAccount(ctx context.Context, id, accountID string) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE console_sessions SET account_id = $1 WHERE id = $2`, accountID, id)
	return err
}

// revoke ends one session (sign out).
func (r sessionRepo) revoke(ctx context.Context, id string) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE console_sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, store.Now(), id)
	return err
}

// revokeAllOf ends every session of the same signer as s (sign
// out everywhere): all of its user's sessions, or, for a key made without
// a user, all sessions opened with that key. It returns how many ended.
func (r sessionRepo) revokeAllOf(ctx context.Context, s ConsoleSession) (int64, error) {
	q, arg := `UPDATE console_sessions SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL`, s.UserID
	if s.UserID == "" {
		q, arg = `UPDATE console_sessions SET revoked_at = $1 WHERE key_hash = $2 AND revoked_at IS NULL`, s.KeyHash
	}
	res, err := r.db.W.ExecContext(ctx, q, store.Now(), arg)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// deleteExpired removes sessions past their absolute
// expiry, or revoked, before the given time.
func (r sessionRepo) deleteExpired(ctx context.Context, before time.Time) error {
	_, err := r.db.W.ExecContext(ctx, `DELETE FROM console_sessions WHERE expires_at < $1 OR revoked_at < $1`, before.UTC())
	if err != nil {
		return err
	}
	_, err = r.db.W.ExecContext(ctx, `DELETE FROM console_signin_links WHERE expires_at < $1`, before.UTC())
	return err
}

// createSigninLink stores a one-time sign-in link for a user.
func (r sessionRepo) createSigninLink(ctx context.Context, userID, tokenHash string, expiresAt time.Time) error {
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO console_signin_links (id, token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
		store.NewID(), tokenHash, userID, store.Now(), expiresAt.UTC())
	return err
}

// useSigninLink spends a link: it returns its user the first time, within
// its lifetime, and store.ErrNotFound ever after (or for an unknown link). The
// single UPDATE makes two concurrent uses impossible.
func (r sessionRepo) useSigninLink(ctx context.Context, tokenHash string) (string, error) {
	now := store.Now()
	var user string
	err := r.db.W.QueryRowContext(ctx, `UPDATE console_signin_links SET used_at = $1
		WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING user_id`, now, tokenHash).Scan(&user)
	if errors.Is(err, sql.ErrNoRows) {
		return "", store.ErrNotFound
	}
	return user, err
}
