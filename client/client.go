package client

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Client calls the Agentry API. It is safe for concurrent use.
type Client struct {
	baseURL      *url.URL
	http         *http.Client
	cred         credential
	headers      http.Header // merged defaults: profile account id, options, default headers
	allowUnknown bool
	userAgent    string
	retry        RetryPolicy
}

// userAgent identifies this client in server logs.
const userAgent = "agentry-go-client"

// New builds a client. Everything is resolved once, here: the credential
// (first match wins: WithAPIKey, WithToken, WithTokenFunc, SERVICE_API_KEY,
// the SSO profile), the base URL (WithBaseURL, SERVICE_API_URL,
// DefaultBaseURL) and the default headers, merged in option order. A
// Service-Version the client was not built for is refused here, before any
// request, unless WithUnknownVersions is given.
func New(opts ...Option) (*Client, error) {
	s := &settings{getenv: os.Getenv}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	base, err := resolveBaseURL(s)
	if err != nil {
		return nil, err
	}
	hc := s.httpClient
	if hc == nil {
		// No overall timeout: streams and downloads may run for long.
		// Connection set-up and response headers are bounded instead.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ResponseHeaderTimeout = 5 * time.Minute
		hc = &http.Client{Transport: tr}
	}
	cred, profile, err := resolveCredential(s, hc)
	if err != nil {
		return nil, err
	}
	headers := http.Header{}
	// The profile's account comes first so that WithAccountID, a default
	// header or a call option can replace it.
	if profile != nil && profile.AccountID != "" {
		headers.Set(AccountHeader, profile.AccountID)
	}
	mergeHeaders(headers, s.headers)
	if err := validateHeaders(headers, s.allowUnknown); err != nil {
		return nil, err
	}
	ua := userAgent
	if s.userAgent != "" {
		ua = s.userAgent + " " + userAgent
	}
	retry := DefaultRetryPolicy()
	if s.retry != nil {
		retry = *s.retry
	}
	return &Client{baseURL: base, http: hc, cred: cred, headers: headers, allowUnknown: s.allowUnknown, userAgent: ua, retry: retry}, nil
}

// resolveBaseURL takes the option, then SERVICE_API_URL, then the default.
func resolveBaseURL(s *settings) (*url.URL, error) {
	raw := s.baseURL
	if raw == "" {
		raw = s.getenv(EnvAPIURL)
	}
	if raw == "" {
		raw = DefaultBaseURL
	}
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q must be an http(s) URL such as %s", raw, DefaultBaseURL)
	}
	return u, nil
}

// BaseURL is the server the client talks to.
func (c *Client) BaseURL() string { return c.baseURL.String() }

// CredentialSource names the credential the chain picked: "api key option",
// "token option", "token function", "SERVICE_API_KEY", "sso profile NAME"
// or "none".
func (c *Client) CredentialSource() string { return c.cred.source() }

// Header returns a copy of the default headers every request carries
// (after merging options; without credentials).
func (c *Client) Header() http.Header { return c.headers.Clone() }
