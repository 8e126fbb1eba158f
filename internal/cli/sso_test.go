package cli_test

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/client/sso"
	"github.com/agentry/agentry/client/sso/ssotest"
	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// browserUser reads the terminal (stderr) like a user and opens the login
// URL it shows: the test plays the browser through mockoidc, which approves
// at once and redirects to the CLI's loopback listener.
type browserUser struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	opened bool
	done   chan error
}

var loginURL = regexp.MustCompile(`https?://\S+/authorize\S*`)

func (b *browserUser) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if u := loginURL.FindString(b.buf.String()); u != "" && !b.opened {
		b.opened = true
		go func() { b.done <- ssotest.Browser(u) }()
	}
	return len(p), nil
}

type status struct {
	Profile    string `json:"profile"`
	Credential string `json:"credential"`
	LoggedIn   bool   `json:"logged_in"`
	Subject    string `json:"subject"`
	Issuer     string `json:"issuer"`
	AccountID  string `json:"account_id"`
}

// TestSSOEndToEnd: configure sso, auth login (PKCE, real loopback redirect),
// API commands with the SSO login against the real server (OIDC enabled),
// a second profile acting in an organization, auth status and logout.
func TestSSOEndToEnd(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	idp := ssotest.Start(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d, withOIDC(idp.Issuer(), idp.ClientID))
		subject := "cli-" + string(d)
		sdom := []string{"--sso-domain", idp.Issuer(), "--sso-client-id", idp.ClientID, "--sso-client-secret", idp.ClientSecret}

		run(t, append([]string{"configure", "sso"}, sdom...)...).ok(t, nil)
		st, err := os.Stat(sso.ConfigPath(dir))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("config file: %v %v", st, err)
		}
		var s status
		r := run(t, "auth", "status")
		r.exits(t, cli.ExitAuth, "not logged in")
		_ = jsonInto(r.stdout, &s)
		if s.LoggedIn || s.Issuer != idp.Issuer() {
			t.Fatalf("status before login = %+v", s)
		}

		idp.QueueUser(subject, subject+"@example.com")
		user := &browserUser{done: make(chan error, 1)}
		r = runWith(t, user, "auth", "login", "--no-browser", "--timeout", "20s")
		r.ok(t, &s)
		if err := <-user.done; err != nil {
			t.Fatalf("browser: %v", err)
		}
		if !s.LoggedIn || s.Subject != subject || !strings.Contains(r.stderr, "Logged in.") {
			t.Fatalf("login = %+v\n%s", s, r.stderr)
		}

		// API commands now authenticate with the SSO login.
		var me client.MeResponse
		run(t, "--base-url", ts.URL, "me").ok(t, &me)
		u, err := directory.UserBySubject(ctx, ts.DB, idp.Issuer(), subject, "", "", 0)
		if err != nil || me.AccountID != u.PersonalAccountID {
			t.Fatalf("me = %+v (user %+v, %v)", me, u, err)
		}
		run(t, "auth", "status").ok(t, &s)
		if !s.LoggedIn || s.Credential != client.SourceSSOPrefix+"default" {
			t.Fatalf("status after login = %+v", s)
		}

		// A profile bound to an organization acts in it.
		org, _ := directory.CreateOrganization(ctx, ts.DB, "Acme "+string(d), ts.UserID, 0)
		if err := directory.AddMember(ctx, ts.DB, org.ID, u.ID, store.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		run(t, append([]string{"--profile", "acme", "configure", "sso", "--sso-account-id", org.ID}, sdom...)...).ok(t, nil)
		var v client.APIVersionResponse
		run(t, "--base-url", ts.URL, "--profile", "acme", "version", "set", client.LatestVersion).ok(t, &v)
		run(t, "--base-url", ts.URL, "--account-id", org.ID, "version", "get").ok(t, &v)
		if v.PinnedVersion == nil || *v.PinnedVersion != client.LatestVersion {
			t.Fatalf("organization pin = %+v", v)
		}
		run(t, "--base-url", ts.URL, "version", "get").ok(t, &v)
		if v.PinnedVersion != nil {
			t.Fatalf("the organization pin leaked into the personal account: %+v", v)
		}
		setenv(t, "SERVICE_PROFILE", "acme")
		run(t, "auth", "status").ok(t, &s)
		if s.Profile != "acme" || s.AccountID != org.ID {
			t.Fatalf("SERVICE_PROFILE status = %+v", s)
		}
		setenv(t, "SERVICE_PROFILE", "")

		// A flag's API key wins over the SSO login.
		run(t, "--base-url", ts.URL, "--api-key", ts.Key, "me").ok(t, &me)
		if me.AccountID != ts.AccountID {
			t.Fatalf("--api-key did not win: %+v", me)
		}

		run(t, "auth", "logout").ok(t, &s)
		if s.LoggedIn {
			t.Fatalf("logout = %+v", s)
		}
		run(t, "auth", "status").exits(t, cli.ExitAuth, "not logged in")
		run(t, "--base-url", ts.URL, "me").exits(t, cli.ExitAuth, "auth login")
		run(t, "--profile", "ghost", "me").exits(t, cli.ExitAuth, "profile not found")
	})
}
