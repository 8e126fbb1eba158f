package auth

import (
	"context"

	"github.com/agentry/agentry/internal/store"
)

// Method says how a request authenticated.
type Method string

const (
	MethodAPIKey Method = "api_key"
	MethodOIDC   Method = "oidc"
	// MethodConsole is a web console session opened with a one-time link
	// or single sign-on: it acts as its user, like an OIDC token.
	MethodConsole Method = "console"
)

// Principal is who a request acts as, and in which account.
type Principal struct {
	Method    Method
	UserID    string // "" for a key made without a user
	AccountID string // the account every query of this request is scoped to
	Role      string // the principal's role in AccountID
	// AccountKind is personal or organization, when known without a query.
	AccountKind string
	KeyID       string // for API keys
	// Credential identifies the credential for rate limiting: one bucket per
	// key, or per user for OIDC tokens.
	Credential string
}

// CanAdminister reports whether the principal may change account settings.
func (p Principal) CanAdminister() bool {
	return p.Role == store.RoleOwner || p.Role == store.RoleAdmin
}

type principalKey struct{}

// FromContext returns the principal of an authenticated request.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// PrincipalContextKey is the context key under which the principal is stored;
// the HTTP layer sets it through its own context wrapper.
func PrincipalContextKey() any { return principalKey{} }
