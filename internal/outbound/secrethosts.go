package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Account secrets are bound to the hosts they may be sent to: whoever
// stores a secret (an owner or admin) names them, and every request that
// carries the secret, or anything made from it (a signature), must go to
// one of them. A member who writes a step can choose where it connects,
// but not where an owner's secret goes.

// MaxSecretHosts bounds the hosts one secret is bound to.
const MaxSecretHosts = 16

// ErrSecretHost is a request carrying a secret to a host it is not bound to.
var ErrSecretHost = errors.New("account secret not bound to this host")

// HostPatternDoc says what a host pattern is, for error messages and docs.
const HostPatternDoc = "a host name or IP address, optionally with :port, or *.domain for every subdomain of a domain " +
	"(no scheme or path); without a port only the default port of the URL's scheme (443 for https, 80 for http) matches"

// ParseHostPattern checks a host pattern and returns it in canonical form
// (lower case, IPv6 in brackets, no trailing dot).
func ParseHostPattern(s string) (string, error) {
	orig := s
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || len(s) > 260 || strings.ContainsAny(s, "/?#@ \t") {
		return "", fmt.Errorf("%q is not a host pattern: want %s", orig, HostPatternDoc)
	}
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != p {
			return "", fmt.Errorf("%q: the port must be a number from 1 to 65535", orig)
		}
	} else if strings.Count(s, ":") > 1 && !strings.HasPrefix(s, "[") {
		// A bare IPv6 address without brackets or port.
		host = s
	} else if strings.Contains(s, ":") && !strings.HasSuffix(s, "]") {
		return "", fmt.Errorf("%q is not a host pattern: want %s", orig, HostPatternDoc)
	}
	host = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ".")
	wildcard := strings.HasPrefix(host, "*.")
	name := strings.TrimPrefix(host, "*.")
	if ip, err := netip.ParseAddr(name); err == nil {
		if wildcard || ip.Zone() != "" {
			return "", fmt.Errorf("%q: an IP address takes no wildcard or zone", orig)
		}
		host = ip.String()
		if ip.Is6() {
			host = "[" + host + "]"
		}
	} else if !validDNSName(name) || (wildcard && !strings.Contains(name, ".")) {
		// *.com would bind a secret to a whole top-level domain.
		return "", fmt.Errorf("%q is not a host pattern: want %s", orig, HostPatternDoc)
	} else {
		host = name
		if wildcard {
			host = "*." + name
		}
	}
	if port != "" {
		return host + ":" + port, nil
	}
	return host, nil
}

func validDNSName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// HostAllowed reports whether a request to u may carry a secret bound to
// patterns (canonical, as ParseHostPattern returns them).
func HostAllowed(patterns []string, u *url.URL) bool {
	if u == nil {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		host = ip.String()
		if ip.Is6() {
			host = "[" + host + "]"
		}
	}
	port := u.Port()
	defaultPort := map[string]string{"https": "443", "http": "80"}[strings.ToLower(u.Scheme)]
	if port == "" {
		port = defaultPort
	}
	for _, p := range patterns {
		ph, pp := p, ""
		if i := strings.LastIndex(p, ":"); i >= 0 && !strings.HasSuffix(p, "]") {
			ph, pp = p[:i], p[i+1:]
		}
		if pp == "" {
			pp = defaultPort
		}
		if pp == "" || pp != port {
			continue
		}
		if suffix, ok := strings.CutPrefix(ph, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if host == ph {
			return true
		}
	}
	return false
}

// SecretBinding is one secret a request carries: its name, for messages,
// and the hosts it may go to.
type SecretBinding struct {
	Name  string
	Hosts []string
}

// CheckSecretHosts returns an ErrSecretHost naming the first secret that u
// may not carry.
func CheckSecretHosts(bindings []SecretBinding, u *url.URL) error {
	for _, b := range bindings {
		if HostAllowed(b.Hosts, u) {
			continue
		}
		where := "any host"
		if len(b.Hosts) > 0 {
			where = strings.Join(b.Hosts, ", ")
		} else {
			return fmt.Errorf("%w: account secret %q is bound to no host yet, so it is sent nowhere; an owner or admin binds it "+
				"with PUT /secrets/%s {\"hosts\": [...]} (or `agentry secrets bind %s --host …`)", ErrSecretHost, b.Name, b.Name, b.Name)
		}
		return fmt.Errorf("%w: account secret %q may not be sent to %s; it is bound to %s (an owner or admin sets its hosts)",
			ErrSecretHost, b.Name, u.Host, where)
	}
	return nil
}

// GuardSecrets returns a copy of c whose every request — redirects
// included — is refused unless every binding allows its host, so a secret
// reaches only its hosts whatever builds the request (an SDK choosing a
// virtual-hosted bucket name, a server answering with a redirect).
func GuardSecrets(c *http.Client, bindings []SecretBinding) *http.Client {
	if len(bindings) == 0 {
		return c
	}
	out := *c
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = secretGuard{base: base, bindings: bindings}
	return &out
}

type secretsKey struct{}

// WithSecrets returns ctx carrying the bindings of the secrets a request
// made with it carries: every client of this package (Policy.Client)
// refuses such a request, and each redirect of it, to a host that one of
// them is not bound to. Bindings add up over nested calls.
func WithSecrets(ctx context.Context, bindings []SecretBinding) context.Context {
	if len(bindings) == 0 {
		return ctx
	}
	prev, _ := ctx.Value(secretsKey{}).([]SecretBinding)
	return context.WithValue(ctx, secretsKey{}, append(append([]SecretBinding{}, prev...), bindings...))
}

// checkContextSecrets refuses a request whose context carries a secret
// not bound to its host.
func checkContextSecrets(r *http.Request) error {
	bs, _ := r.Context().Value(secretsKey{}).([]SecretBinding)
	return CheckSecretHosts(bs, r.URL)
}

type secretGuard struct {
	base     http.RoundTripper
	bindings []SecretBinding
}

func (g secretGuard) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := CheckSecretHosts(g.bindings, r.URL); err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, err
	}
	return g.base.RoundTrip(r)
}
