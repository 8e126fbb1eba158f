package conformance

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/version"
)

// Versioning: GET /version and PUT /version.
func init() {
	register(
		Exercise{Op: "GET /version", Name: "unpinned, no header", Status: http.StatusOK,
			Check: wantVersion("", version.Default)},
		Exercise{Op: "GET /version", Name: "header selects the strict version", Status: http.StatusOK,
			Headers: []string{version.Header + ": " + version.StrictEnvelope},
			Check:   wantVersion("", version.StrictEnvelope)},
		Exercise{Op: "GET /version", Name: "a future date snaps to the latest", Status: http.StatusOK,
			Headers: []string{version.Header + ": 2099-01-01"},
			Check:   wantVersion("", version.Latest)},
		Exercise{Op: "GET /version", Name: "a date before every version snaps to the default", Status: http.StatusOK,
			Headers: []string{version.Header + ": 2020-01-01"},
			Check:   wantVersion("", version.Default)},
		Exercise{Op: "GET /version", Name: "the account's pin applies without a header", Status: http.StatusOK,
			Setup: pin(version.StrictEnvelope),
			Check: wantVersion(version.StrictEnvelope, version.StrictEnvelope)},
		Exercise{Op: "GET /version", Name: "the header overrides the pin", Status: http.StatusOK,
			Setup:   pin(version.StrictEnvelope),
			Headers: []string{version.Header + ": " + version.Default},
			Check:   wantVersion(version.StrictEnvelope, version.Default)},
		Exercise{Op: "GET /version", Name: "not a real date", Status: http.StatusUnprocessableEntity,
			Headers: []string{version.Header + ": 2026-02-30"}, Check: expectLoc("header", version.Header)},

		Exercise{Op: "PUT /version", Name: "pin the strict version", Status: http.StatusOK,
			Body: map[string]any{"version": version.StrictEnvelope},
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				// effective_version is this request's, not the new pin's.
				wantVersion(version.StrictEnvelope, version.Default)(t, e, r)
				wantVersion(version.StrictEnvelope, version.StrictEnvelope)(t, e, e.Do(t, http.MethodGet, "/version", nil))
			}},
		Exercise{Op: "PUT /version", Name: "clear the pin with null", Status: http.StatusOK,
			Setup: pin(version.StrictEnvelope), Body: `{"version": null}`,
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				wantVersion("", version.StrictEnvelope)(t, e, r) // this request still ran under the old pin
				wantVersion("", version.Default)(t, e, e.Do(t, http.MethodGet, "/version", nil))
			}},
		Exercise{Op: "PUT /version", Name: "an empty object clears the pin", Status: http.StatusOK,
			Setup: pin(version.StrictEnvelope), Body: `{}`,
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				wantVersion("", version.Default)(t, e, e.Do(t, http.MethodGet, "/version", nil))
			}},
		Exercise{Op: "PUT /version", Name: "at the strict version", Status: http.StatusOK,
			Headers: []string{version.Header + ": " + version.StrictEnvelope},
			Body:    map[string]any{"version": version.Default},
			Check:   wantVersion(version.Default, version.StrictEnvelope)},
		Exercise{Op: "PUT /version", Name: "admin may pin", As: Admin, Status: http.StatusOK,
			Body: map[string]any{"version": version.StrictEnvelope}},
		Exercise{Op: "PUT /version", Name: "member may not pin", As: Member, Status: http.StatusForbidden,
			Body: map[string]any{"version": version.StrictEnvelope},
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				wantVersion("", version.Default)(t, e, e.Do(t, http.MethodGet, "/version", nil))
			}},
		Exercise{Op: "PUT /version", Name: "malformed date", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"version": "27 July 2026"}, Check: expectLoc("body", "version")},
		Exercise{Op: "PUT /version", Name: "impossible date", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"version": "2026-13-01"}, Check: expectLoc("body", "version")},
		Exercise{Op: "PUT /version", Name: "wrong type", Status: http.StatusUnprocessableEntity,
			Body: `{"version": 20260727}`},
		Exercise{Op: "PUT /version", Name: "not JSON", Status: http.StatusUnprocessableEntity,
			Body: `{"version": `},
		Exercise{Op: "PUT /version", Name: "no body", Status: http.StatusUnprocessableEntity},
		Exercise{Op: "PUT /version", Name: "not an object", Status: http.StatusUnprocessableEntity,
			Body: `["2026-07-27"]`},
	)
}

// pin is a Setup that pins the exercise's account to v.
func pin(v string) func(t *testing.T, e *Env) Vars {
	return func(t *testing.T, e *Env) Vars {
		if err := directory.SetAPIVersion(context.Background(), e.DB, e.Tenant.AccountID, v); err != nil {
			t.Fatal(err)
		}
		return nil
	}
}

// wantVersion checks an ApiVersionResponse: the pin ("" for null) and the
// version the request resolved to.
func wantVersion(pinned, effective string) func(t *testing.T, e *Env, r testserver.Response) {
	return func(t *testing.T, _ *Env, r testserver.Response) {
		t.Helper()
		var v struct {
			Pinned    *string  `json:"pinned_version"`
			Effective string   `json:"effective_version"`
			Default   string   `json:"default_version"`
			Latest    string   `json:"latest_version"`
			Known     []string `json:"known_versions"`
		}
		r.JSON(t, &v)
		got := ""
		if v.Pinned != nil {
			got = *v.Pinned
		}
		if got != pinned || v.Effective != effective {
			t.Errorf("pinned %q effective %q, want pinned %q effective %q", got, v.Effective, pinned, effective)
		}
		if v.Default != version.Default || v.Latest != version.Latest || len(v.Known) != len(version.Known) {
			t.Errorf("default %q latest %q known %v, want %q %q %v", v.Default, v.Latest, v.Known, version.Default, version.Latest, version.Known)
		}
	}
}
