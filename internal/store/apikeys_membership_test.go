package store_test

import (
	"context"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestAPIKeyCarriesCurrentMembership checks that looking a key up reads its
// user's role in the key's account as it is now, so the authenticator can
// make a key follow its user's membership.
func TestAPIKeyCarriesCurrentMembership(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		owner, _, _ := db.CreateUser(ctx, store.NewUser{Name: "Owner"})
		admin, _, _ := db.CreateUser(ctx, store.NewUser{Name: "Admin"})
		org, err := db.CreateOrganization(ctx, "Org", owner.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.AddMember(ctx, org.ID, admin.ID, store.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateAPIKey(ctx, store.APIKey{AccountID: org.ID, UserID: admin.ID, Name: "a", Prefix: "p", Role: store.RoleAdmin}, "h-admin"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateAPIKey(ctx, store.APIKey{AccountID: org.ID, Name: "service", Prefix: "p", Role: store.RoleMember}, "h-service"); err != nil {
			t.Fatal(err)
		}
		role := func(hash string) string {
			t.Helper()
			k, err := db.APIKeyByHash(ctx, hash)
			if err != nil {
				t.Fatal(err)
			}
			return k.MemberRole
		}
		if got := role("h-admin"); got != store.RoleAdmin {
			t.Fatalf("member role %q, want admin", got)
		}
		if err := db.AddMember(ctx, org.ID, admin.ID, store.RoleMember); err != nil {
			t.Fatal(err)
		}
		if got := role("h-admin"); got != store.RoleMember {
			t.Fatalf("after demotion: member role %q, want member", got)
		}
		if err := db.RemoveMember(ctx, org.ID, admin.ID); err != nil {
			t.Fatal(err)
		}
		if got := role("h-admin"); got != "" {
			t.Fatalf("after removal: member role %q, want none", got)
		}
		if got := role("h-service"); got != "" {
			t.Fatalf("key without a user: member role %q, want none", got)
		}
	})
}

func TestWeakerRole(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ a, b, want string }{
		{store.RoleOwner, store.RoleAdmin, store.RoleAdmin},
		{store.RoleAdmin, store.RoleOwner, store.RoleAdmin},
		{store.RoleMember, store.RoleOwner, store.RoleMember},
		{store.RoleAdmin, store.RoleAdmin, store.RoleAdmin},
		{store.RoleOwner, "bogus", "bogus"},
	} {
		if got := store.WeakerRole(c.a, c.b); got != c.want {
			t.Errorf("WeakerRole(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}
