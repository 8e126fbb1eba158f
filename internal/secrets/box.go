package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
)

// Box seals and opens secret values with one key.
type Box struct {
	aead cipher.AEAD
	id   string
}

// sealVersion heads every sealed value, so the format can change later.
const sealVersion = 1

// ErrCorrupt is a sealed value that does not open: another key sealed it,
// or it was bound to another account or name, or it was altered.
var ErrCorrupt = errors.New("the sealed value does not open with this key for this account and name")

// NewBox returns a box for a 32-byte key.
func NewBox(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secrets key: %d bytes, want %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(append([]byte("agentry secrets key id\x00"), key...))
	return &Box{aead: aead, id: hex.EncodeToString(sum[:8])}, nil
}

// KeyID names the key without revealing it, so that a value sealed by
// another key is recognised as such.
func (b *Box) KeyID() string { return b.id }

// associatedData binds a value to its account and name: a sealed value
// moved to another row does not open. Names never contain NUL.
func associatedData(accountID, name string) []byte {
	return []byte("agentry secret v1\x00" + accountID + "\x00" + name)
}

// Seal encrypts value for accountID's secret name; the result is base64.
func (b *Box) Seal(accountID, name string, value []byte) (string, error) {
	nonce := make([]byte, b.aead.NonceSize(), 1+b.aead.NonceSize()+len(value)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := append([]byte{sealVersion}, nonce...)
	out = b.aead.Seal(out, nonce, value, associatedData(accountID, name))
	return base64.StdEncoding.EncodeToString(out), nil
}

// Open decrypts what Seal returned for the same account and name.
func (b *Box) Open(accountID, name, sealed string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < 1+b.aead.NonceSize()+b.aead.Overhead() || raw[0] != sealVersion {
		return nil, ErrCorrupt
	}
	nonce, ct := raw[1:1+b.aead.NonceSize()], raw[1+b.aead.NonceSize():]
	v, err := b.aead.Open(nil, nonce, ct, associatedData(accountID, name))
	if err != nil {
		return nil, ErrCorrupt
	}
	return v, nil
}
