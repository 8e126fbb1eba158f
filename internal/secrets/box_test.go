package secrets

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

func testBox(t testing.TB, fill byte) *Box {
	t.Helper()
	b, err := NewBox(bytes.Repeat([]byte{fill}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBox(t *testing.T) {
	b := testBox(t, 1)
	sealed, err := b.Seal("acct-a", "S3_SECRET", []byte("wJalrXUtnFEMI/K7MDENG"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "wJalr") {
		t.Fatal("the sealed value shows the plaintext")
	}
	if again, _ := b.Seal("acct-a", "S3_SECRET", []byte("wJalrXUtnFEMI/K7MDENG")); again == sealed {
		t.Error("two seals of one value are equal: the nonce is not fresh")
	}
	v, err := b.Open("acct-a", "S3_SECRET", sealed)
	if err != nil || string(v) != "wJalrXUtnFEMI/K7MDENG" {
		t.Fatalf("open: %q %v", v, err)
	}
	// Bound to account and name, and to the key.
	for name, open := range map[string]func() ([]byte, error){
		"other account": func() ([]byte, error) { return b.Open("acct-b", "S3_SECRET", sealed) },
		"other name":    func() ([]byte, error) { return b.Open("acct-a", "OTHER", sealed) },
		"other key":     func() ([]byte, error) { return testBox(t, 2).Open("acct-a", "S3_SECRET", sealed) },
		"altered": func() ([]byte, error) {
			raw, _ := base64.StdEncoding.DecodeString(sealed)
			raw[len(raw)-1] ^= 1
			return b.Open("acct-a", "S3_SECRET", base64.StdEncoding.EncodeToString(raw))
		},
		"not base64": func() ([]byte, error) { return b.Open("acct-a", "S3_SECRET", "%%%") },
		"truncated":  func() ([]byte, error) { return b.Open("acct-a", "S3_SECRET", sealed[:8]) },
	} {
		if v, err := open(); err != ErrCorrupt || v != nil {
			t.Errorf("%s: opened %q, %v", name, v, err)
		}
	}
	if testBox(t, 1).KeyID() != b.KeyID() || testBox(t, 2).KeyID() == b.KeyID() {
		t.Error("key ids do not tell keys apart")
	}
}

// FuzzOpen: whatever is stored, Open never panics and opens only what
// Seal made for that account and name.
func FuzzOpen(f *testing.F) {
	b := testBox(f, 3)
	good, _ := b.Seal("a", "N", []byte("v"))
	f.Add(good, "a", "N")
	f.Add("AQ==", "a", "N")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, sealed, account, name string) {
		v, err := b.Open(account, name, sealed)
		// The only value ever sealed (in any fuzz worker) is "v" for a/N.
		if err == nil && (account != "a" || name != "N" || string(v) != "v") {
			t.Fatalf("opened %q from %q for %q/%q", v, sealed, account, name)
		}
	})
}
