package web_test

import (
	"context"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/web"
)

func TestSigninWithKeyAndSignout(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		b := newBrowser(t, srv)

		// Signed out, a page sends to the sign-in form and back after.
		p := b.get("/console/account")
		if p.URL != "/console/signin" {
			t.Fatalf("signed out: ended at %s", p.URL)
		}
		p.mustContain(t, "API key", `name="next" value="/console/account"`)

		// A wrong key is refused with the reason.
		p = b.post("/console/signin", url.Values{"api_key": {"agk_not_a_real_key_0123456789abcdef"}, "next": {"/console/account"}})
		if p.Status != http.StatusUnauthorized {
			t.Fatalf("wrong key: %d", p.Status)
		}
		p.mustContain(t, "unknown or revoked")

		p = b.post("/console/signin", url.Values{"api_key": {srv.Key}, "next": {"/console/account"}})
		if p.Status != http.StatusOK || p.URL != "/console/account" {
			t.Fatalf("sign in: %d at %s", p.Status, p.URL)
		}
		p.mustContain(t, srv.AccountID, "Sign out everywhere")
		// The browser holds a session cookie, never the key.
		u, _ := url.Parse(srv.URL + "/console/")
		for _, c := range b.hc.Jar.Cookies(u) {
			if strings.Contains(c.Value, srv.Key) {
				t.Fatalf("cookie %s holds the key", c.Name)
			}
		}

		p = b.post("/console/signout", nil)
		if p.URL != "/console/signin" {
			t.Fatalf("sign out: ended at %s", p.URL)
		}
		if p = b.get("/console/account"); p.URL != "/console/signin" {
			t.Fatalf("after sign out: %s", p.URL)
		}
	})
}

func TestSessionCookieAndSecurityHeaders(t *testing.T) {
	srv := start(t, store.SQLite)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/console/signin", strings.NewReader(url.Values{"api_key": {srv.Key}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	// Without the pre-session cookie and token: refused.
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("sign in without CSRF token: %d", resp.StatusCode)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Fatalf("CSP %q", csp)
	}

	b := newBrowser(t, srv)
	b.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	b.get("/console/signin")
	p := b.post("/console/signin", url.Values{"api_key": {srv.Key}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("sign in: %d", p.Status)
	}
	var cookie string
	for _, c := range p.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "agentry_session=") {
			cookie = c
		}
	}
	for _, want := range []string{"HttpOnly", "SameSite=Lax", "Path=/console/"} {
		if !strings.Contains(cookie, want) {
			t.Fatalf("session cookie %q lacks %s", cookie, want)
		}
	}
	if strings.Contains(cookie, "Secure") {
		t.Fatalf("plain HTTP cookie marked Secure: %q", cookie)
	}

	// A signed-in form post from another origin is refused, token or not.
	form := url.Values{"csrf": {b.csrf}}
	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/console/signout/everywhere", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	if p := b.do(req); p.Status != http.StatusForbidden {
		t.Fatalf("cross-origin post: %d", p.Status)
	}
	// A post without the token is refused.
	if p := b.post("/console/signout/everywhere", url.Values{"csrf": {"forged"}}); p.Status != http.StatusForbidden {
		t.Fatalf("post with a forged token: %d", p.Status)
	}
}

func TestSignoutEverywhereAndRevokedKey(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ten := srv.NewTenant(t, "bea")
		one, two := newBrowser(t, srv), newBrowser(t, srv)
		one.signInWithKey(ten.Key)
		two.signInAs(ten.UserID)
		if p := two.get("/console/account"); p.Status != http.StatusOK {
			t.Fatalf("link session: %d", p.Status)
		}
		one.get("/console/account")
		one.post("/console/signout/everywhere", nil)
		if p := two.get("/console/account"); p.URL != "/console/signin" {
			t.Fatalf("other session still signed in after sign out everywhere: %s", p.URL)
		}

		// A session opened with a key ends when the key is revoked.
		three := newBrowser(t, srv)
		three.signInWithKey(ten.Key)
		keys, err := auth.APIKeys(context.Background(), srv.DB, ten.AccountID)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if err := auth.RevokeAPIKey(context.Background(), srv.DB, k.ID); err != nil {
				t.Fatal(err)
			}
		}
		// The authenticator trusts a verified key for AuthCacheTTL (2 s):
		// wait for the revocation to reach it, as any client would.
		deadline := time.Now().Add(10 * time.Second)
		for {
			p := three.get("/console/account")
			if p.Status == http.StatusUnauthorized {
				p.mustContain(t, "Sign in again")
				break
			}
			if p.Status != http.StatusOK || time.Now().After(deadline) {
				t.Fatalf("revoked key's session: %d", p.Status)
			}
			runtime.Gosched()
		}
	})
}

func TestRootRedirectsAndConsoleOff(t *testing.T) {
	srv := start(t, store.SQLite)
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/console/" {
		t.Fatalf("/: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}

	off := testserver.Start(t, store.SQLite, func(c *server.Config) { c.Console = false })
	for _, path := range []string{"/", "/console/signin"} {
		resp, err := hc.Get(off.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("console off, %s: %d", path, resp.StatusCode)
		}
	}
}

// Sessions end after the idle time and at their absolute expiry, on any
// replica (they are rows of the database), and ended ones are swept.
func TestSessionExpiry(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		idle, absolute := newBrowser(t, srv), newBrowser(t, srv)
		idle.signInWithKey(srv.Key)
		absolute.signInWithKey(srv.Key)
		sessionOf := func(b *browser) string {
			u, _ := url.Parse(srv.URL + "/console/")
			for _, c := range b.hc.Jar.Cookies(u) {
				if c.Name == "agentry_session" {
					return hashOf(c.Value)
				}
			}
			t.Fatal("no session cookie")
			return ""
		}
		// 13 hours without a request: past the 12 h idle default.
		if _, err := srv.DB.W.ExecContext(ctx, `UPDATE console_sessions SET last_seen_at = $1 WHERE token_hash = $2`,
			time.Now().Add(-13*time.Hour).UTC(), sessionOf(idle)); err != nil {
			t.Fatal(err)
		}
		// Active, but past its absolute expiry.
		if _, err := srv.DB.W.ExecContext(ctx, `UPDATE console_sessions SET expires_at = $1 WHERE token_hash = $2`,
			time.Now().Add(-time.Minute).UTC(), sessionOf(absolute)); err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string]*browser{"idle": idle, "expired": absolute} {
			if p := b.get("/console/account"); p.URL != "/console/signin" {
				t.Errorf("%s session still signed in: %s", name, p.URL)
			}
		}
		// The next sign-in sweeps the expired session away.
		absoluteHash := sessionOf(absolute)
		newBrowser(t, srv).signInWithKey(srv.Key)
		if _, err := web.SessionByTokenHash(ctx, srv.DB, absoluteHash); err != store.ErrNotFound {
			t.Errorf("expired session not swept: %v", err)
		}
	})
}

// A user in several accounts switches between them; the API checks the
// membership, and a key's session cannot switch.
func TestOrganizationSwitcher(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		ada := srv.NewTenant(t, "ada")
		org, err := directory.CreateAccount(ctx, srv.DB, directory.KindOrganization, "Acme", 1000)
		if err != nil {
			t.Fatal(err)
		}
		if err := directory.AddMember(ctx, srv.DB, org.ID, ada.UserID, store.RoleMember); err != nil {
			t.Fatal(err)
		}
		srv.StoreAgent(t, org.ID, "Acme agent", `{"name": "Acme agent", "child_steps": []}`, "dynamic_input")

		b := newBrowser(t, srv)
		b.signInAs(ada.UserID)
		if p := b.get("/console/agents"); strings.Contains(p.Body, "Acme agent") {
			t.Fatal("the personal account lists the organization's agent")
		}
		p := b.get("/console/account")
		p.mustContain(t, "Acme", `value="`+org.ID+`"`)
		if p = b.post("/console/account/switch", url.Values{"account_id": {org.ID}}); p.Status != http.StatusOK {
			t.Fatalf("switch: %d", p.Status)
		}
		b.get("/console/agents").mustContain(t, "Acme agent")
		// Not a member: refused.
		stranger, err := directory.CreateAccount(ctx, srv.DB, directory.KindOrganization, "Other", 1000)
		if err != nil {
			t.Fatal(err)
		}
		b.get("/console/account")
		if p = b.post("/console/account/switch", url.Values{"account_id": {stranger.ID}}); p.Status != http.StatusForbidden {
			t.Fatalf("switch to a stranger's organization: %d", p.Status)
		}
		// Removed from the organization: the API refuses at once.
		if err := directory.RemoveMember(ctx, srv.DB, org.ID, ada.UserID); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			p = b.get("/console/agents")
			if p.Status == http.StatusForbidden {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("removed member still sees the organization: %d", p.Status)
			}
			runtime.Gosched()
		}
		// A key's session acts in its account only.
		k := newBrowser(t, srv)
		k.signInWithKey(ada.Key)
		k.get("/console/account")
		if p = k.post("/console/account/switch", url.Values{"account_id": {org.ID}}); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("key session switch: %d", p.Status)
		}
	})
}
