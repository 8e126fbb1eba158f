package auth_test

// Server-side verification of OIDC bearer tokens, end to end: a real
// identity provider (mockoidc) issues the tokens, a real server verifies
// them on each database.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/oauth2-proxy/mockoidc"
)

func startIDP(t *testing.T) *mockoidc.MockOIDC {
	t.Helper()
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return m
}

// tokens are what the provider's token endpoint answers; both are JWTs
// signed by the provider with aud = its client id.
type tokens struct {
	AccessToken string `json:"access_token"`
	IDToken     string `json:"id_token"`
}

// issue runs the authorization code flow over HTTP for a user and returns
// the ID token, the bearer the agentry client sends.
func issue(t *testing.T, m *mockoidc.MockOIDC, subject, email string) string {
	t.Helper()
	return issueTokens(t, m, subject, email).IDToken
}

func issueTokens(t *testing.T, m *mockoidc.MockOIDC, subject, email string) tokens {
	t.Helper()
	m.QueueUser(&mockoidc.MockUser{Subject: subject, Email: email, EmailVerified: true, PreferredUsername: subject})
	redirect := "http://127.0.0.1:1/callback"
	q := url.Values{"client_id": {m.ClientID}, "response_type": {"code"}, "scope": {"openid email profile"},
		"state": {"st"}, "redirect_uri": {redirect}}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(m.AuthorizationEndpoint() + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if loc == nil || loc.Query().Get("code") == "" {
		t.Fatalf("authorize: %s, Location %q", resp.Status, resp.Header.Get("Location"))
	}
	resp, err = http.PostForm(m.TokenEndpoint(), url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"client_id": {m.ClientID}, "client_secret": {m.ClientSecret}, "redirect_uri": {redirect}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok tokens
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" || tok.IDToken == "" {
		t.Fatalf("token endpoint: %s %v", resp.Status, err)
	}
	return tok
}

func bearer(tok string) string { return "Authorization: Bearer " + tok }

func TestOIDCBearerTokens(t *testing.T) {
	idp := startIDP(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.OIDCIssuer, c.OIDCAudience = idp.Issuer(), idp.ClientID })
		ctx := context.Background()
		subject := "oidc-" + string(d)
		tok := issue(t, idp, subject, subject+"@example.com")

		if u := userBySubject(t, s, subject); u != nil {
			t.Fatalf("user exists before first sight: %+v", u)
		}
		// First sight: the user and a personal account are created.
		var me struct {
			AccountID     string `json:"account_id"`
			Organizations []struct {
				ID string `json:"id"`
			} `json:"organizations"`
		}
		r := s.Do(t, "GET", "/me", "", nil, bearer(tok))
		if r.Status != 200 {
			t.Fatalf("GET /me: %d %s", r.Status, r.Body)
		}
		r.JSON(t, &me)
		u := userBySubject(t, s, subject)
		if u == nil || u.PersonalAccountID != me.AccountID || u.OIDCIssuer != idp.Issuer() || u.Email != subject+"@example.com" {
			t.Fatalf("user after first sight: %+v (me %+v)", u, me)
		}
		acct, err := directory.GetAccount(ctx, s.DB, me.AccountID)
		if err != nil || acct.Kind != directory.KindPersonal {
			t.Fatalf("personal account: %+v, %v", acct, err)
		}
		if role, err := directory.Role(ctx, s.DB, acct.ID, u.ID); err != nil || role != store.RoleOwner {
			t.Fatalf("the user must own the personal account: %q, %v", role, err)
		}
		// Second sight, and an access token (also a JWT for the client id)
		// of the same user: the same user, no new account.
		for _, again := range []string{tok, issueTokens(t, idp, subject, subject+"@example.com").AccessToken} {
			r := s.Do(t, "GET", "/me", "", nil, bearer(again))
			if r.Status != 200 {
				t.Fatalf("GET /me again: %d %s", r.Status, r.Body)
			}
			r.JSON(t, &me)
			if me.AccountID != u.PersonalAccountID {
				t.Fatalf("a later request made another account: %s", me.AccountID)
			}
		}

		// X-Account-Id: an organization the user belongs to.
		org, err := directory.CreateOrganization(ctx, s.DB, "Acme", s.UserID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := directory.AddMember(ctx, s.DB, org.ID, u.ID, store.RoleMember); err != nil {
			t.Fatal(err)
		}
		r = s.Do(t, "GET", "/version", "", nil, bearer(tok), "X-Account-Id: "+org.ID)
		if r.Status != 200 {
			t.Fatalf("member organization: %d %s", r.Status, r.Body)
		}
		// The request acts in the organization with the member role: a
		// member may not pin the organization's version.
		r = s.Do(t, "PUT", "/version", "", map[string]any{"version": "2026-07-27"}, bearer(tok), "X-Account-Id: "+org.ID)
		if r.Status != 403 {
			t.Fatalf("member pinning the organization: %d %s", r.Status, r.Body)
		}
		s.Do(t, "GET", "/me", "", nil, bearer(tok)).JSON(t, &me)
		if len(me.Organizations) != 1 || me.Organizations[0].ID != org.ID {
			t.Fatalf("organizations = %+v", me.Organizations)
		}

		// An organization the user does not belong to: 403.
		other, _ := directory.CreateOrganization(ctx, s.DB, "Other", s.UserID, 0)
		if r = s.Do(t, "GET", "/me", "", nil, bearer(tok), "X-Account-Id: "+other.ID); r.Status != 403 {
			t.Fatalf("foreign organization: %d %s", r.Status, r.Body)
		}
		// A malformed X-Account-Id: 422 with the header's location.
		r = s.Do(t, "GET", "/me", "", nil, bearer(tok), "X-Account-Id: acme")
		if r.Status != 422 || !strings.Contains(string(r.Body), `"X-Account-Id"`) {
			t.Fatalf("malformed account id: %d %s", r.Status, r.Body)
		}

		// Tokens the server must refuse, each with a 401 and a challenge.
		idp.FastForward(-2 * time.Hour)
		expired := issue(t, idp, subject, subject+"@example.com")
		idp.FastForward(2 * time.Hour)
		stranger := startIDP(t) // another provider: another issuer and key
		foreign := issue(t, stranger, subject, subject+"@example.com")
		realID := idp.ClientID
		idp.ClientID = "some-other-client" // same provider and key, wrong audience
		wrongAud := issue(t, idp, subject, subject+"@example.com")
		idp.ClientID = realID
		parts := strings.Split(tok, ".")
		tampered := parts[0] + "." + parts[1] + "x." + parts[2]
		for name, bad := range map[string]string{
			"expired": expired, "garbage": "not.a.jwt", "other issuer": foreign,
			"wrong audience": wrongAud, "tampered": tampered,
		} {
			r := s.Do(t, "GET", "/me", "", nil, bearer(bad))
			if r.Status != 401 || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s token: %d, WWW-Authenticate %q", name, r.Status, r.Header.Get("WWW-Authenticate"))
			}
		}
		if r := s.Do(t, "GET", "/me", "", nil); r.Status != 401 || r.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("no credentials: %d", r.Status)
		}
	})
}

func userBySubject(t *testing.T, s *testserver.Server, subject string) *directory.User {
	t.Helper()
	users, err := directory.Users(context.Background(), s.DB)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if u.OIDCSubject == subject {
			return &u
		}
	}
	return nil
}

// TestOIDCAudiences accepts tokens for any configured audience (the CLI's
// client id, an API audience) and still refuses others.
func TestOIDCAudiences(t *testing.T) {
	idp := startIDP(t)
	cli := idp.ClientID
	s := testserver.Start(t, store.SQLite, func(c *server.Config) {
		c.OIDCIssuer, c.OIDCAudience = idp.Issuer(), "agentry-api, "+cli
	})
	fromCLI := issue(t, idp, "aud-user", "aud@example.com")
	idp.ClientID = "agentry-api"
	forAPI := issue(t, idp, "aud-user", "aud@example.com")
	idp.ClientID = "someone-else"
	other := issue(t, idp, "aud-user", "aud@example.com")
	idp.ClientID = cli
	for name, tc := range map[string]struct {
		tok  string
		want int
	}{"CLI client id": {fromCLI, 200}, "API audience": {forAPI, 200}, "unlisted audience": {other, 401}} {
		if r := s.Do(t, "GET", "/me", "", nil, bearer(tc.tok)); r.Status != tc.want {
			t.Errorf("%s: %d, want %d", name, r.Status, tc.want)
		}
	}
}
