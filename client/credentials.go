package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/agentry/agentry/client/sso"
)

// credential puts a request's authentication header in place.
type credential interface {
	apply(ctx context.Context, h http.Header) error
	// source names where the credential came from, for diagnostics
	// (`agentry auth status`) and tests.
	source() string
}

type apiKeyCredential struct{ key, from string }

func (c apiKeyCredential) apply(_ context.Context, h http.Header) error {
	h.Set(APIKeyHeader, c.key)
	return nil
}
func (c apiKeyCredential) source() string { return c.from }

type bearerCredential struct {
	token func(context.Context) (string, error)
	from  string
}

func (c bearerCredential) apply(ctx context.Context, h http.Header) error {
	tok, err := c.token(ctx)
	if err != nil {
		return fmt.Errorf("credentials (%s): %w", c.from, err)
	}
	if tok == "" {
		return fmt.Errorf("credentials (%s): empty token", c.from)
	}
	h.Set("Authorization", "Bearer "+tok)
	return nil
}
func (c bearerCredential) source() string { return c.from }

type noCredential struct{}

func (noCredential) apply(context.Context, http.Header) error { return nil }
func (noCredential) source() string                           { return "none" }

// Credential sources, in the order the chain tries them.
const (
	SourceAPIKeyOption = "api key option"
	SourceToken        = "token option"
	SourceTokenFunc    = "token function"
	SourceEnvAPIKey    = EnvAPIKey
	SourceSSOPrefix    = "sso profile "
	SourceNone         = "none"
)

// resolveCredential walks the chain: the API key option, the static token,
// the token function, SERVICE_API_KEY, then the SSO profile; the first that
// is set wins. It also returns the SSO profile when that is the credential,
// for its account id.
func resolveCredential(s *settings, hc *http.Client) (credential, *sso.Profile, error) {
	switch {
	case s.apiKey != "":
		return apiKeyCredential{s.apiKey, SourceAPIKeyOption}, nil, nil
	case s.token != "":
		tok := s.token
		return bearerCredential{func(context.Context) (string, error) { return tok, nil }, SourceToken}, nil, nil
	case s.tokenFunc != nil:
		return bearerCredential{s.tokenFunc, SourceTokenFunc}, nil, nil
	case s.getenv(EnvAPIKey) != "":
		return apiKeyCredential{s.getenv(EnvAPIKey), SourceEnvAPIKey}, nil, nil
	}
	dir := s.configDir
	if dir == "" {
		d, err := sso.ConfigDir(s.getenv)
		if err != nil {
			return noCredential{}, nil, nil // no home directory: no profiles either
		}
		dir = d
	}
	name := sso.ProfileName(s.profile, s.getenv)
	p, err := sso.LoadProfile(dir, name, s.getenv)
	if errors.Is(err, sso.ErrProfileNotFound) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("SSO profile %q: %w", name, err)
	}
	if !p.Configured() {
		return noCredential{}, nil, nil
	}
	ts, err := sso.NewTokenSource(dir, p, hc)
	if err != nil {
		return nil, nil, fmt.Errorf("SSO profile %q: %w", name, err)
	}
	return bearerCredential{ts.Bearer, SourceSSOPrefix + name}, &p, nil
}
