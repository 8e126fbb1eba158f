package web_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/admin"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/web"
)

var linkPattern = regexp.MustCompile(`https?://\S+(/console/signin/link/acl_[A-Za-z0-9_-]+)`)

// useLink opens a sign-in link and confirms it, as a person would.
func (b *browser) useLink(path string) page {
	b.t.Helper()
	p := b.get(path)
	p.mustContain(b.t, "Sign in with a one-time link")
	return b.post("/console/signin/link", url.Values{"token": {strings.TrimPrefix(path, "/console/signin/link/")}})
}

func TestFirstStartPrintsASigninLink(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		var out bytes.Buffer
		srv := testserver.StartPrinting(t, d, &out, func(c *server.Config) { c.PublicURL = "https://agentry.example" })
		printed := out.String()
		m := linkPattern.FindStringSubmatch(printed)
		if m == nil || !strings.Contains(printed, "https://agentry.example/console/signin/link/") || !strings.Contains(printed, "SERVICE_BOOTSTRAP_API_KEY") {
			t.Fatalf("first start printed no sign-in link next to the key:\n%s", printed)
		}
		b := newBrowser(t, srv)
		p := b.useLink(m[1])
		if p.Status != http.StatusOK {
			t.Fatalf("sign in with the link: %d\n%s", p.Status, p.Body)
		}
		b.get("/console/account").mustContain(t, srv.AccountID)

		// Single use: a second browser cannot use it again.
		again := newBrowser(t, srv).useLink(m[1])
		if again.Status != http.StatusGone {
			t.Fatalf("second use: %d", again.Status)
		}
	})
}

func TestAdminSigninLink(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		u, _, err := directory.CreateUser(context.Background(), srv.DB, directory.NewUser{Email: "ada@example.com", Name: "Ada", OpeningCredits: 10})
		if err != nil {
			t.Fatal(err)
		}
		adminRun := func(args ...string) (string, error) {
			cmd := admin.Command()
			var out bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(io.Discard)
			cmd.SetArgs(append(args, "--database-url", srv.S.Config.DatabaseURL, "--data-dir", srv.S.Config.DataDir))
			err := cmd.ExecuteContext(context.Background())
			return out.String(), err
		}
		for _, ref := range []string{"ada@example.com", u.ID} {
			out, err := adminRun("signin-link", ref, "--url", srv.URL)
			if err != nil {
				t.Fatalf("signin-link %s: %v", ref, err)
			}
			if !strings.HasPrefix(out, srv.URL+"/console/signin/link/acl_") {
				t.Fatalf("signin-link printed %q", out)
			}
			b := newBrowser(t, srv)
			b.useLink(strings.TrimPrefix(strings.TrimSpace(out), srv.URL))
			b.get("/console/account").mustContain(t, u.PersonalAccountID)
		}
		if _, err := adminRun("signin-link", "nobody@example.com"); err == nil || !strings.Contains(err.Error(), "no user") {
			t.Fatalf("unknown user: %v", err)
		}

		// An expired link is refused.
		if err := web.CreateSigninLinkAt(context.Background(), srv.DB, u.ID, hashOf("acl_expired0123456789"), time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if p := newBrowser(t, srv).useLink("/console/signin/link/acl_expired0123456789"); p.Status != http.StatusGone {
			t.Fatalf("expired link: %d", p.Status)
		}
	})
}
