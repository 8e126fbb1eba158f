package realclient_test

// One test per convention of the client specification (docs/client.md).
// Each fails if its convention is broken.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/client/sso"
	"github.com/agentry/agentry/client/sso/ssotest"
	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

var ctx = context.Background()

// Convention 1: a bearer token (static, or from a function called for every
// request) goes in Authorization; an API key goes in X-API-Key.
func TestConvention1_BearerTokenOrAPIKey(t *testing.T) {
	isolate(t)
	rec := newRecorder(t)

	c, _ := client.New(client.WithBaseURL(rec.URL), client.WithToken("static-token"))
	if _, err := c.Me(ctx); err != nil {
		t.Fatal(err)
	}
	if r := rec.last(t); r.Header.Get("Authorization") != "Bearer static-token" || r.Header.Get("X-API-Key") != "" {
		t.Fatalf("static token: Authorization=%q X-API-Key=%q", r.Header.Get("Authorization"), r.Header.Get("X-API-Key"))
	}

	var calls atomic.Int32
	c, _ = client.New(client.WithBaseURL(rec.URL), client.WithTokenFunc(func(context.Context) (string, error) {
		return fmt.Sprintf("fresh-%d", calls.Add(1)), nil
	}))
	for i := 1; i <= 2; i++ {
		if _, err := c.Me(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rec.last(t).Header.Get("Authorization"); got != fmt.Sprintf("Bearer fresh-%d", i) {
			t.Fatalf("request %d: the token function was not asked per request: %q", i, got)
		}
	}

	c, _ = client.New(client.WithBaseURL(rec.URL), client.WithAPIKey("agk_secret"))
	if _, err := c.Me(ctx); err != nil {
		t.Fatal(err)
	}
	if r := rec.last(t); r.Header.Get("X-API-Key") != "agk_secret" || r.Header.Get("Authorization") != "" {
		t.Fatalf("api key: X-API-Key=%q Authorization=%q", r.Header.Get("X-API-Key"), r.Header.Get("Authorization"))
	}

	// A token function that fails stops the request before it is sent.
	boom := errors.New("vault sealed")
	before := rec.count()
	c, _ = client.New(client.WithBaseURL(rec.URL), client.WithTokenFunc(func(context.Context) (string, error) { return "", boom }))
	if _, err := c.Me(ctx); !errors.Is(err, boom) || rec.count() != before {
		t.Fatalf("failing token function: err=%v, requests sent=%d", err, rec.count()-before)
	}

	// The real server accepts both headers.
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		for name, opt := range map[string]client.Option{
			"api key":        client.WithAPIKey(ts.Key),
			"bearer":         client.WithToken(ts.Key),
			"token function": client.WithTokenFunc(func(context.Context) (string, error) { return ts.Key, nil }),
		} {
			c, _ := client.New(client.WithBaseURL(ts.URL), opt)
			me, err := c.Me(ctx)
			if err != nil || me.AccountID != ts.AccountID {
				t.Fatalf("%s: %+v, %v", name, me, err)
			}
		}
		c, _ := client.New(client.WithBaseURL(ts.URL), client.WithToken("agk_wrong"))
		if _, err := c.Me(ctx); !errors.Is(err, client.ErrUnauthorized) {
			t.Fatalf("wrong key: %v", err)
		}
	})
}

// Convention 2: X-Account-Id switches the organization account requests act in.
func TestConvention2_AccountHeader(t *testing.T) {
	isolate(t)
	rec := newRecorder(t)
	c, _ := client.New(client.WithBaseURL(rec.URL), client.WithAPIKey("k"))
	_, _ = c.Me(ctx)
	if _, ok := rec.last(t).Header["X-Account-Id"]; ok {
		t.Fatal("X-Account-Id sent without being asked for")
	}
	c, _ = client.New(client.WithBaseURL(rec.URL), client.WithAPIKey("k"), client.WithAccountID("acc-1"))
	_, _ = c.Me(ctx)
	if got := rec.last(t).Header.Get("X-Account-Id"); got != "acc-1" {
		t.Fatalf("X-Account-Id = %q", got)
	}
	_, _ = c.Me(ctx, client.WithRequestAccount("acc-2"))
	if got := rec.last(t).Header.Values("X-Account-Id"); len(got) != 1 || got[0] != "acc-2" {
		t.Fatalf("per-call account = %q", got)
	}

	// Against the real server, with an SSO user who is an admin of one
	// organization: the header moves PUT /version to that organization.
	idp := ssotest.Start(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d, withOIDC(idp.Issuer(), idp.ClientID))
		subject := "conv2-" + string(d)
		tok := idp.Issue(t, subject, subject+"@example.com").AccessToken
		personal, _ := client.New(client.WithBaseURL(ts.URL), client.WithToken(tok))
		me, err := personal.Me(ctx)
		if err != nil {
			t.Fatal(err)
		}
		u, err := directory.UserBySubject(ctx, ts.DB, idp.Issuer(), subject, "", "", 0)
		if err != nil || u.PersonalAccountID != me.AccountID {
			t.Fatalf("user: %+v, %v", u, err)
		}
		org, err := directory.CreateOrganization(ctx, ts.DB, "Acme", ts.UserID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := directory.AddMember(ctx, ts.DB, org.ID, u.ID, store.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		inOrg, _ := client.New(client.WithBaseURL(ts.URL), client.WithToken(tok), client.WithAccountID(org.ID))
		if _, err := inOrg.SetVersion(ctx, client.LatestVersion); err != nil {
			t.Fatal(err)
		}
		v, err := inOrg.GetVersion(ctx)
		if err != nil || v.PinnedVersion == nil || *v.PinnedVersion != client.LatestVersion {
			t.Fatalf("organization pin: %+v, %v", v, err)
		}
		v, err = personal.GetVersion(ctx)
		if err != nil || v.PinnedVersion != nil {
			t.Fatalf("the pin leaked into the personal account: %+v, %v", v, err)
		}
		other, _ := directory.CreateOrganization(ctx, ts.DB, "Other", ts.UserID, 0)
		if _, err := personal.Me(ctx, client.WithRequestAccount(other.ID)); !errors.Is(err, client.ErrForbidden) {
			t.Fatalf("an organization the user is not in: %v", err)
		}
	})
}

// Convention 4: tokens are cached on disk with mode 0600 and refreshed with
// the refresh token before they expire (with a margin); an expired token is
// never sent.
func TestConvention4_TokenCacheAndRefresh(t *testing.T) {
	isolate(t)
	idp := ssotest.Start(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d, withOIDC(idp.Issuer(), idp.ClientID))
		dir := t.TempDir()
		if err := sso.SaveProfile(dir, idp.Profile(sso.DefaultProfile)); err != nil {
			t.Fatal(err)
		}
		idp.QueueUser("conv4-"+string(d), "conv4@example.com")
		if _, err := sso.Login(ctx, sso.LoginOptions{Profile: idp.Profile(sso.DefaultProfile), ConfigDir: dir,
			Flow: sso.FlowBrowser, OpenURL: ssotest.Browser, Timeout: 20 * time.Second}); err != nil {
			t.Fatal(err)
		}
		cache := sso.CacheFor(dir)
		path := cache.Path(idp.Issuer(), idp.ClientID)
		assertMode(t, path, 0o600)

		u, _ := url.Parse(ts.URL)
		tr := &authTransport{host: u.Host}
		c, err := client.New(client.WithBaseURL(ts.URL), client.WithConfigDir(dir), client.WithHTTPClient(&http.Client{Transport: tr}))
		if err != nil {
			t.Fatal(err)
		}
		tok, _ := cache.Load(idp.Issuer(), idp.ClientID)
		if _, err := c.Me(ctx); err != nil {
			t.Fatal(err)
		}
		if got := tr.sent(); got[len(got)-1] != "Bearer "+tok.Bearer() {
			t.Fatal("a valid cached token was not used as it is")
		}

		// An expired token, and one inside the margin, are refreshed first.
		for _, expiry := range []time.Time{time.Now().Add(-time.Hour), time.Now().Add(10 * time.Second)} {
			stale := *tok
			// Both tokens replaced by one sentinel: whichever the client
			// would send as the bearer must never reach the server.
			stale.AccessToken, stale.IDToken, stale.Expiry = "stale.access.token", "", expiry
			if err := cache.Save(&stale); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Me(ctx); err != nil {
				t.Fatalf("expiry %v: %v", expiry, err)
			}
			for _, h := range tr.sent() {
				if strings.Contains(h, "stale.access.token") {
					t.Fatalf("a token at or near its expiry was sent (expiry %v)", expiry)
				}
			}
			fresh, err := cache.Load(idp.Issuer(), idp.ClientID)
			if err != nil || fresh.Bearer() == "stale.access.token" || fresh.ExpiresWithin(time.Minute, time.Now()) {
				t.Fatalf("the refreshed token was not cached: %+v, %v", fresh, err)
			}
			if got := tr.sent(); got[len(got)-1] != "Bearer "+fresh.Bearer() {
				t.Fatal("the request did not carry the refreshed token")
			}
			assertMode(t, path, 0o600)
		}

		// When the refresh fails, the request is not sent at all.
		dead := *tok
		dead.AccessToken, dead.IDToken, dead.Expiry, dead.RefreshToken = "dead.access.token", "", time.Now().Add(-time.Minute), "not-a-refresh-token"
		_ = cache.Save(&dead)
		n := len(tr.sent())
		if _, err := c.Me(ctx); !errors.Is(err, sso.ErrLoginRequired) {
			t.Fatalf("unrefreshable token: %v", err)
		}
		if len(tr.sent()) != n {
			t.Fatal("a request was sent with an expired token")
		}
	})
}

// Convention 5: a Service-Version the client was not built for is refused
// when the client is built, unless WithUnknownVersions is set.
func TestConvention5_UnknownVersionRefusedAtConstruction(t *testing.T) {
	isolate(t)
	for _, v := range client.KnownVersions() {
		if _, err := client.New(client.WithAPIVersion(v)); err != nil {
			t.Fatalf("known version %s refused: %v", v, err)
		}
	}
	var ve *client.VersionError
	if _, err := client.New(client.WithAPIVersion("2026-08-15")); !errors.As(err, &ve) || ve.Version != "2026-08-15" {
		t.Fatalf("unknown version accepted: %v", err)
	}
	if _, err := client.New(client.WithAPIVersion("latest"), client.WithUnknownVersions()); !errors.As(err, &ve) {
		t.Fatalf("the override must not let a malformed value through: %v", err)
	}
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c, err := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(ts.Key), client.WithAPIVersion("2026-08-15"), client.WithUnknownVersions())
		if err != nil {
			t.Fatal(err)
		}
		var info client.ResponseInfo
		v, err := c.GetVersion(ctx, client.CaptureResponse(&info))
		if err != nil || v.EffectiveVersion != client.LatestVersion || info.Header.Get("Service-Version") != client.LatestVersion {
			t.Fatalf("overridden version: %+v, %v", v, err)
		}
	})
}

// Convention 6: Service-Version is validated after options, default headers
// and call headers are merged; the last entry wins, names are
// case-insensitive, and only one header reaches the wire.
func TestConvention6_VersionHeaderMerge(t *testing.T) {
	isolate(t)
	rec := newRecorder(t)
	wire := func(c *client.Client, opts ...client.CallOption) []string {
		t.Helper()
		if _, err := c.Me(ctx, opts...); err != nil {
			t.Fatal(err)
		}
		return rec.last(t).Header.Values("Service-Version")
	}

	c, err := client.New(client.WithBaseURL(rec.URL), client.WithAPIVersion(client.Version20260701), client.WithHeader("service-version", client.Version20260727))
	if err != nil {
		t.Fatal(err)
	}
	if got := wire(c); len(got) != 1 || got[0] != client.Version20260727 {
		t.Fatalf("option then lower-case default header: wire %q", got)
	}
	if got := wire(c, client.WithRequestHeader("SERVICE-VERSION", client.Version20260701)); len(got) != 1 || got[0] != client.Version20260701 {
		t.Fatalf("call header: wire %q", got)
	}
	if got := wire(c, client.WithRequestHeader("Service-Version", "")); len(got) != 0 {
		t.Fatalf("an empty call header must remove it: wire %q", got)
	}

	// Validation sees the merged value, not each source.
	if _, err := client.New(client.WithHeader("service-version", "2030-01-01"), client.WithAPIVersion(client.Version20260727)); err != nil {
		t.Fatalf("an unknown value replaced by a known one: %v", err)
	}
	if _, err := client.New(client.WithAPIVersion(client.Version20260727), client.WithHeader("Service-Version", "2030-01-01")); err == nil {
		t.Fatal("an unknown value set last was accepted")
	}
	// A default header is validated exactly like the option.
	_, viaOption := client.New(client.WithAPIVersion("2030-01-01"))
	_, viaHeader := client.New(client.WithHeader("SERVICE-VERSION", "2030-01-01"))
	var a, b *client.VersionError
	if !errors.As(viaOption, &a) || !errors.As(viaHeader, &b) || a.Error() != b.Error() {
		t.Fatalf("option %v / default header %v", viaOption, viaHeader)
	}
	// A call header is validated too, before anything is sent.
	before := rec.count()
	if _, err := c.Me(ctx, client.WithRequestHeader("service-version", "2031-01-01")); !errors.As(err, &a) || rec.count() != before {
		t.Fatalf("unknown call header: %v, sent %d", err, rec.count()-before)
	}

	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c, _ := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(ts.Key), client.WithHeader("service-version", client.Version20260727))
		v, err := c.GetVersion(ctx)
		if err != nil || v.EffectiveVersion != client.Version20260727 {
			t.Fatalf("default header on the real server: %+v, %v", v, err)
		}
		v, err = c.GetVersion(ctx, client.WithRequestVersion(client.Version20260701))
		if err != nil || v.EffectiveVersion != client.Version20260701 {
			t.Fatalf("call header on the real server: %+v, %v", v, err)
		}
	})
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != want {
		t.Fatalf("%s has mode %v, want %v", path, st.Mode().Perm(), want)
	}
}
