package client_test

// The conventions of the client specification (docs/client.md) that need
// no server: SSO profiles and the credential chain, checked against a
// recording stand-in. The others run against a real server in
// internal/realclient.

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/client/sso"
)

var ctx = context.Background()

// Convention 3: SSO profiles come from ~/.service/config; the SERVICE_SSO_*
// variables override them, SERVICE_CONFIG_DIR moves the directory and
// SERVICE_PROFILE selects the profile.
func TestConvention3_Profiles(t *testing.T) {
	dir := isolate(t)
	rec := newRecorder(t)
	writeFile(t, sso.ConfigPath(dir), `
[default]
sso_domain = https://idp-a.example.com
sso_client_id = cli

[profile work]
sso_account_id = 0190a3c4-0000-7000-8000-0000000000aa

[profile regional]
sso_domain = login.{region}.example.com
sso_client_id = cli
`)
	cache := sso.CacheFor(dir)
	far := time.Now().Add(time.Hour)
	for _, tk := range []sso.Token{
		{Issuer: "https://idp-a.example.com", ClientID: "cli", AccessToken: "tok-default", Expiry: far},
		{Issuer: "https://idp-b.example.com", ClientID: "cli-env", AccessToken: "tok-work", Expiry: far},
		{Issuer: "https://login.eu.example.com", ClientID: "cli", AccessToken: "tok-eu", Expiry: far},
	} {
		if err := cache.Save(&tk); err != nil {
			t.Fatal(err)
		}
	}
	// A decoy in the default location proves SERVICE_CONFIG_DIR moved it.
	writeFile(t, os.Getenv("HOME")+"/.service/config", "[default]\nsso_domain = https://decoy.example.com\nsso_client_id = cli\n")

	send := func(opts ...client.Option) *http.Request {
		t.Helper()
		c, err := client.New(append([]client.Option{client.WithBaseURL(rec.URL)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Me(ctx); err != nil {
			t.Fatal(err)
		}
		return rec.last(t)
	}

	if r := send(); r.Header.Get("Authorization") != "Bearer tok-default" || r.Header.Get("X-Account-Id") != "" {
		t.Fatalf("default profile: %v", r.Header)
	}
	// SERVICE_PROFILE selects [profile work]; it holds only an account id,
	// and the provider comes from the environment.
	t.Setenv("SERVICE_PROFILE", "work")
	t.Setenv(sso.EnvDomain, "idp-b.example.com")
	t.Setenv(sso.EnvClientID, "cli-env")
	if r := send(); r.Header.Get("Authorization") != "Bearer tok-work" || r.Header.Get("X-Account-Id") != "0190a3c4-0000-7000-8000-0000000000aa" {
		t.Fatalf("work profile: %v", r.Header)
	}
	// The environment overrides the file's values too.
	t.Setenv("SERVICE_PROFILE", "")
	if r := send(); r.Header.Get("Authorization") != "Bearer tok-work" {
		t.Fatalf("SERVICE_SSO_DOMAIN/CLIENT_ID did not override [default]: %v", r.Header)
	}
	t.Setenv(sso.EnvDomain, "")
	t.Setenv(sso.EnvClientID, "")
	// SERVICE_SSO_REGION fills the domain's {region}; WithProfile beats SERVICE_PROFILE.
	t.Setenv("SERVICE_PROFILE", "work")
	t.Setenv(sso.EnvRegion, "eu")
	if r := send(client.WithProfile("regional")); r.Header.Get("Authorization") != "Bearer tok-eu" {
		t.Fatalf("regional profile: %v", r.Header)
	}
	t.Setenv(sso.EnvRegion, "us") // another region is another provider, not logged in
	before := rec.count()
	c, _ := client.New(client.WithBaseURL(rec.URL), client.WithProfile("regional"))
	if _, err := c.Me(ctx); !errors.Is(err, sso.ErrNotLoggedIn) || rec.count() != before {
		t.Fatalf("us region: %v (requests %d)", err, rec.count()-before)
	}
	if _, err := client.New(client.WithProfile("nope")); !errors.Is(err, sso.ErrProfileNotFound) {
		t.Fatalf("unknown profile: %v", err)
	}
}

// Convention 7: the credential chain is API key option, static token,
// token function, SERVICE_API_KEY, SSO profile; the base URL is the option,
// then SERVICE_API_URL, then http://127.0.0.1:8080.
func TestConvention7_CredentialChainAndBaseURL(t *testing.T) {
	dir := isolate(t)
	rec := newRecorder(t)
	writeFile(t, sso.ConfigPath(dir), "[default]\nsso_domain = idp.example.com\nsso_client_id = cli\n")
	_ = sso.CacheFor(dir).Save(&sso.Token{Issuer: "https://idp.example.com", ClientID: "cli", AccessToken: "sso-token", Expiry: time.Now().Add(time.Hour)})
	t.Setenv("SERVICE_API_KEY", "env-key")

	apiKey := client.WithAPIKey("option-key")
	token := client.WithToken("static-token")
	fn := client.WithTokenFunc(func(context.Context) (string, error) { return "func-token", nil })
	steps := []struct {
		opts          []client.Option
		unsetEnvKey   bool
		header, value string
		source        string
	}{
		{[]client.Option{fn, token, apiKey}, false, "X-API-Key", "option-key", client.SourceAPIKeyOption},
		{[]client.Option{fn, token}, false, "Authorization", "Bearer static-token", client.SourceToken},
		{[]client.Option{fn}, false, "Authorization", "Bearer func-token", client.SourceTokenFunc},
		{nil, false, "X-API-Key", "env-key", client.SourceEnvAPIKey},
		{nil, true, "Authorization", "Bearer sso-token", client.SourceSSOPrefix + "default"},
	}
	for i, s := range steps {
		if s.unsetEnvKey {
			t.Setenv("SERVICE_API_KEY", "")
		}
		c, err := client.New(append([]client.Option{client.WithBaseURL(rec.URL)}, s.opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Me(ctx); err != nil {
			t.Fatal(err)
		}
		r := rec.last(t)
		if r.Header.Get(s.header) != s.value || c.CredentialSource() != s.source {
			t.Fatalf("step %d: %s=%q source=%q, want %q from %q", i, s.header, r.Header.Get(s.header), c.CredentialSource(), s.value, s.source)
		}
		other := map[string]string{"X-API-Key": "Authorization", "Authorization": "X-API-Key"}[s.header]
		if r.Header.Get(other) != "" {
			t.Fatalf("step %d: two credentials sent", i)
		}
	}
	_ = os.Remove(sso.ConfigPath(dir))
	c, _ := client.New(client.WithBaseURL(rec.URL))
	if _, err := c.Me(ctx); err != nil || c.CredentialSource() != client.SourceNone || rec.last(t).Header.Get("Authorization") != "" {
		t.Fatalf("no credentials: %v, %s", err, c.CredentialSource())
	}

	// Base URL: option, then SERVICE_API_URL, then the default.
	c, _ = client.New()
	if c.BaseURL() != "http://127.0.0.1:8080" {
		t.Fatalf("default base URL %s", c.BaseURL())
	}
	other := newRecorder(t)
	t.Setenv("SERVICE_API_URL", other.URL)
	c, _ = client.New()
	if _, err := c.Me(ctx); err != nil || other.count() != 1 {
		t.Fatalf("SERVICE_API_URL not used: %v", err)
	}
	c, _ = client.New(client.WithBaseURL(rec.URL))
	n := rec.count()
	if _, err := c.Me(ctx); err != nil || rec.count() != n+1 || other.count() != 1 {
		t.Fatal("the option must beat SERVICE_API_URL")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(path[:strings.LastIndex(path, "/")], 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
