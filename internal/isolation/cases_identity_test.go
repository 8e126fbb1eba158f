package isolation

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/testserver"
)

// Identity: GET /me answers the caller's own account and organizations.
func init() {
	register(Case{
		Op: "GET /me", Name: "B sees only its own account and organizations",
		Setup: func(t *testing.T, c *Ctx) Vars {
			ctx := context.Background()
			orgA, err := directory.CreateOrganization(ctx, c.DB, "A's org", c.A.UserID, 0)
			if err != nil {
				t.Fatal(err)
			}
			orgB, err := directory.CreateOrganization(ctx, c.DB, "B's org", c.B.UserID, 0)
			if err != nil {
				t.Fatal(err)
			}
			return Vars{"orgA": orgA.ID, "orgB": orgB.ID}
		},
		Expect: Status(http.StatusOK, me(func(c *Ctx) (string, string) { return c.B.AccountID, c.Vars["orgB"] })),
		// A, asking the same, sees its own: the setup really gave A an org.
		Control: Status(http.StatusOK, me(func(c *Ctx) (string, string) { return c.A.AccountID, c.Vars["orgA"] })),
	})
}

// me expects a MeResponse naming exactly the given account and one organization.
func me(want func(c *Ctx) (account, org string)) Expectation {
	return func(t testing.TB, c *Ctx, r testserver.Response) {
		t.Helper()
		account, org := want(c)
		var body struct {
			AccountID     string `json:"account_id"`
			Organizations []struct {
				ID        string `json:"id"`
				AccountID string `json:"account_id"`
			} `json:"organizations"`
		}
		r.JSON(t, &body)
		if body.AccountID != account {
			t.Errorf("account_id %s, want %s (A is %s, B is %s)", body.AccountID, account, c.A.AccountID, c.B.AccountID)
		}
		if len(body.Organizations) != 1 || body.Organizations[0].ID != org || body.Organizations[0].AccountID != org {
			t.Errorf("organizations %+v, want exactly %s", body.Organizations, org)
		}
	}
}
