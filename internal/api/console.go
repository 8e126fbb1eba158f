package api

import (
	"context"

	"github.com/agentry/agentry/internal/auth"
)

type consoleCredentialKey struct{}

// WithConsoleCredential marks ctx as a web console request on behalf of a
// signed-in session: the API authenticates it as the session's key or user
// and then applies everything it applies to any client (roles, account
// scoping, versions, rate limits, validation). Only a context can carry
// it, so no network request can claim it: the console calls the API in
// process (internal/web).
func WithConsoleCredential(ctx context.Context, c auth.ConsoleCredential) context.Context {
	return context.WithValue(ctx, consoleCredentialKey{}, c)
}

func consoleCredential(ctx context.Context) *auth.ConsoleCredential {
	if c, ok := ctx.Value(consoleCredentialKey{}).(auth.ConsoleCredential); ok {
		return &c
	}
	return nil
}
