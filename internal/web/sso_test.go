package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/oauth2-proxy/mockoidc"
)

// Single sign-on against a real identity provider on loopback (mockoidc):
// the authorization-code flow with PKCE, through the browser's redirects.
func TestSingleSignOn(t *testing.T) {
	idp, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Shutdown() })
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := testserver.Start(t, d, func(c *server.Config) {
			c.OIDCIssuer, c.OIDCAudience = idp.Issuer(), idp.ClientID
			c.ConsoleOIDCClientID, c.ConsoleOIDCClientSecret = idp.ClientID, idp.ClientSecret
		})
		b := newBrowser(t, srv)
		p := b.get("/console/signin")
		p.mustContain(t, "Sign in with single sign-on")

		idp.QueueUser(&mockoidc.MockUser{Subject: "sso-ada-" + string(d), Email: "ada-" + string(d) + "@example.com", EmailVerified: true, PreferredUsername: "ada"})
		p = b.get("/console/signin/sso?next=" + url.QueryEscape("/console/account"))
		if p.Status != http.StatusOK || p.URL != "/console/account" {
			t.Fatalf("single sign-on: %d at %s\n%s", p.Status, p.URL, p.Body)
		}
		u, err := directory.UserByEmail(t.Context(), srv.DB, "ada-"+string(d)+"@example.com")
		if err != nil {
			t.Fatalf("the signed-in user: %v", err)
		}
		p.mustContain(t, u.PersonalAccountID)

		// A callback whose state does not match the one this browser
		// started is refused.
		other := newBrowser(t, srv)
		p = other.get("/console/signin/sso/callback?code=x&state=forged")
		if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "did not start here") {
			t.Fatalf("forged callback: %d", p.Status)
		}
	})
}
