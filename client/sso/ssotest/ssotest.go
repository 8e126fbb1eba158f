// Package ssotest runs a real OIDC identity provider (mockoidc) on a
// loopback port for tests of SSO logins, token refresh and bearer
// authentication, and plays the user's browser. It is for tests only.
package ssotest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client/sso"
	"github.com/oauth2-proxy/mockoidc"
)

// Provider is a running mockoidc.
type Provider struct {
	*mockoidc.MockOIDC
}

// Start runs a provider until the test ends.
func Start(t testing.TB) *Provider {
	t.Helper()
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatalf("start mockoidc: %v", err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return &Provider{m}
}

// Profile is an SSO profile pointing at the provider: its issuer URL as the
// domain, its client id and (mockoidc requires one) client secret.
func (p *Provider) Profile(name string) sso.Profile {
	return sso.Profile{Name: name, Domain: p.Issuer(), ClientID: p.ClientID, ClientSecret: p.ClientSecret}
}

// QueueUser makes the next authorization approve as this user.
func (p *Provider) QueueUser(subject, email string) {
	p.MockOIDC.QueueUser(&mockoidc.MockUser{Subject: subject, Email: email, EmailVerified: true,
		PreferredUsername: strings.Split(email, "@")[0]})
}

// Browser plays the user's browser: it follows the authorization URL
// through the provider (which approves at once as the queued user) to the
// redirect, wherever that points, and fails unless the last page is a 200.
func Browser(authURL string) error {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(authURL)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("browser: %s ended at %s with %s", authURL, resp.Request.URL, resp.Status)
	}
	return nil
}

// Tokens are what the provider's token endpoint answered.
type Tokens struct {
	AccessToken  string `json:"access_token"`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token"`
}

// Issue runs the authorization code flow over plain HTTP (no listener: the
// redirect is read, not followed) and returns the tokens for a user.
func (p *Provider) Issue(t testing.TB, subject, email string) Tokens {
	t.Helper()
	p.QueueUser(subject, email)
	q := url.Values{"client_id": {p.ClientID}, "response_type": {"code"}, "scope": {"openid email profile"},
		"state": {"s"}, "redirect_uri": {"http://127.0.0.1:1/callback"}}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(p.AuthorizationEndpoint() + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		t.Fatalf("authorize answered %s without a code (Location %q)", resp.Status, resp.Header.Get("Location"))
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"client_id": {p.ClientID}, "client_secret": {p.ClientSecret}, "redirect_uri": {q.Get("redirect_uri")}}
	resp, err = http.PostForm(p.TokenEndpoint(), form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tk Tokens
	if err := json.NewDecoder(resp.Body).Decode(&tk); err != nil || tk.AccessToken == "" {
		t.Fatalf("token endpoint answered %s: %v", resp.Status, err)
	}
	return tk
}
