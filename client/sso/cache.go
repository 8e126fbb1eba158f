package sso

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotLoggedIn is returned when the cache holds no token for a provider.
var ErrNotLoggedIn = errors.New("not logged in: run `agentry auth login`")

// Token is what a login leaves in the cache: the provider's tokens and
// where to refresh them, so a refresh needs no discovery round trip.
type Token struct {
	Issuer        string    `json:"issuer"`
	ClientID      string    `json:"client_id"`
	TokenEndpoint string    `json:"token_endpoint"`
	AccessToken   string    `json:"access_token"`
	RefreshToken  string    `json:"refresh_token,omitempty"`
	IDToken       string    `json:"id_token,omitempty"`
	TokenType     string    `json:"token_type,omitempty"`
	Expiry        time.Time `json:"expiry,omitzero"`
}

// Bearer is the credential sent to the API. The server verifies tokens
// as OIDC ID tokens issued for the CLI's client id (the audience it is
// configured with), so the ID token is sent; the access token stands in for
// providers that issue no ID token.
func (t *Token) Bearer() string {
	if t.IDToken != "" {
		return t.IDToken
	}
	return t.AccessToken
}

// ValidUntil is when the bearer stops being usable: the token response's
// expiry, or the ID token's own exp claim when that comes first.
func (t *Token) ValidUntil() time.Time {
	until := t.Expiry
	if t.IDToken != "" {
		if exp, ok := jwtExpiry(t.IDToken); ok && (until.IsZero() || exp.Before(until)) {
			until = exp
		}
	}
	return until
}

// ExpiresWithin reports whether the bearer expires before now+margin. A
// token without any expiry never does.
func (t *Token) ExpiresWithin(margin time.Duration, now time.Time) bool {
	until := t.ValidUntil()
	return !until.IsZero() && !now.Add(margin).Before(until)
}

// Expired reports whether the bearer is past its expiry.
func (t *Token) Expired(now time.Time) bool { return t.ExpiresWithin(0, now) }

// Claims decodes the payload of the ID token (or a JWT access token)
// without verifying it: for display only (who is logged in), never for
// trust decisions, which the server makes.
func (t *Token) Claims() map[string]any {
	for _, raw := range []string{t.IDToken, t.AccessToken} {
		if !looksLikeJWT(raw) {
			continue
		}
		payload := strings.Split(raw, ".")[1]
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(payload, "="))
		if err != nil {
			continue
		}
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			return m
		}
	}
	return nil
}

func looksLikeJWT(s string) bool { return strings.Count(s, ".") == 2 && len(s) > 10 }

// jwtExpiry reads the exp claim of a JWT without verifying it.
func jwtExpiry(raw string) (time.Time, bool) {
	if !looksLikeJWT(raw) {
		return time.Time{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(strings.Split(raw, ".")[1], "="))
	if err != nil {
		return time.Time{}, false
	}
	var c struct {
		Exp *float64 `json:"exp"`
	}
	if json.Unmarshal(b, &c) != nil || c.Exp == nil {
		return time.Time{}, false
	}
	return time.Unix(int64(*c.Exp), 0), true
}

// Cache keeps tokens on disk, one file per identity provider and client, so
// profiles that share a provider share a login. Files are mode 0600 in a
// 0700 directory.
type Cache struct{ Dir string }

// CacheFor is the token cache under a configuration directory.
func CacheFor(configDir string) Cache { return Cache{Dir: filepath.Join(configDir, "sso", "cache")} }

// Path is the file that holds the token for issuer and client id.
func (c Cache) Path(issuer, clientID string) string {
	sum := sha256.Sum256([]byte(issuer + "\x00" + clientID))
	return filepath.Join(c.Dir, hex.EncodeToString(sum[:10])+".json")
}

// Load returns the cached token, or ErrNotLoggedIn.
func (c Cache) Load(issuer, clientID string) (*Token, error) {
	b, err := os.ReadFile(c.Path(issuer, clientID))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotLoggedIn
	}
	if err != nil {
		return nil, err
	}
	var t Token
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("token cache %s is corrupt (log in again): %w", c.Path(issuer, clientID), err)
	}
	if t.AccessToken == "" && t.RefreshToken == "" {
		return nil, ErrNotLoggedIn
	}
	return &t, nil
}

// Save writes t atomically with mode 0600.
func (c Cache) Save(t *Token) error {
	if t.Issuer == "" || t.ClientID == "" {
		return errors.New("token cache: a token needs its issuer and client id")
	}
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(c.Path(t.Issuer, t.ClientID), b)
}

// Delete removes the cached token; a missing one is not an error.
func (c Cache) Delete(issuer, clientID string) error {
	err := os.Remove(c.Path(issuer, clientID))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
