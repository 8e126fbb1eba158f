// Package outbound owns the guard on HTTP requests the server makes on a
// tenant's behalf (webhook and S3 steps, feed polls, site crawls): an HTTP
// client that refuses private, loopback, link-local and other non-public
// addresses. The check runs on the address actually dialled, after DNS
// resolution, so a hostname that resolves to an internal address (DNS
// rebinding included) is refused too, and it runs again on every redirect
// because every redirect dials through the same guard.
package outbound

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress is a request aimed at a non-public address the policy
// does not allow.
var ErrForbiddenAddress = errors.New("refusing to connect to a private or loopback address (set SERVICE_ALLOW_PRIVATE_WEBHOOKS to allow)")

// Policy says which destinations an outbound client may reach. The zero
// value allows public addresses only.
type Policy struct {
	// AllowPrivate lets every non-public address through (an operator's
	// choice for a closed network).
	AllowPrivate bool
	// Allow lists non-public ranges that are allowed all the same, for an
	// operator who trusts one internal host, or a test serving on loopback.
	Allow []netip.Prefix
	// DialTimeout bounds connecting (10 s when zero).
	DialTimeout time.Duration
	// MaxRedirects bounds the redirects one request follows (5 when zero).
	MaxRedirects int
}

// Allowed reports whether the policy lets a request reach ip.
func (p Policy) Allowed(ip netip.Addr) bool {
	if p.AllowPrivate || Public(ip) {
		return true
	}
	ip = ip.WithZone("").Unmap()
	for _, pre := range p.Allow {
		if pre.Contains(ip) {
			return true
		}
	}
	return false
}

// Client returns a new HTTP client that enforces the policy. It has no
// overall timeout: callers bound each request with a context.
func (p Policy) Client() *http.Client {
	dt := p.DialTimeout
	if dt <= 0 {
		dt = 10 * time.Second
	}
	maxRedirects := p.MaxRedirects
	if maxRedirects <= 0 {
		maxRedirects = 5
	}
	d := &net.Dialer{Timeout: dt, KeepAlive: 30 * time.Second}
	if !p.AllowPrivate {
		allow := append([]netip.Prefix(nil), p.Allow...)
		pol := Policy{Allow: allow}
		d.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			ip, err := netip.ParseAddr(host)
			if err != nil {
				return err
			}
			if !pol.Allowed(ip) {
				return fmt.Errorf("%w: %s", ErrForbiddenAddress, ip)
			}
			return nil
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = d.DialContext
	tr.Proxy = nil // a proxy would hide the real destination from the guard
	return &http.Client{Transport: contextSecretsGuard{tr}, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return errors.New("too many redirects")
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("refusing a redirect to a %s URL", req.URL.Scheme)
		}
		return nil
	}}
}

// Loopback is the ranges a test server on this machine listens on.
var Loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// contextSecretsGuard refuses a request whose context carries account
// secrets (WithSecrets) that are not bound to its host.
type contextSecretsGuard struct{ base http.RoundTripper }

func (g contextSecretsGuard) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := checkContextSecrets(r); err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, err
	}
	return g.base.RoundTrip(r)
}
