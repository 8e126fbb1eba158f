package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func TestIdentity(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		if err := db.Migrate(ctx); err != nil { // idempotent
			t.Fatal(err)
		}
		u, personal, err := db.CreateUser(ctx, store.NewUser{Email: "Ada@Example.com", Name: "Ada", OpeningCredits: 12.5})
		if err != nil {
			t.Fatal(err)
		}
		if u.Email != "ada@example.com" || personal.Kind != store.KindPersonal || u.PersonalAccountID != personal.ID {
			t.Fatalf("user %+v account %+v", u, personal)
		}
		if _, _, err := db.CreateUser(ctx, store.NewUser{Email: "ADA@example.com"}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("duplicate email: %v", err)
		}
		if bal, _ := billing.NewCredits(db).Balance(ctx, personal.ID); bal != 12.5 {
			t.Fatalf("opening balance %v", bal)
		}
		role, err := db.Role(ctx, personal.ID, u.ID)
		if err != nil || role != store.RoleOwner {
			t.Fatalf("role %q %v", role, err)
		}
		org, err := db.CreateOrganization(ctx, "Acme", u.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		bob, _, err := db.CreateUser(ctx, store.NewUser{Name: "Bob"})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.AddMember(ctx, org.ID, bob.ID, store.RoleMember); err != nil {
			t.Fatal(err)
		}
		if err := db.AddMember(ctx, org.ID, bob.ID, store.RoleAdmin); err != nil { // role change
			t.Fatal(err)
		}
		if r, _ := db.Role(ctx, org.ID, bob.ID); r != store.RoleAdmin {
			t.Fatalf("role after change %q", r)
		}
		if err := db.AddMember(ctx, org.ID, store.NewID(), store.RoleMember); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("member of unknown user: %v", err)
		}
		orgs, err := db.Organizations(ctx, bob.ID)
		if err != nil || len(orgs) != 1 || orgs[0].AccountID != org.ID || orgs[0].AccountName != "Acme" {
			t.Fatalf("orgs %+v %v", orgs, err)
		}
		if _, err := db.Role(ctx, personal.ID, bob.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("bob in ada's personal account: %v", err)
		}
		if err := db.RemoveMember(ctx, org.ID, bob.ID); err != nil {
			t.Fatal(err)
		}
		if orgs, _ := db.Organizations(ctx, bob.ID); len(orgs) != 0 {
			t.Fatalf("still a member: %+v", orgs)
		}

		// Version pin round trip.
		if err := db.SetAPIVersion(ctx, org.ID, "2026-07-27"); err != nil {
			t.Fatal(err)
		}
		if a, _ := db.Account(ctx, org.ID); a.APIVersion != "2026-07-27" {
			t.Fatalf("pin %q", a.APIVersion)
		}
		if err := db.SetAPIVersion(ctx, org.ID, ""); err != nil {
			t.Fatal(err)
		}
		if a, _ := db.Account(ctx, org.ID); a.APIVersion != "" {
			t.Fatalf("pin not cleared: %q", a.APIVersion)
		}
		if _, err := db.Account(ctx, store.NewID()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("missing account: %v", err)
		}
	})
}

func TestSubjectMapping(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		// Many first sightings of one subject at once make one user.
		var wg sync.WaitGroup
		ids := make([]string, 8)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				u, err := db.UserBySubject(ctx, "https://idp.test", "sub-1", "s@example.com", "S", 3)
				if err != nil {
					t.Error(err)
					return
				}
				ids[i] = u.ID
			}()
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("one subject became several users: %v", ids)
			}
		}
		users, _ := db.Users(ctx)
		if len(users) != 1 {
			t.Fatalf("%d users", len(users))
		}
		// A different issuer with the same subject and email is another person.
		u2, err := db.UserBySubject(ctx, "https://other.test", "sub-1", "s@example.com", "", 0)
		if err != nil || u2.ID == ids[0] || u2.Email != "" {
			t.Fatalf("second issuer: %+v %v", u2, err)
		}
	})
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		u, a, _ := db.CreateUser(ctx, store.NewUser{Name: "K"})
		k, err := db.CreateAPIKey(ctx, store.APIKey{AccountID: a.ID, UserID: u.ID, Name: "ci", Prefix: "agk_abc", Role: store.RoleOwner}, "hash-1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateAPIKey(ctx, store.APIKey{AccountID: a.ID, Name: "dup", Prefix: "x", Role: store.RoleMember}, "hash-1"); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("duplicate hash: %v", err)
		}
		if _, err := db.CreateAPIKey(ctx, store.APIKey{AccountID: store.NewID(), Name: "orphan", Prefix: "x", Role: store.RoleMember}, "hash-2"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("key for missing account: %v", err)
		}
		got, err := db.APIKeyByHash(ctx, "hash-1")
		if err != nil || got.ID != k.ID || got.RevokedAt != nil || got.LastUsedAt != nil || got.UserID != u.ID {
			t.Fatalf("%+v %v", got, err)
		}
		used := store.Now()
		if err := db.TouchAPIKeys(ctx, map[string]time.Time{k.ID: used}); err != nil {
			t.Fatal(err)
		}
		// An older touch never moves last-used back.
		if err := db.TouchAPIKeys(ctx, map[string]time.Time{k.ID: used.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		got, _ = db.APIKeyByHash(ctx, "hash-1")
		if got.LastUsedAt == nil || !got.LastUsedAt.Equal(used) {
			t.Fatalf("last used %v want %v", got.LastUsedAt, used)
		}
		if err := db.RevokeAPIKey(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		got, _ = db.APIKeyByHash(ctx, "hash-1")
		if got.RevokedAt == nil {
			t.Fatal("not revoked")
		}
		if err := db.RevokeAPIKey(ctx, store.NewID()); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoke missing: %v", err)
		}
		// An empty account id lists nothing (not every account's keys); the
		// operator's list is AllAPIKeys.
		if none, err := db.APIKeys(ctx, ""); !errors.Is(err, store.ErrNotFound) || len(none) != 0 {
			t.Fatalf("keys of no account: %d %v", len(none), err)
		}
		_, b, _ := db.CreateUser(ctx, store.NewUser{Name: "L"})
		if _, err := db.CreateAPIKey(ctx, store.APIKey{AccountID: b.ID, Name: "other", Prefix: "y", Role: store.RoleMember}, "hash-3"); err != nil {
			t.Fatal(err)
		}
		if all, err := db.AllAPIKeys(ctx); err != nil || len(all) != 2 {
			t.Fatalf("all keys: %d %v", len(all), err)
		}
		// Pruning keeps the newest revoked keys and every live one.
		for i := range 3 {
			rk, err := db.CreateAPIKey(ctx, store.APIKey{AccountID: b.ID, Name: "r", Prefix: "r", Role: store.RoleMember}, fmt.Sprintf("hash-r%d", i))
			if err != nil {
				t.Fatal(err)
			}
			if err := db.RevokeAPIKey(ctx, rk.ID); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.PruneRevokedAPIKeys(ctx, b.ID, 1); err != nil {
			t.Fatal(err)
		}
		if left, _ := db.APIKeys(ctx, b.ID); len(left) != 2 || left[0].RevokedAt == nil || left[1].RevokedAt != nil {
			t.Fatalf("after pruning: %+v", left)
		}
		if still, _ := db.APIKeys(ctx, a.ID); len(still) != 1 {
			t.Fatalf("pruning another account removed %d keys", 1-len(still))
		}
		keys, _ := db.APIKeys(ctx, a.ID)
		if len(keys) != 1 {
			t.Fatalf("%d keys", len(keys))
		}
		if _, err := db.APIKeyByHash(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown hash: %v", err)
		}
	})
}
