// Package dkimkey owns DKIM key pairs: generating one per sending domain,
// encoding the private half for sealed storage, the public half as the
// DNS record receivers verify signatures against, and the operator's key
// for the shared domain (a PEM file in the data directory, created on
// first use, or one the operator configures).
package dkimkey

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Selector is the DKIM selector Agentry signs with: the record lives at
// <Selector>._domainkey.<domain>.
const Selector = "agentry"

// Bits is the RSA key size: 2048, what receivers expect today (1024 is
// refused by some; Ed25519 is not verified by most).
const Bits = 2048

// Generate makes a new key pair.
func Generate() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, Bits) }

// MarshalPrivate encodes a private key as PKCS#8 DER.
func MarshalPrivate(k crypto.Signer) ([]byte, error) { return x509.MarshalPKCS8PrivateKey(k) }

// ParsePrivate decodes a PKCS#8 (or PKCS#1) DER private key.
func ParsePrivate(der []byte) (crypto.Signer, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		s, ok := k.(crypto.Signer)
		if !ok {
			return nil, errors.New("dkim key: not a signing key")
		}
		return s, nil
	}
	k, err := x509.ParsePKCS1PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("dkim key: %w", err)
	}
	return k, nil
}

// PublicBase64 is the p= value of the DNS record: the public key's
// SubjectPublicKeyInfo in base64.
func PublicBase64(k crypto.Signer) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(k.Public())
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(der), nil
}

// RecordValue is the TXT value to publish for a public key.
func RecordValue(publicBase64 string) string { return "v=DKIM1; k=rsa; p=" + publicBase64 }

// RecordName is where the record is published for domain.
func RecordName(domain string) string { return Selector + "._domainkey." + domain }

// HasKey reports whether a published TXT value carries the public key.
func HasKey(txt, publicBase64 string) bool {
	for _, tag := range strings.Split(txt, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(tag), "=")
		if ok && strings.TrimSpace(k) == "p" && strings.Join(strings.Fields(v), "") == publicBase64 {
			return true
		}
	}
	return false
}

// LoadOrCreateFile reads a PEM private key from path, creating it (mode
// 0600) with a new key when it does not exist.
func LoadOrCreateFile(path string) (crypto.Signer, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		k, err := Generate()
		if err != nil {
			return nil, err
		}
		der, err := MarshalPrivate(k)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) { // another process made it first
			return LoadOrCreateFile(path)
		}
		if err != nil {
			return nil, err
		}
		if err := pem.Encode(f, &pem.Block{Type: "PRIVATE KEY", Bytes: der}); err != nil {
			f.Close()
			return nil, err
		}
		return k, f.Close()
	}
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("dkim key %s: no PEM block", path)
	}
	return ParsePrivate(blk.Bytes)
}
