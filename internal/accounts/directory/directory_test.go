package directory_test

// The accounts area's repository, on both databases.

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
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
		u, personal, err := directory.CreateUser(ctx, db, directory.NewUser{Email: "Ada@Example.com", Name: "Ada", OpeningCredits: 12.5})
		if err != nil {
			t.Fatal(err)
		}
		if u.Email != "ada@example.com" || personal.Kind != directory.KindPersonal || u.PersonalAccountID != personal.ID {
			t.Fatalf("user %+v account %+v", u, personal)
		}
		if _, _, err := directory.CreateUser(ctx, db, directory.NewUser{Email: "ADA@example.com"}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("duplicate email: %v", err)
		}
		if bal, _ := billing.NewCredits(db).Balance(ctx, personal.ID); bal != 12.5 {
			t.Fatalf("opening balance %v", bal)
		}
		role, err := directory.Role(ctx, db, personal.ID, u.ID)
		if err != nil || role != store.RoleOwner {
			t.Fatalf("role %q %v", role, err)
		}
		org, err := directory.CreateOrganization(ctx, db, "Acme", u.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		bob, _, err := directory.CreateUser(ctx, db, directory.NewUser{Name: "Bob"})
		if err != nil {
			t.Fatal(err)
		}
		if err := directory.AddMember(ctx, db, org.ID, bob.ID, store.RoleMember); err != nil {
			t.Fatal(err)
		}
		if err := directory.AddMember(ctx, db, org.ID, bob.ID, store.RoleAdmin); err != nil { // role change
			t.Fatal(err)
		}
		if r, _ := directory.Role(ctx, db, org.ID, bob.ID); r != store.RoleAdmin {
			t.Fatalf("role after change %q", r)
		}
		if err := directory.AddMember(ctx, db, org.ID, store.NewID(), store.RoleMember); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("member of unknown user: %v", err)
		}
		orgs, err := directory.Organizations(ctx, db, bob.ID)
		if err != nil || len(orgs) != 1 || orgs[0].AccountID != org.ID || orgs[0].AccountName != "Acme" {
			t.Fatalf("orgs %+v %v", orgs, err)
		}
		if _, err := directory.Role(ctx, db, personal.ID, bob.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("bob in ada's personal account: %v", err)
		}
		if ok, err := directory.IsMember(ctx, db, org.ID, bob.ID); err != nil || !ok {
			t.Fatalf("bob is not a member of the organization: %v", err)
		}
		if ok, _ := directory.IsMember(ctx, db, personal.ID, bob.ID); ok {
			t.Fatal("bob is a member of ada's personal account")
		}
		if err := directory.RemoveMember(ctx, db, org.ID, bob.ID); err != nil {
			t.Fatal(err)
		}
		if orgs, _ := directory.Organizations(ctx, db, bob.ID); len(orgs) != 0 {
			t.Fatalf("still a member: %+v", orgs)
		}

		// Version pin round trip.
		if err := directory.SetAPIVersion(ctx, db, org.ID, "2026-07-27"); err != nil {
			t.Fatal(err)
		}
		if a, _ := directory.GetAccount(ctx, db, org.ID); a.APIVersion != "2026-07-27" {
			t.Fatalf("pin %q", a.APIVersion)
		}
		if err := directory.SetAPIVersion(ctx, db, org.ID, ""); err != nil {
			t.Fatal(err)
		}
		if a, _ := directory.GetAccount(ctx, db, org.ID); a.APIVersion != "" {
			t.Fatalf("pin not cleared: %q", a.APIVersion)
		}
		if _, err := directory.GetAccount(ctx, db, store.NewID()); !errors.Is(err, store.ErrNotFound) {
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
				u, err := directory.UserBySubject(ctx, db, "https://idp.test", "sub-1", "s@example.com", "S", 3)
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
		users, _ := directory.Users(ctx, db)
		if len(users) != 1 {
			t.Fatalf("%d users", len(users))
		}
		// A different issuer with the same subject and email is another person.
		u2, err := directory.UserBySubject(ctx, db, "https://other.test", "sub-1", "s@example.com", "", 0)
		if err != nil || u2.ID == ids[0] || u2.Email != "" {
			t.Fatalf("second issuer: %+v %v", u2, err)
		}
	})
}
