package auth_test

// The API keys' repository, on both databases.

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		u, a, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "K"})
		k, err := auth.CreateAPIKey(ctx, db, auth.APIKey{AccountID: a.ID, UserID: u.ID, Name: "ci", Prefix: "agk_abc", Role: store.RoleOwner}, "hash-1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := auth.CreateAPIKey(ctx, db, auth.APIKey{AccountID: a.ID, Name: "dup", Prefix: "x", Role: store.RoleMember}, "hash-1"); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("duplicate hash: %v", err)
		}
		if _, err := auth.CreateAPIKey(ctx, db, auth.APIKey{AccountID: store.NewID(), Name: "orphan", Prefix: "x", Role: store.RoleMember}, "hash-2"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("key for missing account: %v", err)
		}
		got, err := auth.APIKeyByHash(ctx, db, "hash-1")
		if err != nil || got.ID != k.ID || got.RevokedAt != nil || got.LastUsedAt != nil || got.UserID != u.ID {
			t.Fatalf("%+v %v", got, err)
		}
		used := store.Now()
		if err := auth.TouchAPIKeys(ctx, db, map[string]time.Time{k.ID: used}); err != nil {
			t.Fatal(err)
		}
		// An older touch never moves last-used back.
		if err := auth.TouchAPIKeys(ctx, db, map[string]time.Time{k.ID: used.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		got, _ = auth.APIKeyByHash(ctx, db, "hash-1")
		if got.LastUsedAt == nil || !got.LastUsedAt.Equal(used) {
			t.Fatalf("last used %v want %v", got.LastUsedAt, used)
		}
		if err := auth.RevokeAPIKey(ctx, db, k.ID); err != nil {
			t.Fatal(err)
		}
		got, _ = auth.APIKeyByHash(ctx, db, "hash-1")
		if got.RevokedAt == nil {
			t.Fatal("not revoked")
		}
		if err := auth.RevokeAPIKey(ctx, db, store.NewID()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoke missing: %v", err)
		}
		// An empty account id lists nothing (not every account's keys); the
		// operator's list is AllAPIKeys.
		if none, err := auth.APIKeys(ctx, db, ""); !errors.Is(err, store.ErrNotFound) || len(none) != 0 {
			t.Fatalf("keys of no account: %d %v", len(none), err)
		}
		_, b, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "L"})
		if _, err := auth.CreateAPIKey(ctx, db, auth.APIKey{AccountID: b.ID, Name: "other", Prefix: "y", Role: store.RoleMember}, "hash-3"); err != nil {
			t.Fatal(err)
		}
		if all, err := auth.AllAPIKeys(ctx, db); err != nil || len(all) != 2 {
			t.Fatalf("all keys: %d %v", len(all), err)
		}
		// Pruning keeps the newest revoked keys and every live one.
		for i := range 3 {
			rk, err := auth.CreateAPIKey(ctx, db, auth.APIKey{AccountID: b.ID, Name: "r", Prefix: "r", Role: store.RoleMember}, fmt.Sprintf("hash-r%d", i))
			if err != nil {
				t.Fatal(err)
			}
			if err := auth.RevokeAPIKey(ctx, db, rk.ID); err != nil {
				t.Fatal(err)
			}
		}
		if err := auth.PruneRevokedAPIKeys(ctx, db, b.ID, 1); err != nil {
			t.Fatal(err)
		}
		if left, _ := auth.APIKeys(ctx, db, b.ID); len(left) != 2 || left[0].RevokedAt == nil || left[1].RevokedAt != nil {
			t.Fatalf("after pruning: %+v", left)
		}
		if still, _ := auth.APIKeys(ctx, db, a.ID); len(still) != 1 {
			t.Fatalf("pruning another account removed %d keys", 1-len(still))
		}
		keys, _ := auth.APIKeys(ctx, db, a.ID)
		if len(keys) != 1 {
			t.Fatalf("%d keys", len(keys))
		}
		if _, err := auth.APIKeyByHash(ctx, db, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown hash: %v", err)
		}
	})
}

// TestConcurrentDebits hammers one balance from many goroutines: exactly as
// many debits succeed as the balance covers, and the ledger adds up.
// TestAPIKeyCarriesCurrentMembership checks that looking a key up reads its
// user's role in the key's account as it is now, so the authenticator can
// make a key follow its user's membership.
func TestAPIKeyCarriesCurrentMembership(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		owner, _, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "Owner"})
		admin, _, _ := directory.CreateUser(ctx, db, directory.NewUser{Name: "Admin"})
		org, err := directory.CreateOrganization(ctx, db, "Org", owner.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := directory.AddMember(ctx, db, org.ID, admin.ID, store.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		if _, err := auth.CreateAPIKey(ctx, db, auth.APIKey{AccountID: org.ID, UserID: admin.ID, Name: "a", Prefix: "p", Role: store.RoleAdmin}, "h-admin"); err != nil {
			t.Fatal(err)
		}
		if _, err := auth.CreateAPIKey(ctx, db, auth.APIKey{AccountID: org.ID, Name: "service", Prefix: "p", Role: store.RoleMember}, "h-service"); err != nil {
			t.Fatal(err)
		}
		role := func(hash string) string {
			t.Helper()
			k, err := auth.APIKeyByHash(ctx, db, hash)
			if err != nil {
				t.Fatal(err)
			}
			return k.MemberRole
		}
		if got := role("h-admin"); got != store.RoleAdmin {
			t.Fatalf("member role %q, want admin", got)
		}
		if err := directory.AddMember(ctx, db, org.ID, admin.ID, store.RoleMember); err != nil {
			t.Fatal(err)
		}
		if got := role("h-admin"); got != store.RoleMember {
			t.Fatalf("after demotion: member role %q, want member", got)
		}
		if err := directory.RemoveMember(ctx, db, org.ID, admin.ID); err != nil {
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
