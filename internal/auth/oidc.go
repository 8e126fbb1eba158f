package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
)

// OIDC verifies bearer JWTs from one identity provider, found by discovery.
// Discovery runs on first use and is retried on later requests if the
// provider was unreachable, so the API starts even while the IdP is down.
type OIDC struct {
	issuer    string
	audiences []string

	mu       sync.Mutex
	verifier *oidc.IDTokenVerifier
	lastTry  time.Time
}

// Identity is what a verified token says about its subject.
type Identity struct {
	Issuer, Subject, Email, Name string
	// Nonce is the token's nonce claim, which a sign-in flow checks
	// against the one it sent.
	Nonce string
}

// NewOIDC configures verification for tokens from issuer aimed at any of
// the comma-separated audiences: typically the CLI's client id (its ID
// tokens) and the API's own audience (access tokens).
func NewOIDC(issuer, audiences string) (*OIDC, error) {
	var auds []string
	for _, a := range strings.Split(audiences, ",") {
		if a = strings.TrimSpace(a); a != "" {
			auds = append(auds, a)
		}
	}
	if issuer == "" || len(auds) == 0 {
		return nil, errors.New("OIDC needs both an issuer and an audience")
	}
	return &OIDC{issuer: issuer, audiences: auds}, nil
}

func (o *OIDC) get(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.verifier != nil {
		return o.verifier, nil
	}
	if time.Since(o.lastTry) < 2*time.Second {
		return nil, errors.New("identity provider discovery failed recently")
	}
	o.lastTry = time.Now()
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p, err := oidc.NewProvider(dctx, o.issuer)
	if err != nil {
		return nil, fmt.Errorf("oidc discovery: %w", err)
	}
	// The signature, issuer and expiry are checked through the provider's
	// JWKS; the audience is checked in Verify, against every accepted one.
	o.verifier = p.Verifier(&oidc.Config{SkipClientIDCheck: true})
	return o.verifier, nil
}

// Verify checks a token and returns its identity.
func (o *OIDC) Verify(ctx context.Context, raw string) (Identity, error) {
	v, err := o.get(ctx)
	if err != nil {
		return Identity{}, err
	}
	tok, err := v.Verify(ctx, raw)
	if err != nil {
		return Identity{}, err
	}
	if !slices.ContainsFunc(tok.Audience, func(a string) bool { return slices.Contains(o.audiences, a) }) {
		return Identity{}, fmt.Errorf("token audience %v is not accepted", tok.Audience)
	}
	var claims struct {
		Email             string `json:"email"`
		Name              string `json:"name"`
		PreferredUsername string `json:"preferred_username"`
	}
	_ = tok.Claims(&claims)
	name := claims.Name
	if name == "" {
		name = claims.PreferredUsername
	}
	return Identity{Issuer: tok.Issuer, Subject: tok.Subject, Email: claims.Email, Name: name, Nonce: tok.Nonce}, nil
}

// Endpoint is the provider's OAuth endpoints, found by discovery, for a
// sign-in flow (the web console's).
func (o *OIDC) Endpoint(ctx context.Context) (authURL, tokenURL string, err error) {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p, err := oidc.NewProvider(dctx, o.issuer)
	if err != nil {
		return "", "", fmt.Errorf("oidc discovery: %w", err)
	}
	e := p.Endpoint()
	return e.AuthURL, e.TokenURL, nil
}
