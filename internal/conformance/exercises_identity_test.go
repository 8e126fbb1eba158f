package conformance

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/version"
)

// Identity: GET /me.
func init() {
	register(
		Exercise{Op: "GET /me", Name: "personal account, no organizations", Status: http.StatusOK,
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				var me meBody
				r.JSON(t, &me)
				if me.AccountID != e.Tenant.AccountID || len(me.Organizations) != 0 {
					t.Errorf("got %+v, want account %s and no organizations", me, e.Tenant.AccountID)
				}
			}},
		Exercise{Op: "GET /me", Name: "lists the user's organizations", Status: http.StatusOK,
			Setup: func(t *testing.T, e *Env) Vars {
				org, err := directory.CreateOrganization(context.Background(), e.DB, "Conformance Org", e.Tenant.UserID, 0)
				if err != nil {
					t.Fatal(err)
				}
				return Vars{"org": org.ID}
			},
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				var me meBody
				r.JSON(t, &me)
				if me.AccountID != e.Tenant.AccountID || len(me.Organizations) != 1 ||
					me.Organizations[0].ID != e.Vars["org"] || me.Organizations[0].AccountID != e.Vars["org"] ||
					me.Organizations[0].Name != "Conformance Org" {
					t.Errorf("got %+v, want account %s with organization %s", me, e.Tenant.AccountID, e.Vars["org"])
				}
			}},
		Exercise{Op: "GET /me", Name: "member key", As: Member, Status: http.StatusOK},
		Exercise{Op: "GET /me", Name: "API key as Authorization: Bearer", As: OwnerBearer, Status: http.StatusOK,
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				var me meBody
				r.JSON(t, &me)
				if me.AccountID != e.Tenant.AccountID {
					t.Errorf("account %s, want %s", me.AccountID, e.Tenant.AccountID)
				}
			}},
		Exercise{Op: "GET /me", Name: "strict version", Headers: []string{version.Header + ": " + version.StrictEnvelope}, Status: http.StatusOK},
		Exercise{Op: "GET /me", Name: "malformed X-Account-Id", Headers: []string{"X-Account-Id: not-a-uuid"}, Status: http.StatusUnprocessableEntity,
			Check: expectLoc("header", "X-Account-Id")},
		Exercise{Op: "GET /me", Name: "Authorization without Bearer", As: Anonymous, Headers: []string{"Authorization: Basic dXNlcjpwYXNz"}, Status: http.StatusUnauthorized},
	)
}

type meBody struct {
	AccountID     string `json:"account_id"`
	Organizations []struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		AccountID string `json:"account_id"`
	} `json:"organizations"`
}
