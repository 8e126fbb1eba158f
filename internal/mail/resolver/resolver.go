// Package resolver owns the DNS lookups mail makes (domain verification,
// MX lookups for direct delivery): the system's resolver, or the one the
// operator names with SERVICE_DNS_RESOLVER (host:port), which tests point
// at a DNS server on loopback.
package resolver

import (
	"context"
	"errors"
	"net"
	"time"
)

// New returns a resolver asking addr (host:port), or the system's when
// addr is "".
func New(addr string) *net.Resolver {
	if addr == "" {
		return &net.Resolver{PreferGo: true}
	}
	d := net.Dialer{Timeout: 5 * time.Second}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}
}

// NotFound reports whether err says the name or record does not exist (as
// opposed to a lookup that failed).
func NotFound(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound
}
