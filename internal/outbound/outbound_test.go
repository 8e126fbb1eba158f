package outbound_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"

	"github.com/agentry/agentry/internal/outbound"
)

func get(t *testing.T, c *http.Client, u string) error {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, u, nil)
	resp, err := c.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	return err
}

func TestPolicy(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	if err := get(t, outbound.Policy{}.Client(), srv.URL); !errors.Is(err, outbound.ErrForbiddenAddress) {
		t.Errorf("default policy: %v", err)
	}
	if err := get(t, outbound.Policy{Allow: outbound.Loopback}.Client(), srv.URL); err != nil {
		t.Errorf("loopback allowed: %v", err)
	}
	if err := get(t, outbound.Policy{AllowPrivate: true}.Client(), srv.URL); err != nil {
		t.Errorf("private allowed: %v", err)
	}
	if hits.Load() != 2 {
		t.Errorf("%d hits", hits.Load())
	}
	p := outbound.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}
	for addr, want := range map[string]bool{"10.1.2.3": true, "10.2.0.1": false, "8.8.8.8": true, "::ffff:10.1.0.9": true, "127.0.0.1": false} {
		if got := p.Allowed(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Allowed(%s) = %v", addr, got)
		}
	}
}

// A redirect is dialled through the same guard: an allowed server that
// redirects to an address outside the policy is refused there.
func TestRedirectToDisallowedAddressIsRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("127.0.0.2 not available: %v", err)
	}
	var innerHits atomic.Int32
	inner := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { innerHits.Add(1) }))
	inner.Listener.Close()
	inner.Listener = ln
	inner.Start()
	defer inner.Close()
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/secret", http.StatusFound)
	}))
	defer outer.Close()

	only1 := outbound.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}.Client()
	if err := get(t, only1, outer.URL); !errors.Is(err, outbound.ErrForbiddenAddress) {
		t.Fatalf("redirect followed: %v", err)
	}
	if innerHits.Load() != 0 {
		t.Fatal("the disallowed server was reached")
	}
	if err := get(t, outbound.Policy{Allow: outbound.Loopback}.Client(), outer.URL); err != nil || innerHits.Load() != 1 {
		t.Fatalf("allowed redirect: %v, %d hits", err, innerHits.Load())
	}
}

func TestRedirectLoopsAndSchemesAreBounded(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/file" {
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("%s/again", srv.URL), http.StatusFound)
	}))
	defer srv.Close()
	c := outbound.Policy{Allow: outbound.Loopback, MaxRedirects: 3}.Client()
	if err := get(t, c, srv.URL); err == nil {
		t.Error("a redirect loop was followed")
	}
	if err := get(t, c, srv.URL+"/file"); err == nil {
		t.Error("a redirect to file: was followed")
	}
}
