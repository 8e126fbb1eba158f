package sso_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/client/sso"
	"github.com/agentry/agentry/client/sso/ssotest"
)

// TestBrowserLoginPKCE runs the authorization code flow against mockoidc with
// a real loopback redirect listener; the test is the browser.
func TestBrowserLoginPKCE(t *testing.T) {
	idp := ssotest.Start(t)
	idp.QueueUser("user-pkce", "ada@example.com")
	dir := t.TempDir()
	var seen []string
	tok, err := sso.Login(context.Background(), sso.LoginOptions{
		Profile: idp.Profile("default"), ConfigDir: dir, Flow: sso.FlowBrowser, Timeout: 20 * time.Second,
		OpenURL: func(u string) error { seen = append(seen, u); return ssotest.Browser(u) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 {
		t.Fatalf("browser opened %d times", len(seen))
	}
	q := mustQuery(t, seen[0])
	if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) < 43 || q.Get("state") == "" || q.Get("nonce") == "" {
		t.Fatalf("authorization URL lacks PKCE/state/nonce: %s", seen[0])
	}
	if ru, _ := url.Parse(q.Get("redirect_uri")); ru == nil || ru.Hostname() != "127.0.0.1" || ru.Path != "/callback" {
		t.Fatalf("redirect is not a loopback listener: %s", q.Get("redirect_uri"))
	}
	if tok.AccessToken == "" || tok.RefreshToken == "" || tok.IDToken == "" || tok.TokenEndpoint != idp.TokenEndpoint() {
		t.Fatalf("token = %+v", tok)
	}
	if tok.Claims()["sub"] != "user-pkce" {
		t.Fatalf("claims = %v", tok.Claims())
	}
	cached, err := sso.CacheFor(dir).Load(idp.Issuer(), idp.ClientID)
	if err != nil || cached.AccessToken != tok.AccessToken {
		t.Fatalf("login did not cache its token: %v", err)
	}
	st, _ := os.Stat(sso.CacheFor(dir).Path(idp.Issuer(), idp.ClientID))
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("cache file mode %v", st.Mode().Perm())
	}
	if err := sso.Logout(dir, idp.Profile("default")); err != nil {
		t.Fatal(err)
	}
	if _, err := sso.CacheFor(dir).Load(idp.Issuer(), idp.ClientID); !errors.Is(err, sso.ErrNotLoggedIn) {
		t.Fatalf("logout left the token: %v", err)
	}
}

// TestBrowserLoginPrintsURLWithoutBrowser: with no browser, the URL is
// printed and whoever opens it completes the login (here the test, reading
// the output as a user would).
func TestBrowserLoginPrintsURLWithoutBrowser(t *testing.T) {
	idp := ssotest.Start(t)
	out := newURLSniffer()
	go func() {
		if u, ok := <-out.urls; ok {
			_ = ssotest.Browser(u)
		}
	}()
	// mockoidc has no device endpoint, so auto falls back to the browser flow.
	tok, err := sso.Login(context.Background(), sso.LoginOptions{Profile: idp.Profile("default"), ConfigDir: t.TempDir(),
		Flow: sso.FlowAuto, Out: out, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken == "" {
		t.Fatal("no token")
	}
}

func TestBrowserLoginRejectsForgedState(t *testing.T) {
	idp := ssotest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := sso.Login(ctx, sso.LoginOptions{Profile: idp.Profile("default"), ConfigDir: t.TempDir(), Flow: sso.FlowBrowser,
		OpenURL: func(u string) error {
			q := mustQuery(t, u)
			forged := q.Get("redirect_uri") + "?code=stolen&state=not-ours"
			resp, err := http.Get(forged)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("forged redirect answered %d", resp.StatusCode)
			}
			return nil
		}})
	if err == nil {
		t.Fatal("a redirect with a foreign state completed the login")
	}
}

func TestDeviceFlowUnsupportedByProvider(t *testing.T) {
	idp := ssotest.Start(t)
	_, err := sso.Login(context.Background(), sso.LoginOptions{Profile: idp.Profile("default"), ConfigDir: t.TempDir(), Flow: sso.FlowDevice})
	if !errors.Is(err, sso.ErrDeviceUnsupported) {
		t.Fatalf("err = %v", err)
	}
}

// urlSniffer is the terminal a user reads: it passes on every URL printed.
type urlSniffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	sent map[string]bool
	urls chan string
}

func newURLSniffer() *urlSniffer {
	return &urlSniffer{sent: map[string]bool{}, urls: make(chan string, 4)}
}

var urlRE = regexp.MustCompile(`https?://\S+`)

func (s *urlSniffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	for _, u := range urlRE.FindAllString(s.buf.String(), -1) {
		if !s.sent[u] {
			s.sent[u] = true
			s.urls <- u
		}
	}
	return len(p), nil
}

func mustQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}
