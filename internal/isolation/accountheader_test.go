package isolation

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/google/uuid"
)

// TestAPIKeyIgnoresAccountHeader: an API key acts in its own account
// whatever X-Account-Id names — another tenant's account (in any letter
// case), or an account that does not exist. Without OIDC there is no other
// way to switch accounts, so for a key the header must never answer 403 nor
// act elsewhere. (Every isolation case also runs with A's id in the header.)
func TestAPIKeyIgnoresAccountHeader(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		a, b := ts.NewTenant(t, "A"), ts.NewTenant(t, "B")
		for _, target := range []string{a.AccountID, strings.ToUpper(a.AccountID), uuid.NewString(), b.AccountID} {
			r := ts.Do(t, http.MethodGet, "/me", b.Key, nil, "X-Account-Id: "+target)
			if r.Status != http.StatusOK {
				t.Errorf("X-Account-Id %s: status %d, want 200: %s", target, r.Status, r.Body)
				continue
			}
			var me struct {
				AccountID string `json:"account_id"`
			}
			r.JSON(t, &me)
			if me.AccountID != b.AccountID {
				t.Errorf("X-Account-Id %s: B's key acted as %s, want B (%s)", target, me.AccountID, b.AccountID)
			}
		}
	})
}
