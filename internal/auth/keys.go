// Package auth owns who a request is: API keys (their format, hashing and a
// short-lived verification cache), OIDC bearer tokens, and the principal —
// user, account and role — that every handler acts for.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// KeyPrefix starts every API key, so keys are recognisable in logs and by
// secret scanners, and so a bearer token can be told apart from a JWT.
const KeyPrefix = "agk_"

// NewKey returns a fresh API key secret, its display prefix and its hash.
// 32 random bytes carry 256 bits of entropy, so a fast hash (SHA-256) is as
// safe as a password hash here and costs nothing per request.
func NewKey() (secret, prefix, hash string) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	secret = KeyPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return secret, DisplayPrefix(secret), HashKey(secret)
}

// DisplayPrefix is the part of a key safe to show in listings.
func DisplayPrefix(secret string) string {
	if len(secret) > len(KeyPrefix)+6 {
		return secret[:len(KeyPrefix)+6]
	}
	return secret
}

// HashKey is how a key is stored and looked up.
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// LooksLikeKey tells an API key from a JWT in an Authorization header.
func LooksLikeKey(token string) bool {
	return strings.HasPrefix(token, KeyPrefix) || strings.Count(token, ".") != 2
}
