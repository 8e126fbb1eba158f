package isolation

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestKeysFollowMembership: an API key made for a user acts with the weaker
// of its own role and the user's current role in the account, and stops
// when the user leaves the account. The changes are made through the
// database, as another replica or `agentry admin` would, and must reach a
// replica that holds the key in its cache within the revocation bound.
func TestKeysFollowMembership(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		one := testserver.Start(t, d)
		two := testserver.Start(t, d, func(c *server.Config) { c.DatabaseURL = one.S.Config.DatabaseURL })
		ctx := context.Background()
		org, err := directory.CreateOrganization(ctx, one.DB, "Org", one.UserID, 100)
		if err != nil {
			t.Fatal(err)
		}
		admin, _, err := directory.CreateUser(ctx, one.DB, directory.NewUser{Name: "admin"})
		if err != nil {
			t.Fatal(err)
		}
		if err := directory.AddMember(ctx, one.DB, org.ID, admin.ID, store.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		key := one.IssueKey(t, org.ID, admin.ID, store.RoleAdmin)
		pin := func() int {
			return two.Do(t, http.MethodPut, "/version", key, map[string]any{"version": nil}).Status
		}
		created := 0
		createAgent := func() int {
			created++
			return two.Do(t, http.MethodPost, "/agents", key, map[string]any{"name": "by the admin's key " + time.Now().Format(time.RFC3339Nano)}).Status
		}
		if got := pin(); got != http.StatusOK {
			t.Fatalf("admin key PUT /version: %d, want 200", got)
		}
		if got := createAgent(); got != http.StatusCreated {
			t.Fatalf("admin key POST /agents: %d, want 201", got)
		}

		// Demoted to member: the admin key acts as a member.
		if err := directory.AddMember(ctx, one.DB, org.ID, admin.ID, store.RoleMember); err != nil {
			t.Fatal(err)
		}
		if took, ok := pollUntil(pin, http.StatusForbidden, http.StatusOK); !ok {
			t.Fatalf("a demoted user's admin key still pins versions %v after the demotion", took)
		} else {
			t.Logf("demotion reached replica two after %v", took.Round(time.Millisecond))
		}
		if got := createAgent(); got != http.StatusCreated {
			t.Fatalf("a member's key POST /agents: %d, want 201", got)
		}

		// Removed from the account: the key stops working.
		if err := directory.RemoveMember(ctx, one.DB, org.ID, admin.ID); err != nil {
			t.Fatal(err)
		}
		if took, ok := pollUntil(createAgent, http.StatusUnauthorized, http.StatusCreated); !ok {
			t.Fatalf("a removed user's key still creates agents %v after the removal", took)
		} else {
			t.Logf("removal reached replica two after %v", took.Round(time.Millisecond))
		}
		if got := one.Do(t, http.MethodGet, "/me", key, nil).Status; got != http.StatusUnauthorized {
			t.Errorf("removed user's key on replica one: %d, want 401", got)
		}
		// Every attempt but the refused last one created an agent.
		_, total, err := agents.NewRepo(one.DB).Agents(ctx, org.ID, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if total != created-1 {
			t.Errorf("%d agents after %d attempts, the last refused; want %d", total, created, created-1)
		}
	})
}

// pollUntil calls do every 20ms until it answers want, tolerating before
// until revocationBound has passed; it returns how long that took.
func pollUntil(do func() int, want, before int) (time.Duration, bool) {
	start := time.Now()
	for {
		switch got := do(); got {
		case want:
			return time.Since(start), time.Since(start) <= revocationBound
		case before:
		default:
			return time.Since(start), false
		}
		if time.Since(start) > revocationBound {
			return time.Since(start), false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
