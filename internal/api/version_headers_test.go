package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestVersionUnderAnotherHeaderName: with SERVICE_VERSION_HEADERS naming
// X-Custom-Version, a client that sends its version opt-in under that name
// gets exactly what Service-Version would give it: the 2026-07-27 canonical
// list envelope, 422 on an undeclared query parameter, 422 on a malformed
// date. Without the setting the header is not read.
func TestVersionUnderAnotherHeaderName(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.VersionHeaders = "x-custom-version, X-Second-Version" })
		opt := "X-Custom-Version: 2026-07-27"

		var list map[string]json.RawMessage
		r := s.Do(t, http.MethodGet, "/models/alerts", s.Key, nil, opt)
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &list)
		if list["data"] == nil || list["pagination"] == nil || list["alerts"] != nil {
			t.Errorf("list under X-Custom-Version 2026-07-27: %s, want the {data, pagination} envelope", r.Body)
		}
		for _, name := range []string{"Service-Version", "X-Custom-Version"} {
			if got := r.Header.Get(name); got != "2026-07-27" {
				t.Errorf("response %s %q, want 2026-07-27", name, got)
			}
		}

		r = s.Do(t, http.MethodGet, "/models/alerts?severity=high", s.Key, nil, opt)
		wantLoc(t, r, "extra_forbidden", "query", "severity")

		r = s.Do(t, http.MethodGet, "/version", s.Key, nil, "X-Second-Version: 2026-08-01")
		var v struct {
			EffectiveVersion string `json:"effective_version"`
		}
		r.JSON(t, &v)
		if v.EffectiveVersion != "2026-07-27" {
			t.Errorf("GET /version under X-Second-Version: %s", r.Body)
		}

		r = s.Do(t, http.MethodGet, "/version", s.Key, nil, "X-Custom-Version: 2026-7-27")
		wantLoc(t, r, "value_error", "header", "X-Custom-Version")

		// Service-Version still wins when both are sent.
		r = s.Do(t, http.MethodGet, "/version", s.Key, nil, opt, "Service-Version: 2026-07-01")
		r.JSON(t, &v)
		if v.EffectiveVersion != "2026-07-01" {
			t.Errorf("both headers: %s, want Service-Version's 2026-07-01", r.Body)
		}

		// Without the setting, the other name is an unknown header.
		plain := testserver.Start(t, d)
		r = plain.Do(t, http.MethodGet, "/models/alerts?severity=high", plain.Key, nil, opt)
		wantStatus(t, r, http.StatusOK)
		list = nil
		r.JSON(t, &list)
		if list["alerts"] == nil {
			t.Errorf("without SERVICE_VERSION_HEADERS: %s, want the default version's shape", r.Body)
		}
	})
}
