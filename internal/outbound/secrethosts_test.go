package outbound

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

func TestHostPatterns(t *testing.T) {
	for in, want := range map[string]string{
		"API.Example.com.": "api.example.com", "minio.internal:9000": "minio.internal:9000", "*.Example.org": "*.example.org",
		"*.s3.example.com:443": "*.s3.example.com:443", "203.0.113.7": "203.0.113.7", "[2001:DB8::1]:8443": "[2001:db8::1]:8443",
		"::1": "[::1]", "[::1]": "[::1]", "127.0.0.1:8080": "127.0.0.1:8080",
	} {
		if got, err := ParseHostPattern(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "*", "*.com", "https://a.example", "a.example/x", "u@a.example", "a.example:0", "a.example:65536",
		"a.example:", "a.example:x", "-a.example", "a..example", "*.10.0.0.1", "fe80::1%eth0", "a b", strings.Repeat("a", 64) + ".example"} {
		if got, err := ParseHostPattern(bad); err == nil {
			t.Errorf("%q accepted as %q", bad, got)
		}
	}
	patterns := []string{"api.example.com", "minio.internal:9000", "*.s3.example.com", "[::1]:8443", "10.0.0.1"}
	for raw, want := range map[string]bool{
		"https://api.example.com/mcp":        true,
		"https://API.EXAMPLE.COM./mcp":       true,
		"http://api.example.com/":            true,
		"https://api.example.com:443/":       true,
		"https://api.example.com:8443/":      false, // another port on the same host
		"https://evil.api.example.com/":      false,
		"https://api.example.com.evil.test/": false,
		"http://minio.internal:9000/b/k":     true,
		"http://minio.internal/b/k":          false,
		"https://reports.s3.example.com/k":   true,
		"https://s3.example.com/k":           false, // the wildcard is for subdomains only
		"https://[::1]:8443/":                true,
		"https://[0:0::1]:8443/":             true,
		"http://10.0.0.1/":                   true,
		"http://10.0.0.1:81/":                false,
		"http://127.0.0.1:9000/":             false,
	} {
		u, _ := url.Parse(raw)
		if got := HostAllowed(patterns, u); got != want {
			t.Errorf("%s: %v, want %v", raw, got, want)
		}
	}
	if HostAllowed(nil, &url.URL{Scheme: "https", Host: "api.example.com"}) {
		t.Error("no patterns allowed a host")
	}
}

// A server on an allowed host that redirects elsewhere does not take the
// secret along: the redirect is refused before it is sent.
func TestSecretsFollowNoRedirectOffTheirHosts(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	bound := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusTemporaryRedirect)
	}))
	defer bound.Close()
	c := Policy{Allow: Loopback}.Client()
	bindings := []SecretBinding{{Name: "TOKEN", Hosts: []string{strings.TrimPrefix(bound.URL, "http://")}}}

	// Through the request's context (what MCP tools and webhooks use).
	req, _ := http.NewRequestWithContext(WithSecrets(context.Background(), bindings), http.MethodGet, bound.URL, nil)
	req.Header.Set("X-Token", "secret-value")
	if _, err := c.Do(req); !errors.Is(err, ErrSecretHost) || !strings.Contains(err.Error(), `"TOKEN"`) {
		t.Fatalf("redirect: %v", err)
	}
	// Through a wrapped client (what the S3 step uses).
	req, _ = http.NewRequest(http.MethodGet, bound.URL, nil)
	if _, err := GuardSecrets(c, bindings).Do(req); !errors.Is(err, ErrSecretHost) {
		t.Fatalf("redirect through GuardSecrets: %v", err)
	}
	if elsewhere.Load() != 0 {
		t.Fatalf("the redirect target got %d requests", elsewhere.Load())
	}
	// Without secrets the same redirect is followed.
	resp, err := c.Get(bound.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if elsewhere.Load() != 1 {
		t.Fatalf("plain redirect: %d", elsewhere.Load())
	}
}
