package web

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// CreateSigninLinkAt stores a sign-in link with the expiry given (one in
// the past, to test refusal).
func CreateSigninLinkAt(ctx context.Context, db *store.DB, userID, tokenHash string, expiresAt time.Time) error {
	return sessionRepo{db}.createSigninLink(ctx, userID, tokenHash, expiresAt)
}

// SessionByTokenHash reads the session a token's hash names.
func SessionByTokenHash(ctx context.Context, db *store.DB, tokenHash string) (ConsoleSession, error) {
	return sessionRepo{db}.byToken(ctx, tokenHash)
}
