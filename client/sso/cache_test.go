package sso

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestCacheRoundTripIsPrivate(t *testing.T) {
	c := CacheFor(t.TempDir())
	if _, err := c.Load("https://i", "c"); !errors.Is(err, ErrNotLoggedIn) {
		t.Fatalf("empty cache: %v", err)
	}
	exp := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	in := &Token{Issuer: "https://i", ClientID: "c", TokenEndpoint: "https://i/token", AccessToken: "a.b.c", RefreshToken: "r", Expiry: exp}
	if err := c.Save(in); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(c.Path("https://i", "c"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode = %v, want 0600", st.Mode().Perm())
	}
	if d, _ := os.Stat(filepath.Dir(c.Path("https://i", "c"))); d.Mode().Perm() != 0o700 {
		t.Fatalf("cache dir mode = %v, want 0700", d.Mode().Perm())
	}
	out, err := c.Load("https://i", "c")
	if err != nil || out.AccessToken != "a.b.c" || out.RefreshToken != "r" || !out.Expiry.Equal(exp) {
		t.Fatalf("load = %+v, %v", out, err)
	}
	// Another client of the same issuer has its own entry.
	if _, err := c.Load("https://i", "other"); !errors.Is(err, ErrNotLoggedIn) {
		t.Fatalf("cache keyed by client id: %v", err)
	}
	if err := c.Delete("https://i", "c"); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete("https://i", "c"); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
}

func TestTokenExpiryAndBearer(t *testing.T) {
	now := time.Now()
	tk := &Token{AccessToken: "opaque", Expiry: now.Add(30 * time.Second)}
	if !tk.ExpiresWithin(time.Minute, now) || tk.ExpiresWithin(10*time.Second, now) || tk.Expired(now) {
		t.Fatal("expiry margin arithmetic is wrong")
	}
	if tk.Bearer() != "opaque" {
		t.Fatal("without an ID token the access token is the bearer")
	}
	// The ID token is the bearer, and its own exp counts when it is earlier.
	tk.IDToken = fakeJWT(now.Add(5 * time.Second).Unix())
	if tk.Bearer() != tk.IDToken {
		t.Fatal("the ID token is the bearer")
	}
	if !tk.ExpiresWithin(10*time.Second, now) || tk.ValidUntil().Unix() != now.Add(5*time.Second).Unix() {
		t.Fatalf("the ID token's exp was ignored: valid until %v", tk.ValidUntil())
	}
	tk.IDToken = fakeJWT(now.Add(time.Hour).Unix())
	if !tk.ValidUntil().Equal(tk.Expiry) {
		t.Fatal("a later ID token exp must not extend the token response's expiry")
	}
	if (&Token{AccessToken: "a"}).ExpiresWithin(time.Hour, now) {
		t.Fatal("a token without expiry never expires")
	}
	if c := (&Token{IDToken: fakeJWT(1)}).Claims(); c["sub"] != "u1" {
		t.Fatalf("claims = %v", c)
	}
}

func fakeJWT(exp int64) string {
	payload := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"u1","exp":` + strconv.FormatInt(exp, 10) + `}`))
	return "eyJhbGciOiJub25lIn0." + payload + ".sig"
}
