// Package mailtest holds real mail parts on loopback for tests: a DNS
// server (miekg/dns) that answers from records the test sets and applies
// RFC 2136 updates sent to it, and an SMTP sink (go-smtp) that stands in
// for a relay or a recipient's mail exchanger.
package mailtest

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// DNS is an authoritative server on 127.0.0.1 for whatever names it holds.
type DNS struct {
	Addr string // host:port, for both UDP and TCP

	mu      sync.Mutex
	rrs     map[string][]dns.RR // by lower-case FQDN
	updates []*dns.Msg
	// TSIG, when set (name → base64 secret), is required on updates.
	tsig map[string]string
}

// StartDNS starts a server until the test ends. tsig optionally names the
// one key updates must be signed with ("name.", secret).
func StartDNS(t testing.TB, tsig ...string) *DNS {
	t.Helper()
	d := &DNS{rrs: map[string][]dns.RR{}}
	if len(tsig) == 2 {
		d.tsig = map[string]string{dns.Fqdn(tsig[0]): tsig[1]}
	}
	// UDP and TCP must share a port. The port the system gave UDP may be
	// taken for TCP by another process (parallel test binaries), so try
	// again on a fresh port rather than fail.
	var (
		pc  net.PacketConn
		l   net.Listener
		err error
	)
	for attempt := 0; ; attempt++ {
		if pc, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		port := pc.LocalAddr().(*net.UDPAddr).Port
		if l, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", itoa(port))); err == nil {
			break
		}
		pc.Close()
		if attempt == 20 {
			t.Fatal(err)
		}
	}
	d.Addr = l.Addr().String()
	// The default accept function answers UPDATE with NOTIMP.
	accept := func(dns.Header) dns.MsgAcceptAction { return dns.MsgAccept }
	udp := &dns.Server{PacketConn: pc, Handler: d, TsigSecret: d.tsig, MsgAcceptFunc: accept}
	tcp := &dns.Server{Listener: l, Handler: d, TsigSecret: d.tsig, MsgAcceptFunc: accept}
	go udp.ActivateAndServe()
	go tcp.ActivateAndServe()
	t.Cleanup(func() { udp.Shutdown(); tcp.Shutdown() })
	return d
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for n > 0 || i == len(b) {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// Add publishes records given in zone-file syntax ("x.test. 300 IN TXT \"v=spf1 mx ~all\"").
func (d *DNS) Add(t testing.TB, records ...string) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range records {
		rr, err := dns.NewRR(s)
		if err != nil {
			t.Fatalf("record %q: %v", s, err)
		}
		k := strings.ToLower(rr.Header().Name)
		d.rrs[k] = append(d.rrs[k], rr)
	}
}

// AddTXT publishes a TXT value, split into 255-byte strings as a real zone would.
func (d *DNS) AddTXT(name, value string) {
	var parts []string
	for len(value) > 255 {
		parts = append(parts, value[:255])
		value = value[255:]
	}
	parts = append(parts, value)
	d.mu.Lock()
	defer d.mu.Unlock()
	k := strings.ToLower(dns.Fqdn(name))
	d.rrs[k] = append(d.rrs[k], &dns.TXT{Hdr: dns.RR_Header{Name: k, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60}, Txt: parts})
}

// Remove deletes every record of name.
func (d *DNS) Remove(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.rrs, strings.ToLower(dns.Fqdn(name)))
}

// Updates returns the RFC 2136 updates received.
func (d *DNS) Updates() []*dns.Msg {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*dns.Msg(nil), d.updates...)
}

// Has reports whether name holds a record of type t.
func (d *DNS) Has(name string, t uint16) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, rr := range d.rrs[strings.ToLower(dns.Fqdn(name))] {
		if rr.Header().Rrtype == t {
			return true
		}
	}
	return false
}

// ServeDNS answers queries and applies updates.
func (d *DNS) ServeDNS(w dns.ResponseWriter, r *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(r)
	if r.Opcode == dns.OpcodeUpdate {
		d.update(w, r, m)
		return
	}
	m.Authoritative = true
	d.mu.Lock()
	for _, q := range r.Question {
		name := strings.ToLower(q.Name)
		rrs, exists := d.rrs[name]
		if !exists {
			// A name with records below it exists (empty non-terminal).
			for k := range d.rrs {
				if strings.HasSuffix(k, "."+name) {
					exists = true
				}
			}
		}
		if !exists {
			m.Rcode = dns.RcodeNameError
		}
		for _, rr := range rrs {
			if rr.Header().Rrtype == q.Qtype {
				m.Answer = append(m.Answer, dns.Copy(rr))
			}
		}
	}
	d.mu.Unlock()
	w.WriteMsg(m)
}

func (d *DNS) update(w dns.ResponseWriter, r *dns.Msg, m *dns.Msg) {
	if d.tsig != nil {
		if r.IsTsig() == nil || w.TsigStatus() != nil {
			m.Rcode = dns.RcodeRefused
			w.WriteMsg(m)
			return
		}
		m.SetTsig(r.IsTsig().Hdr.Name, dns.HmacSHA256, 300, int64(r.IsTsig().TimeSigned))
	}
	d.mu.Lock()
	d.updates = append(d.updates, r.Copy())
	for _, rr := range r.Ns {
		h := rr.Header()
		k := strings.ToLower(h.Name)
		switch {
		case h.Class == dns.ClassANY && h.Rrtype == dns.TypeANY: // delete the name
			delete(d.rrs, k)
		case h.Class == dns.ClassANY: // delete an RRset
			kept := d.rrs[k][:0:0]
			for _, x := range d.rrs[k] {
				if x.Header().Rrtype != h.Rrtype {
					kept = append(kept, x)
				}
			}
			d.rrs[k] = kept
		case h.Class == dns.ClassNONE: // delete one RR
			kept := d.rrs[k][:0:0]
			for _, x := range d.rrs[k] {
				y := dns.Copy(rr)
				y.Header().Class = dns.ClassINET
				y.Header().Ttl = x.Header().Ttl
				if x.String() != y.String() {
					kept = append(kept, x)
				}
			}
			d.rrs[k] = kept
		default: // add
			d.rrs[k] = append(d.rrs[k], dns.Copy(rr))
		}
		if len(d.rrs[k]) == 0 {
			delete(d.rrs, k)
		}
	}
	d.mu.Unlock()
	w.WriteMsg(m)
}
