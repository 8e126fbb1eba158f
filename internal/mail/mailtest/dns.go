// Package mailtest holds the real parts mail tests talk to: a DNS server
// on loopback (miekg/dns) serving the TXT, MX and A records that SPF,
// DKIM, DMARC and domain checks read, and DKIM signing of test messages.
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
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"
	"github.com/miekg/dns"
)

// DNS is an authoritative server on loopback for whatever names it is
// given; it answers NXDOMAIN for the rest.
type DNS struct {
	Addr string // host:port, UDP and TCP
	mu   sync.Mutex
	txt  map[string][]string
	a    map[string][]net.IP
	mx   map[string][]string
}

// StartDNS starts a server until the test ends.
func StartDNS(t testing.TB) *DNS {
	t.Helper()
	d := &DNS{txt: map[string][]string{}, a: map[string][]net.IP{}, mx: map[string][]string{}}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tl, err := net.Listen("tcp", pc.LocalAddr().String())
	if err != nil {
		pc.Close()
		t.Fatal(err)
	}
	d.Addr = pc.LocalAddr().String()
	udp := &dns.Server{PacketConn: pc, Handler: d}
	tcp := &dns.Server{Listener: tl, Handler: d}
	go udp.ActivateAndServe()
	go tcp.ActivateAndServe()
	t.Cleanup(func() { udp.Shutdown(); tcp.Shutdown() })
	return d
}

// TXT publishes TXT records at name (replacing earlier ones).
func (d *DNS) TXT(name string, values ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.txt[dns.Fqdn(strings.ToLower(name))] = values
}

// A publishes addresses at name.
func (d *DNS) A(name string, ips ...net.IP) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.a[dns.Fqdn(strings.ToLower(name))] = ips
}

// MX publishes mail exchangers at name.
func (d *DNS) MX(name string, hosts ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.mx[dns.Fqdn(strings.ToLower(name))] = hosts
}

// ServeDNS answers one query.
func (d *DNS) ServeDNS(w dns.ResponseWriter, q *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(q)
	m.Authoritative = true
	d.mu.Lock()
	found := false
	for _, qq := range q.Question {
		name := strings.ToLower(qq.Name)
		hdr := dns.RR_Header{Name: qq.Name, Class: dns.ClassINET, Ttl: 60}
		_, hasTXT := d.txt[name]
		_, hasA := d.a[name]
		_, hasMX := d.mx[name]
		found = found || hasTXT || hasA || hasMX
		switch qq.Qtype {
		case dns.TypeTXT:
			for _, v := range d.txt[name] {
				h := hdr
				h.Rrtype = dns.TypeTXT
				m.Answer = append(m.Answer, &dns.TXT{Hdr: h, Txt: chunk(v)})
			}
		case dns.TypeA:
			for _, ip := range d.a[name] {
				if ip4 := ip.To4(); ip4 != nil {
					h := hdr
					h.Rrtype = dns.TypeA
					m.Answer = append(m.Answer, &dns.A{Hdr: h, A: ip4})
				}
			}
		case dns.TypeMX:
			for i, host := range d.mx[name] {
				h := hdr
				h.Rrtype = dns.TypeMX
				m.Answer = append(m.Answer, &dns.MX{Hdr: h, Preference: uint16(10 * (i + 1)), Mx: dns.Fqdn(host)})
			}
		}
	}
	d.mu.Unlock()
	if !found {
		m.Rcode = dns.RcodeNameError
	}
	w.WriteMsg(m)
}

// chunk splits a TXT value into the 255-byte strings DNS carries.
func chunk(v string) []string {
	var out []string
	for len(v) > 255 {
		out = append(out, v[:255])
		v = v[255:]
	}
	return append(out, v)
}

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
	d.TXT(selector+"._domainkey."+domain, "v=DKIM1; k=ed25519; p="+base64.StdEncoding.EncodeToString(pub))
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
