package mailtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"
)

// DKIMKey is a signing key published in a DNS.
type DKIMKey struct {
	Domain, Selector string
	key              ed25519.PrivateKey
}

// PublishDKIM makes an Ed25519 key and publishes it at
// selector._domainkey.domain.
func (d *DNS) PublishDKIM(t testing.TB, domain, selector string) DKIMKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	d.AddTXT(selector+"._domainkey."+domain, "v=DKIM1; k=ed25519; p="+base64.StdEncoding.EncodeToString(pub))
	return DKIMKey{Domain: domain, Selector: selector, key: priv}
}

// Sign returns msg with a DKIM-Signature header.
func (k DKIMKey) Sign(t testing.TB, msg []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := dkim.Sign(&out, bytes.NewReader(msg), &dkim.SignOptions{Domain: k.Domain, Selector: k.Selector, Signer: k.key}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// SelfSignedFiles writes a self-signed certificate for host and its key
// as PEM files in a temporary directory.
func SelfSignedFiles(t testing.TB, host string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
