package secrets_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/secrets"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func newService(t *testing.T, db *store.DB, fill byte) *secrets.Service {
	t.Helper()
	b, err := secrets.NewBox(bytes.Repeat([]byte{fill}, secrets.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return &secrets.Service{DB: db, Box: b}
}

func account(t *testing.T, db *store.DB) string {
	t.Helper()
	_, a, err := db.CreateUser(context.Background(), store.NewUser{Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

func TestService(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		s := newService(t, db, 1)
		a, b := account(t, db), account(t, db)
		const value = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
		if _, created, err := s.Put(ctx, a, "S3_SECRET", value); err != nil || !created {
			t.Fatalf("put: %v %v", created, err)
		}
		got, err := s.Reveal(ctx, a, "S3_SECRET")
		if err != nil || got != value {
			t.Fatalf("reveal: %q %v", got, err)
		}
		// Encrypted at rest.
		sealed, err := db.SealedSecret(ctx, a, "S3_SECRET")
		if err != nil || strings.Contains(sealed.Ciphertext, value) || sealed.KeyID != s.Box.KeyID() {
			t.Fatalf("stored: %+v %v", sealed, err)
		}
		// A row copied into another account does not open there.
		if _, _, err := db.PutSecret(ctx, b, sealed, 10); err != nil {
			t.Fatal(err)
		}
		if v, err := s.Reveal(ctx, b, "S3_SECRET"); err == nil || strings.Contains(err.Error(), value) {
			t.Fatalf("copied row opened: %q %v", v, err)
		}
		// Missing and malformed names are the step's clear failure.
		if _, err := s.Reveal(ctx, a, "NOPE"); !errors.Is(err, secrets.ErrMissingSecret) || !strings.Contains(err.Error(), `"NOPE"`) {
			t.Errorf("missing: %v", err)
		}
		// Another key names the problem.
		if _, err := newService(t, db, 2).Reveal(ctx, a, "S3_SECRET"); err == nil || !strings.Contains(err.Error(), "SERVICE_SECRETS_KEY") {
			t.Errorf("other key: %v", err)
		}
		for _, bad := range []struct{ name, value string }{
			{"1abc", "v"}, {"a-b", "v"}, {"", "v"}, {strings.Repeat("a", 65), "v"},
		} {
			if _, _, err := s.Put(ctx, a, bad.name, bad.value); !errors.Is(err, secrets.ErrInvalidName) {
				t.Errorf("name %q: %v", bad.name, err)
			}
		}
		for _, bad := range []string{"", strings.Repeat("x", secrets.MaxValueBytes+1), "\xff"} {
			if _, _, err := s.Put(ctx, a, "V", bad); !errors.Is(err, secrets.ErrInvalidValue) {
				t.Errorf("value of %d bytes: %v", len(bad), err)
			}
		}
		if _, _, err := s.Put(ctx, a, "MAX", strings.Repeat("x", secrets.MaxValueBytes)); err != nil {
			t.Errorf("largest value: %v", err)
		}
		list, err := s.List(ctx, a)
		if err != nil || len(list) != 2 || list[0].Name != "MAX" || list[1].Name != "S3_SECRET" {
			t.Fatalf("list: %+v %v", list, err)
		}
		if err := s.Delete(ctx, a, "S3_SECRET"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reveal(ctx, a, "S3_SECRET"); !errors.Is(err, secrets.ErrMissingSecret) {
			t.Errorf("after delete: %v", err)
		}
	})
}

func TestServiceLimit(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, store.SQLite)
	s := newService(t, db, 1)
	a := account(t, db)
	for i := range secrets.MaxPerAccount {
		if _, _, err := s.Put(ctx, a, "S"+strings.Repeat("x", i%50)+string(rune('a'+i/50))+string(rune('a'+i%26)), "v"); err != nil {
			t.Fatalf("secret %d: %v", i, err)
		}
	}
	if _, _, err := s.Put(ctx, a, "ONE_TOO_MANY", "v"); !errors.Is(err, secrets.ErrTooMany) {
		t.Fatalf("past the limit: %v", err)
	}
}
