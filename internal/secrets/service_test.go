package secrets_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
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
	return secrets.New(db, b)
}

func account(t *testing.T, db *store.DB) string {
	t.Helper()
	_, a, err := directory.CreateUser(context.Background(), db, directory.NewUser{Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

func str(s string) *string { return &s }

var hosts = []string{"s3.example.com"}

func TestService(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		s := newService(t, db, 1)
		a, b := account(t, db), account(t, db)
		const value = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
		if _, created, err := s.Put(ctx, a, "S3_SECRET", str(value), hosts); err != nil || !created {
			t.Fatalf("put: %v %v", created, err)
		}
		got, err := s.Reveal(ctx, a, "S3_SECRET")
		if err != nil || got.Value != value || got.Name != "S3_SECRET" || len(got.Hosts) != 1 || got.Hosts[0] != "s3.example.com" {
			t.Fatalf("reveal: %+v %v", got.Hosts, err)
		}
		// Encrypted at rest.
		sealed, err := s.SealedForTest(ctx, a, "S3_SECRET")
		if err != nil || strings.Contains(sealed.Ciphertext, value) || sealed.KeyID != s.Box.KeyID() {
			t.Fatalf("stored: %+v %v", sealed, err)
		}
		// A row copied into another account does not open there.
		if err := s.PutSealedForTest(ctx, b, sealed, hosts); err != nil {
			t.Fatal(err)
		}
		if v, err := s.Reveal(ctx, b, "S3_SECRET"); err == nil || strings.Contains(err.Error(), value) {
			t.Fatalf("copied row opened: %q %v", v.Value, err)
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
			if _, _, err := s.Put(ctx, a, bad.name, str(bad.value), hosts); !errors.Is(err, secrets.ErrInvalidName) {
				t.Errorf("name %q: %v", bad.name, err)
			}
		}
		for _, bad := range []string{"", strings.Repeat("x", secrets.MaxValueBytes+1), "\xff"} {
			if _, _, err := s.Put(ctx, a, "V", str(bad), hosts); !errors.Is(err, secrets.ErrInvalidValue) {
				t.Errorf("value of %d bytes: %v", len(bad), err)
			}
		}
		if _, _, err := s.Put(ctx, a, "MAX", str(strings.Repeat("x", secrets.MaxValueBytes)), hosts); err != nil {
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
		if _, _, err := s.Put(ctx, a, "S"+strings.Repeat("x", i%50)+string(rune('a'+i/50))+string(rune('a'+i%26)), str("v"), hosts); err != nil {
			t.Fatalf("secret %d: %v", i, err)
		}
	}
	if _, _, err := s.Put(ctx, a, "ONE_TOO_MANY", str("v"), hosts); !errors.Is(err, secrets.ErrTooMany) {
		t.Fatalf("past the limit: %v", err)
	}
}

// TestServiceHosts: a new secret needs hosts, which are checked and made
// canonical; value and hosts change apart; an unbound secret (stored
// before binding) still opens, with no hosts, so its use is refused.
func TestServiceHosts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		s := newService(t, db, 1)
		a := account(t, db)
		if _, _, err := s.Put(ctx, a, "T", str("v1"), nil); !errors.Is(err, secrets.ErrHostsRequired) {
			t.Fatalf("no hosts: %v", err)
		}
		for _, bad := range [][]string{{}, {"https://api.example.com/"}, {"*"}, {"*.com"}, {"a b"}, {"x.example:0"}, {"x.example:99999"},
			{"user@x.example"}, make([]string, 17)} {
			if _, _, err := s.Put(ctx, a, "T", str("v1"), bad); !errors.Is(err, secrets.ErrInvalidHosts) {
				t.Errorf("hosts %q: %v", bad, err)
			}
		}
		info, created, err := s.Put(ctx, a, "T", str("v1"), []string{"API.Example.com.", "minio.internal:9000", "*.Example.org", "[::1]:8080", "api.example.com", "10.0.0.1"})
		if err != nil || !created {
			t.Fatal(err)
		}
		want := []string{"api.example.com", "minio.internal:9000", "*.example.org", "[::1]:8080", "10.0.0.1"}
		if strings.Join(info.Hosts, ",") != strings.Join(want, ",") {
			t.Errorf("canonical hosts: %q", info.Hosts)
		}
		if _, _, err := s.Put(ctx, a, "T", nil, []string{"other.example"}); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Reveal(ctx, a, "T"); got.Value != "v1" || strings.Join(got.Hosts, ",") != "other.example" {
			t.Errorf("rebound: %+v", got.Hosts)
		}
		if _, _, err := s.Put(ctx, a, "T", str("v2"), nil); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Reveal(ctx, a, "T"); got.Value != "v2" || strings.Join(got.Hosts, ",") != "other.example" {
			t.Errorf("new value: %+v", got.Hosts)
		}
		if _, _, err := s.Put(ctx, a, "MISSING", nil, []string{"x.example"}); !errors.Is(err, secrets.ErrValueRequired) {
			t.Errorf("hosts of a missing secret: %v", err)
		}
		if _, _, err := s.Put(ctx, a, "T", nil, nil); !errors.Is(err, secrets.ErrValueRequired) {
			t.Errorf("neither: %v", err)
		}
	})
}
