package secrets

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func TestRepo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		r := repo{db}
		acct, other := storetest.NewAccount(t, db), storetest.NewAccount(t, db)
		put := func(accountID, name, ct string, limit int) (Info, bool, error) {
			return r.put(ctx, accountID, Sealed{Info: Info{Name: name}, Ciphertext: ct, KeyID: "k1"}, []string{"h.example"}, limit)
		}
		first, created, err := put(acct, "B", "c1", 10)
		if err != nil || !created || first.CreatedAt.IsZero() || first.UpdatedAt != first.CreatedAt {
			t.Fatalf("create: %+v %v %v", first, created, err)
		}
		again, created, err := put(acct, "B", "c2", 10)
		if err != nil || created || !again.CreatedAt.Equal(first.CreatedAt) || again.UpdatedAt.Before(first.UpdatedAt) {
			t.Fatalf("replace: %+v %v %v", again, created, err)
		}
		if _, _, err := put(acct, "A", "c3", 10); err != nil {
			t.Fatal(err)
		}
		list, err := r.list(ctx, acct)
		if err != nil || len(list) != 2 || list[0].Name != "A" || list[1].Name != "B" {
			t.Fatalf("list: %+v %v", list, err)
		}
		s, err := r.sealed(ctx, acct, "B")
		if err != nil || s.Ciphertext != "c2" || s.KeyID != "k1" || len(s.Hosts) != 1 || s.Hosts[0] != "h.example" {
			t.Fatalf("sealed: %+v %v", s, err)
		}
		// Hosts alone change without the value; nil hosts keep them; a new
		// name needs hosts, and hosts alone do not create a secret.
		if info, _, err := r.put(ctx, acct, Sealed{Info: Info{Name: "B"}}, []string{"x.example", "*.y.example"}, 10); err != nil ||
			len(info.Hosts) != 2 || info.Hosts[1] != "*.y.example" {
			t.Fatalf("rebind: %+v %v", info, err)
		}
		if s, _ := r.sealed(ctx, acct, "B"); s.Ciphertext != "c2" || s.KeyID != "k1" || len(s.Hosts) != 2 {
			t.Fatalf("after rebind: %+v", s)
		}
		if _, _, err := r.put(ctx, acct, Sealed{Info: Info{Name: "B"}, Ciphertext: "c2b", KeyID: "k2"}, nil, 10); err != nil {
			t.Fatal(err)
		}
		if s, _ := r.sealed(ctx, acct, "B"); s.Ciphertext != "c2b" || s.KeyID != "k2" || len(s.Hosts) != 2 {
			t.Fatalf("new value, kept hosts: %+v", s)
		}
		if _, _, err := r.put(ctx, acct, Sealed{Info: Info{Name: "NEW"}, Ciphertext: "c", KeyID: "k1"}, nil, 10); !errors.Is(err, errNeedsHosts) {
			t.Errorf("new secret without hosts: %v", err)
		}
		if _, _, err := r.put(ctx, acct, Sealed{Info: Info{Name: "NEW"}}, []string{"h.example"}, 10); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("hosts of a missing secret: %v", err)
		}
		// A secret stored before binding (NULL hosts) lists and reads unbound.
		if _, err := db.W.ExecContext(ctx, `UPDATE account_secrets SET hosts = NULL WHERE account_id = $1 AND name = 'A'`, acct); err != nil {
			t.Fatal(err)
		}
		if s, err := r.sealed(ctx, acct, "A"); err != nil || s.Hosts == nil || len(s.Hosts) != 0 {
			t.Fatalf("unbound: %+v %v", s, err)
		}
		// Another account sees none of it and cannot delete it.
		if l, _ := r.list(ctx, other); len(l) != 0 {
			t.Errorf("other account lists %d secrets", len(l))
		}
		if _, err := r.sealed(ctx, other, "B"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other account reads: %v", err)
		}
		if err := r.remove(ctx, other, "B"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other account deletes: %v", err)
		}
		// The limit counts names: replacing at the limit is fine, a new name is not.
		if _, _, err := put(acct, "B", "c4", 2); err != nil {
			t.Errorf("replace at the limit: %v", err)
		}
		if _, _, err := put(acct, "C", "c5", 2); !errors.Is(err, ErrTooMany) {
			t.Errorf("past the limit: %v", err)
		}
		if _, _, err := put("0190a3b4-0000-7000-8000-000000000000", "A", "x", 2); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown account: %v", err)
		}
		if err := r.remove(ctx, acct, "B"); err != nil {
			t.Fatal(err)
		}
		if err := r.remove(ctx, acct, "B"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second delete: %v", err)
		}

		// Concurrent creates never pass the limit.
		fresh := storetest.NewAccount(t, db)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := put(fresh, "N"+string(rune('a'+i)), "x", 3)
				if err != nil && !errors.Is(err, ErrTooMany) {
					t.Errorf("concurrent put: %v", err)
				}
			}()
		}
		wg.Wait()
		if l, _ := r.list(ctx, fresh); len(l) > 3 {
			t.Errorf("%d secrets past a limit of 3", len(l))
		}
	})
}
