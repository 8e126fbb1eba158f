package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// Option configures a Client.
type Option func(*settings) error

// settings collects the options before New resolves them.
type settings struct {
	baseURL      string
	httpClient   *http.Client
	apiKey       string
	token        string
	tokenFunc    func(context.Context) (string, error)
	headers      []headerEntry // in option order; see mergeHeaders
	allowUnknown bool
	profile      string
	configDir    string
	userAgent    string
	getenv       func(string) string
	retry        *RetryPolicy // nil: DefaultRetryPolicy
}

// WithBaseURL sets the server's URL (before SERVICE_API_URL and the default).
func WithBaseURL(u string) Option {
	return func(s *settings) error { s.baseURL = u; return nil }
}

// WithHTTPClient sets the HTTP client. Its Timeout, if any, also bounds
// event streams and downloads; prefer contexts for deadlines.
func WithHTTPClient(hc *http.Client) Option {
	return func(s *settings) error {
		if hc == nil {
			return errors.New("WithHTTPClient: nil client")
		}
		s.httpClient = hc
		return nil
	}
}

// WithAPIKey sends key as X-API-Key. It takes precedence over every other
// credential.
func WithAPIKey(key string) Option {
	return func(s *settings) error { s.apiKey = key; return nil }
}

// WithToken sends "Authorization: Bearer token" (an OAuth access token, or
// an API key, which the server accepts as a bearer too).
func WithToken(token string) Option {
	return func(s *settings) error { s.token = token; return nil }
}

// WithTokenFunc calls f before every request for the bearer token to send,
// so a caller can refresh tokens its own way. An error from f fails the
// request before anything is sent.
func WithTokenFunc(f func(context.Context) (string, error)) Option {
	return func(s *settings) error { s.tokenFunc = f; return nil }
}

// WithAccountID sends X-Account-Id, switching requests to an organization
// account the caller belongs to (OAuth only; API keys act in their own
// account and the server ignores the header for them).
func WithAccountID(id string) Option {
	return func(s *settings) error {
		s.headers = append(s.headers, headerEntry{AccountHeader, id})
		return nil
	}
}

// WithAPIVersion sends Service-Version: v on every request. It is one
// header entry among the others: a later WithHeader or call option for the
// same header replaces it, and the merged value is what gets validated.
func WithAPIVersion(v string) Option {
	return func(s *settings) error {
		s.headers = append(s.headers, headerEntry{VersionHeader, v})
		return nil
	}
}

// WithHeader adds a default header to every request. Names are
// case-insensitive; the last entry for a name wins; an empty value removes
// the header.
func WithHeader(name, value string) Option {
	return func(s *settings) error {
		if !validHeaderName(name) {
			return fmt.Errorf("WithHeader: %q is not a valid header name", name)
		}
		s.headers = append(s.headers, headerEntry{name, value})
		return nil
	}
}

// WithUnknownVersions lets the client send a Service-Version it was not
// built for (a well-formed date is still required). Responses of such a
// version may not fit this client's types.
func WithUnknownVersions() Option {
	return func(s *settings) error { s.allowUnknown = true; return nil }
}

// WithProfile selects the SSO profile (before SERVICE_PROFILE and "default").
func WithProfile(name string) Option {
	return func(s *settings) error { s.profile = name; return nil }
}

// WithConfigDir sets the directory of the configuration file and token
// cache (before SERVICE_CONFIG_DIR and ~/.service).
func WithConfigDir(dir string) Option {
	return func(s *settings) error { s.configDir = dir; return nil }
}

// WithUserAgent prefixes the User-Agent header, e.g. "my-tool/1.2".
func WithUserAgent(ua string) Option {
	return func(s *settings) error { s.userAgent = ua; return nil }
}

// WithEnv replaces os.Getenv for the SERVICE_* variables, so a program can
// build clients from another environment (and tests from a fake one).
func WithEnv(getenv func(string) string) Option {
	return func(s *settings) error { s.getenv = getenv; return nil }
}
