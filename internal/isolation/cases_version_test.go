package isolation

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/version"
)

// Versioning: the pin belongs to the caller's account.
func init() {
	register(
		Case{
			Op: "GET /version", Name: "B does not see A's pin",
			Setup:  pinA(version.StrictEnvelope),
			Expect: Status(http.StatusOK, pinned("", version.Default)),
			// A still resolves to its own pin.
			Control: Status(http.StatusOK, pinned(version.StrictEnvelope, version.StrictEnvelope)),
		},
		Case{
			Op: "PUT /version", Name: "B's pin changes B, not A",
			Setup: pinA(version.StrictEnvelope),
			Body:  map[string]any{"version": version.Default},
			Expect: Status(http.StatusOK, func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				if got := storedPin(t, c, c.A.AccountID); got != version.StrictEnvelope {
					t.Errorf("A's pin is %q after B's PUT, want %q", got, version.StrictEnvelope)
				}
				if got := storedPin(t, c, c.B.AccountID); got != version.Default {
					t.Errorf("B's pin is %q after B's PUT, want %q", got, version.Default)
				}
				// And over HTTP, past every cache: A still resolves to its pin.
				pinned(version.StrictEnvelope, version.StrictEnvelope)(t, c, c.AsA(t, http.MethodGet, "/version", nil))
			}),
			NoControl: true, // A changing its own pin proves nothing here
		},
	)
}

// pinA pins account A to v.
func pinA(v string) func(t *testing.T, c *Ctx) Vars {
	return func(t *testing.T, c *Ctx) Vars {
		if err := directory.SetAPIVersion(context.Background(), c.DB, c.A.AccountID, v); err != nil {
			t.Fatal(err)
		}
		return nil
	}
}

func storedPin(t testing.TB, c *Ctx, accountID string) string {
	t.Helper()
	a, err := directory.GetAccount(context.Background(), c.DB, accountID)
	if err != nil {
		t.Fatal(err)
	}
	return a.APIVersion
}

// pinned expects an ApiVersionResponse with this pin ("" for null) and
// effective version.
func pinned(pin, effective string) Expectation {
	return func(t testing.TB, _ *Ctx, r testserver.Response) {
		t.Helper()
		var v struct {
			Pinned    *string `json:"pinned_version"`
			Effective string  `json:"effective_version"`
		}
		r.JSON(t, &v)
		got := ""
		if v.Pinned != nil {
			got = *v.Pinned
		}
		if got != pin || v.Effective != effective {
			t.Errorf("pinned %q effective %q, want %q %q", got, v.Effective, pin, effective)
		}
	}
}
