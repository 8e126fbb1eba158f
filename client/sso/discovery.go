package sso

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/coreos/go-oidc/v3/oidc"
)

// Provider is what discovery tells about an identity provider.
type Provider struct {
	Issuer          string
	AuthURL         string
	TokenURL        string
	DeviceAuthURL   string // empty when the provider has no device flow
	ScopesSupported []string
	oidc            *oidc.Provider
}

// SupportsDevice reports whether the discovery document advertises a
// device_authorization_endpoint.
func (p *Provider) SupportsDevice() bool { return p.DeviceAuthURL != "" }

// Discover reads the provider's /.well-known/openid-configuration.
func Discover(ctx context.Context, issuer string, hc *http.Client) (*Provider, error) {
	if hc != nil {
		ctx = oidc.ClientContext(ctx, hc)
	}
	op, err := oidc.NewProvider(ctx, issuer)
	if err != nil {
		return nil, fmt.Errorf("discover identity provider %s: %w", issuer, err)
	}
	var extra struct {
		ScopesSupported []string `json:"scopes_supported"`
	}
	_ = op.Claims(&extra)
	ep := op.Endpoint()
	return &Provider{Issuer: issuer, AuthURL: ep.AuthURL, TokenURL: ep.TokenURL, DeviceAuthURL: ep.DeviceAuthURL,
		ScopesSupported: extra.ScopesSupported, oidc: op}, nil
}

// Scopes are the scopes a login asks for: openid, profile and email, plus
// offline_access (a refresh token) when the provider lists it. Asking for a
// scope a provider does not list makes some providers refuse the login, so
// only advertised extras are requested.
func (p *Provider) Scopes() []string {
	scopes := []string{oidc.ScopeOpenID}
	for _, s := range []string{"profile", "email", oidc.ScopeOfflineAccess} {
		if len(p.ScopesSupported) == 0 && s != oidc.ScopeOfflineAccess {
			scopes = append(scopes, s)
			continue
		}
		if slices.Contains(p.ScopesSupported, s) {
			scopes = append(scopes, s)
		}
	}
	return scopes
}

// verifyIDToken checks the ID token's signature, audience, expiry and
// nonce, so a login never caches a token the provider did not issue for
// this client and this login attempt.
func (p *Provider) verifyIDToken(ctx context.Context, raw, clientID, nonce string, hc *http.Client) error {
	if raw == "" {
		return nil // some providers issue no ID token on refresh or device grants
	}
	if hc != nil {
		ctx = oidc.ClientContext(ctx, hc)
	}
	idt, err := p.oidc.Verifier(&oidc.Config{ClientID: clientID}).Verify(ctx, raw)
	if err != nil {
		return fmt.Errorf("verify ID token: %w", err)
	}
	if nonce != "" && idt.Nonce != nonce {
		return fmt.Errorf("verify ID token: nonce mismatch")
	}
	return nil
}
