package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/danielgtaylor/huma/v2"
)

type detailList struct {
	Detail []api.ValidationItem `json:"detail"`
}

type detailText struct {
	Detail string `json:"detail"`
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		for name, headers := range map[string][]string{
			"none":            nil,
			"wrong key":       {"X-API-Key: agk_nope"},
			"empty bearer":    {"Authorization: Bearer "},
			"basic":           {"Authorization: Basic dXNlcjpwYXNz"},
			"jwt without idp": {"Authorization: Bearer aaa.bbb.ccc"},
		} {
			r := s.Do(t, "GET", "/me", "", nil, headers...)
			if r.Status != http.StatusUnauthorized || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s: status %d, WWW-Authenticate %q", name, r.Status, r.Header.Get("WWW-Authenticate"))
			}
			var body detailText
			r.JSON(t, &body)
			if body.Detail == "" {
				t.Errorf("%s: no detail", name)
			}
		}
		// The same key works in X-API-Key and as a bearer token.
		for _, h := range []string{"X-API-Key: " + s.Key, "Authorization: Bearer " + s.Key, "authorization: bearer " + s.Key} {
			if r := s.Do(t, "GET", "/me", "", nil, h); r.Status != http.StatusOK {
				t.Errorf("%q: %d %s", h, r.Status, r.Body)
			}
		}
		// A revoked key stops working (within the cache TTL).
		key := s.IssueKey(t, s.AccountID, s.UserID, store.RoleMember)
		if r := s.Do(t, "GET", "/me", key, nil); r.Status != http.StatusOK {
			t.Fatalf("fresh key: %d", r.Status)
		}
		k, err := auth.APIKeyByHash(context.Background(), s.DB, auth.HashKey(key))
		if err != nil {
			t.Fatal(err)
		}
		if err := auth.RevokeAPIKey(context.Background(), s.DB, k.ID); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			r := s.Do(t, "GET", "/me", key, nil)
			if r.Status == http.StatusUnauthorized {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("revoked key still answered %d after 5s", r.Status)
			}
			time.Sleep(100 * time.Millisecond)
		}
		// Last use is recorded, off the request path.
		s.S.Auth.Flush(context.Background())
		k, _ = auth.APIKeyByHash(context.Background(), s.DB, auth.HashKey(s.Key))
		if k.LastUsedAt == nil {
			t.Error("last use of the bootstrap key not recorded")
		}
	})
}

func TestRequestIDs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		seen := map[string]bool{}
		for _, path := range []string{"/me", "/nowhere", "/healthz", "/openapi.json"} {
			for _, key := range []string{"", s.Key} {
				r := s.Do(t, "GET", path, key, nil)
				id := r.Header.Get("X-Request-Id")
				if id == "" || seen[id] {
					t.Errorf("GET %s (%d): request id %q missing or reused", path, r.Status, id)
				}
				seen[id] = true
			}
		}
		r := s.Do(t, "GET", "/me", s.Key, nil, "X-Request-Id: trace-123")
		if got := r.Header.Get("X-Request-Id"); got != "trace-123" {
			t.Errorf("caller's request id not kept: %q", got)
		}
		r = s.Do(t, "GET", "/me", s.Key, nil, "X-Request-Id: bad id with spaces\t")
		if got := r.Header.Get("X-Request-Id"); got == "" || strings.Contains(got, " ") {
			t.Errorf("unsafe request id echoed: %q", got)
		}
		r = s.Do(t, "DELETE", "/version", s.Key, nil)
		if r.Status != http.StatusMethodNotAllowed || strings.Join(r.Header.Values("Allow"), ",") != "GET,PUT" {
			t.Errorf("405: %d, Allow %v", r.Status, r.Header.Values("Allow"))
		}
		r = s.Do(t, "GET", "/nowhere", s.Key, nil)
		var nf detailText
		r.JSON(t, &nf)
		if r.Status != http.StatusNotFound || nf.Detail == "" {
			t.Errorf("unknown route: %d %s", r.Status, r.Body)
		}
	})
}

func TestVersions(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		get := func(headers ...string) api.APIVersionResponse {
			t.Helper()
			r := s.Do(t, "GET", "/version", s.Key, nil, headers...)
			if r.Status != http.StatusOK {
				t.Fatalf("GET /version: %d %s", r.Status, r.Body)
			}
			var v api.APIVersionResponse
			r.JSON(t, &v)
			if got := r.Header.Get("Service-Version"); got != v.EffectiveVersion {
				t.Errorf("Service-Version response header %q, effective %q", got, v.EffectiveVersion)
			}
			return v
		}
		v := get()
		if v.PinnedVersion != nil || v.EffectiveVersion != "2026-07-01" || v.DefaultVersion != "2026-07-01" ||
			v.LatestVersion != "2026-07-27" || len(v.KnownVersions) != 2 {
			t.Fatalf("fresh account: %+v", v)
		}
		for header, want := range map[string]string{"2026-07-27": "2026-07-27", "2026-07-26": "2026-07-01", "2027-01-01": "2026-07-27", "2001-01-01": "2026-07-01"} {
			if got := get("Service-Version: " + header).EffectiveVersion; got != want {
				t.Errorf("header %s resolved to %s, want %s", header, got, want)
			}
		}
		for _, bad := range []string{"2026-7-27", "latest", "2026-02-30", "2026-07-27x"} {
			r := s.Do(t, "GET", "/version", s.Key, nil, "Service-Version: "+bad)
			var body detailList
			r.JSON(t, &body)
			if r.Status != http.StatusUnprocessableEntity || len(body.Detail) != 1 || body.Detail[0].Loc[0] != "header" {
				t.Errorf("malformed %q: %d %s", bad, r.Status, r.Body)
			}
		}

		// Pin: applies to header-less requests; the header still wins;
		// the response reflects the request, not the new pin.
		r := s.Do(t, "PUT", "/version", s.Key, map[string]any{"version": "2026-08-15"})
		var put api.APIVersionResponse
		r.JSON(t, &put)
		if r.Status != http.StatusOK || put.PinnedVersion == nil || *put.PinnedVersion != "2026-08-15" || put.EffectiveVersion != "2026-07-01" {
			t.Fatalf("pin: %d %s", r.Status, r.Body)
		}
		if got := get().EffectiveVersion; got != "2026-07-27" {
			t.Errorf("pinned account resolved to %s", got)
		}
		if got := get("Service-Version: 2026-07-01").EffectiveVersion; got != "2026-07-01" {
			t.Errorf("header did not override pin: %s", got)
		}
		// A member may not change it; an admin may.
		member := s.IssueKey(t, s.AccountID, s.UserID, store.RoleMember)
		if r := s.Do(t, "PUT", "/version", member, map[string]any{"version": nil}); r.Status != http.StatusForbidden {
			t.Errorf("member PUT /version: %d", r.Status)
		}
		for _, bad := range []any{map[string]any{"version": "July"}, map[string]any{"version": 20260727}, "[1]", "{"} {
			r := s.Do(t, "PUT", "/version", s.Key, bad)
			var body detailList
			r.JSON(t, &body)
			if r.Status != http.StatusUnprocessableEntity || len(body.Detail) == 0 || body.Detail[0].Type == "" {
				t.Errorf("bad body %v: %d %s", bad, r.Status, r.Body)
			}
		}
		admin := s.IssueKey(t, s.AccountID, s.UserID, store.RoleAdmin)
		r = s.Do(t, "PUT", "/version", admin, map[string]any{"version": nil})
		if r.Status != http.StatusOK {
			t.Fatalf("clear: %d %s", r.Status, r.Body)
		}
		if v := get(); v.PinnedVersion != nil || v.EffectiveVersion != "2026-07-01" {
			t.Errorf("after clear: %+v", v)
		}
		// A body sent without a content type is still read as JSON.
		r = s.Do(t, "PUT", "/version", s.Key, nil)
		if r.Status != http.StatusUnprocessableEntity && r.Status != http.StatusOK {
			t.Errorf("empty body: %d %s", r.Status, r.Body)
		}
	})
}

func TestUndeclaredQueryParameters(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		if r := s.Do(t, "GET", "/me?severity=high", s.Key, nil); r.Status != http.StatusOK {
			t.Errorf("legacy version must ignore undeclared parameters: %d", r.Status)
		}
		r := s.Do(t, "GET", "/me?severity=high&page=2", s.Key, nil, "Service-Version: 2026-07-27")
		var body detailList
		r.JSON(t, &body)
		if r.Status != http.StatusUnprocessableEntity || len(body.Detail) != 2 {
			t.Fatalf("strict version: %d %s", r.Status, r.Body)
		}
		if body.Detail[0].Loc[1] != "page" || body.Detail[1].Loc[1] != "severity" || body.Detail[0].Type != "extra_forbidden" {
			t.Errorf("detail does not name the parameters in order: %s", r.Body)
		}
		// The account pin switches it on too.
		s.Do(t, "PUT", "/version", s.Key, map[string]any{"version": "2026-07-27"})
		if r := s.Do(t, "GET", "/version?x=1", s.Key, nil); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("pinned strict account: %d", r.Status)
		}
	})
}

func TestLimits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) {
			c.MaxBodyBytes = 1024
			c.RateLimit, c.RateBurst = 2, 3
		})
		big := `{"version": null, "pad": "` + strings.Repeat("x", 4096) + `"}`
		r := s.Do(t, "PUT", "/version", s.Key, big)
		var body detailText
		r.JSON(t, &body)
		if r.Status != http.StatusRequestEntityTooLarge || body.Detail == "" {
			t.Errorf("oversized body: %d %s", r.Status, r.Body)
		}
		// Burst of 3 (one already spent above), then 429 with Retry-After.
		var limited *testserver.Response
		for i := 0; i < 6; i++ {
			r := s.Do(t, "GET", "/me", s.Key, nil)
			if r.Status == http.StatusTooManyRequests {
				limited = &r
				break
			}
		}
		if limited == nil {
			t.Fatal("never rate limited")
		}
		if ra := limited.Header.Get("Retry-After"); ra == "" || ra == "0" {
			t.Errorf("Retry-After %q", ra)
		}
		// Another credential has its own bucket.
		other := s.NewTenant(t, "other")
		if r := s.Do(t, "GET", "/me", other.Key, nil); r.Status != http.StatusOK {
			t.Errorf("other credential limited too: %d", r.Status)
		}
	})
}

// TestErrorModel registers operations that fail in the ways handlers can,
// and checks each answers its documented shape.
func TestErrorModel(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		hapi := s.S.API.HumaAPI()
		huma.Register(hapi, huma.Operation{OperationID: "test-panic", Method: "GET", Path: "/test/panic"},
			func(ctx context.Context, _ *struct{}) (*struct{}, error) { panic("boom") })
		huma.Register(hapi, huma.Operation{OperationID: "test-spend", Method: "POST", Path: "/test/spend"},
			func(ctx context.Context, _ *struct{}) (*struct{}, error) {
				p, _ := auth.FromContext(ctx)
				_, err := billing.NewCredits(s.DB).Debit(ctx, p.AccountID, 1e9, "test", "")
				return nil, err
			})
		huma.Register(hapi, huma.Operation{OperationID: "test-missing", Method: "GET", Path: "/test/things/{thing_id}"},
			func(ctx context.Context, in *struct {
				ThingID string `path:"thing_id" format:"uuid"`
				Limit   int    `query:"limit" minimum:"1" maximum:"100" default:"10"`
			}) (*struct{}, error) {
				return nil, store.ErrNotFound
			})

		r := s.Do(t, "GET", "/test/panic", s.Key, nil)
		var body detailText
		r.JSON(t, &body)
		if r.Status != http.StatusInternalServerError || !strings.Contains(body.Detail, r.Header.Get("X-Request-Id")) {
			t.Errorf("panic: %d %s (request id %s)", r.Status, r.Body, r.Header.Get("X-Request-Id"))
		}
		// The process survived.
		if r := s.Do(t, "GET", "/me", s.Key, nil); r.Status != http.StatusOK {
			t.Fatalf("after panic: %d", r.Status)
		}

		r = s.Do(t, "POST", "/test/spend", s.Key, nil)
		var credits struct {
			Detail api.InsufficientCreditsDetail `json:"detail"`
		}
		r.JSON(t, &credits)
		if r.Status != http.StatusPaymentRequired || credits.Detail.Error != "insufficient_credits" ||
			credits.Detail.AccountID != s.AccountID || credits.Detail.Message == "" {
			t.Errorf("402: %d %s", r.Status, r.Body)
		}

		r = s.Do(t, "GET", "/test/things/not-a-uuid?limit=abc", s.Key, nil)
		var list detailList
		r.JSON(t, &list)
		if r.Status != http.StatusUnprocessableEntity || len(list.Detail) != 2 {
			t.Fatalf("bad path id and query: %d %s", r.Status, r.Body)
		}
		types := map[string]string{}
		for _, it := range list.Detail {
			b, _ := json.Marshal(it.Loc)
			types[string(b)] = it.Type
		}
		if types[`["path","thing_id"]`] != "uuid_parsing" || types[`["query","limit"]`] != "int_parsing" {
			t.Errorf("validation items: %s", r.Body)
		}
		r = s.Do(t, "GET", "/test/things/01234567-89ab-7def-8123-456789abcdef", s.Key, nil)
		if r.Status != http.StatusNotFound {
			t.Errorf("not found: %d %s", r.Status, r.Body)
		}
	})
}

func TestProbesAndDocs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		for path, want := range map[string]string{"/healthz": `"ok"`, "/readyz": `"ready"`, "/metrics": "agentry_http_requests_total", "/openapi.json": `"/version"`, "/docs": "<html"} {
			s.Do(t, "GET", "/me", s.Key, nil) // something for the metrics to count
			r := s.Do(t, "GET", path, "", nil)
			if r.Status != http.StatusOK || !strings.Contains(string(r.Body), want) {
				t.Errorf("GET %s: %d, want %q in body", path, r.Status, want)
			}
		}
	})
}

func TestPagination(t *testing.T) {
	t.Parallel()
	p := api.PageOf(2, 10, 25)
	if p.Pages != 3 || !p.HasNext || !p.HasPrev {
		t.Errorf("%+v", p)
	}
	if p := api.PageOf(1, 10, 0); p.Pages != 0 || p.HasNext || p.HasPrev {
		t.Errorf("empty: %+v", p)
	}
}
