package store_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
		if bal, _ := db.Balance(ctx, personal.ID); bal != 12.5 {
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

func TestConcurrentDebits(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		_, a, _ := db.CreateUser(ctx, store.NewUser{Name: "C", OpeningCredits: 50})
		var ok, refused atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 40; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < 5; j++ {
					_, err := db.Debit(ctx, a.ID, 0.5, "test", "")
					switch {
					case err == nil:
						ok.Add(1)
					case errors.Is(err, store.ErrInsufficientCredits):
						refused.Add(1)
					default:
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 100 || refused.Load() != 100 {
			t.Fatalf("ok %d refused %d, want 100 each", ok.Load(), refused.Load())
		}
		if bal, _ := db.Balance(ctx, a.ID); bal != 0 {
			t.Fatalf("balance %v", bal)
		}
		entries, _ := db.Ledger(ctx, a.ID, 1000)
		if len(entries) != 101 { // opening + 100 debits
			t.Fatalf("%d ledger entries", len(entries))
		}
		// A charge may overdraw; after it a debit is refused; a grant restores.
		if bal, err := db.Charge(ctx, a.ID, 1.25, "usage", "run-1"); err != nil || bal != -1.25 {
			t.Fatalf("charge %v %v", bal, err)
		}
		if _, err := db.Debit(ctx, a.ID, 0.000001, "x", ""); !errors.Is(err, store.ErrInsufficientCredits) {
			t.Fatalf("debit while overdrawn: %v", err)
		}
		if bal, err := db.Grant(ctx, a.ID, 10, "grant", ""); err != nil || bal != 8.75 {
			t.Fatalf("grant %v %v", bal, err)
		}
		if _, err := db.Debit(ctx, store.NewID(), 1, "x", ""); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("debit of missing account: %v", err)
		}
	})
}

func TestUsage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		_, a, _ := db.CreateUser(ctx, store.NewUser{Name: "U", OpeningCredits: 1})
		u, bal, err := db.RecordUsage(ctx, store.Usage{AccountID: a.ID, Purpose: "prompt_call", Model: "m", InputTokens: 100, OutputTokens: 20, Credits: 0.25, Latency: 120 * time.Millisecond, RunID: "r1", StepID: "s1"})
		if err != nil || bal != 0.75 || u.ID == "" {
			t.Fatalf("record: %v %v", bal, err)
		}
		if _, _, err := db.RecordUsage(ctx, store.Usage{AccountID: a.ID, Purpose: "prompt_call", Model: "m", OutputTokens: 5, Credits: 1, RunID: "r1"}); err != nil {
			t.Fatal(err)
		}
		tot, err := db.UsageOf(ctx, a.ID, "run", "r1")
		if err != nil || tot.Calls != 2 || tot.InputTokens != 100 || tot.OutputTokens != 25 || tot.Credits != 1.25 {
			t.Fatalf("totals %+v %v", tot, err)
		}
		if ok, _ := db.CanAfford(ctx, a.ID, 0.01); ok {
			t.Error("overdrawn account can afford")
		}
		if other, _ := db.UsageOf(ctx, store.NewID(), "run", "r1"); other.Calls != 0 {
			t.Error("usage visible to another account")
		}
		if _, _, err := db.RecordUsage(ctx, store.Usage{AccountID: store.NewID(), Purpose: "x", Model: "m"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("usage of unknown account: %v", err)
		}
	})
}
