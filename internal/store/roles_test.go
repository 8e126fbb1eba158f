package store_test

import (
	"testing"

	"github.com/agentry/agentry/internal/store"
)

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
