package realclient_test

import (
	"errors"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestOperationsOnRealServer runs every implemented operation through the
// client against the real server, on each database.
func TestOperationsOnRealServer(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c, err := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(ts.Key))
		if err != nil {
			t.Fatal(err)
		}
		me, err := c.Me(ctx)
		if err != nil || me.AccountID != ts.AccountID || me.Organizations == nil {
			t.Fatalf("Me = %+v, %v", me, err)
		}

		v, err := c.GetVersion(ctx)
		if err != nil || v.PinnedVersion != nil || v.EffectiveVersion != client.DefaultVersion ||
			v.LatestVersion != client.LatestVersion || len(v.KnownVersions) != len(client.KnownVersions()) {
			t.Fatalf("GetVersion = %+v, %v", v, err)
		}
		v, err = c.SetVersion(ctx, client.LatestVersion)
		if err != nil || v.PinnedVersion == nil || *v.PinnedVersion != client.LatestVersion {
			t.Fatalf("SetVersion = %+v, %v", v, err)
		}
		if v, err = c.GetVersion(ctx); err != nil || v.EffectiveVersion != client.LatestVersion {
			t.Fatalf("the pin did not apply: %+v, %v", v, err)
		}
		v, err = c.ClearVersion(ctx)
		if err != nil || v.PinnedVersion != nil {
			t.Fatalf("ClearVersion = %+v, %v", v, err)
		}
		if v, err = c.GetVersion(ctx); err != nil || v.PinnedVersion != nil || v.EffectiveVersion != client.DefaultVersion {
			t.Fatalf("the pin was not cleared: %+v, %v", v, err)
		}

		// A malformed date is the server's 422, decoded with its items.
		_, err = c.SetVersion(ctx, "2026-13-45")
		var ve *client.ValidationError
		if !errors.As(err, &ve) || len(ve.Items) != 1 || ve.Items[0].Field() != "body.version" || ve.StatusCode != 422 {
			t.Fatalf("bad date: %v", err)
		}
		var apiErr *client.APIError
		if !errors.As(err, &apiErr) || !errors.Is(err, client.ErrUnprocessable) {
			t.Fatal("a ValidationError must also be an *APIError")
		}
		_, err = c.Me(ctx, client.WithRequestAccount("not-a-uuid"))
		if !errors.As(err, &ve) || ve.Items[0].Field() != "header.X-Account-Id" {
			t.Fatalf("malformed account header: %v", err)
		}

		// Only owners and admins may pin: a member key gets the 403 sentence.
		member := ts.IssueKey(t, ts.AccountID, "", store.RoleMember)
		mc, _ := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(member))
		_, err = mc.SetVersion(ctx, client.LatestVersion)
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 403 || !errors.Is(err, client.ErrForbidden) || apiErr.Message == "" || apiErr.RequestID == "" {
			t.Fatalf("member pin: %#v", err)
		}

		bad, _ := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey("agk_nope"))
		_, err = bad.Me(ctx)
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Header.Get("WWW-Authenticate") == "" {
			t.Fatalf("bad key: %v", err)
		}
	})
}
