package domains

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// DNSUpdate is an RFC 2136 dynamic-update server the operator runs for
// the zones Agentry manages (the shared domain's vanity names, delegated
// custom domains), optionally authenticated with TSIG (HMAC-SHA256).
type DNSUpdate struct {
	Server     string // host:port
	TSIGName   string // key name; "" sends unsigned updates
	TSIGSecret string // base64
}

// ParseDNSUpdate reads SERVICE_DNS_UPDATE_SERVER and SERVICE_DNS_UPDATE_TSIG
// ("keyname:base64secret"); an empty server turns updates off (nil).
func ParseDNSUpdate(server, tsig string) (*DNSUpdate, error) {
	if server == "" {
		return nil, nil
	}
	u := &DNSUpdate{Server: server}
	if !strings.Contains(server, ":") {
		u.Server = server + ":53"
	}
	if tsig != "" {
		name, secret, ok := strings.Cut(tsig, ":")
		if _, err := base64.StdEncoding.DecodeString(secret); !ok || name == "" || err != nil {
			return nil, fmt.Errorf("SERVICE_DNS_UPDATE_TSIG: want keyname:base64secret")
		}
		u.TSIGName, u.TSIGSecret = dns.Fqdn(name), secret
	}
	return u, nil
}

// rrs turns records into resource records.
func rrs(recs []Record, ttl uint32) ([]dns.RR, error) {
	var out []dns.RR
	for _, r := range recs {
		hdr := dns.RR_Header{Name: dns.Fqdn(r.Name), Class: dns.ClassINET, Ttl: ttl}
		switch r.Type {
		case "MX":
			hdr.Rrtype = dns.TypeMX
			out = append(out, &dns.MX{Hdr: hdr, Preference: uint16(r.MXPriority), Mx: dns.Fqdn(r.MXHost)})
		case "TXT":
			hdr.Rrtype = dns.TypeTXT
			out = append(out, &dns.TXT{Hdr: hdr, Txt: splitTXT(r.Value)})
		default:
			return nil, fmt.Errorf("record type %s", r.Type)
		}
	}
	return out, nil
}

// splitTXT cuts a value into the 255-byte strings a TXT record holds.
func splitTXT(v string) []string {
	var out []string
	for len(v) > 255 {
		out = append(out, v[:255])
		v = v[255:]
	}
	return append(out, v)
}

// apply sends one update to zone: the record sets of recs are replaced
// (remove=false) or deleted (remove=true).
func (u *DNSUpdate) apply(ctx context.Context, zone string, recs []Record, remove bool) error {
	set, err := rrs(recs, 300)
	if err != nil {
		return err
	}
	m := new(dns.Msg)
	m.SetUpdate(dns.Fqdn(zone))
	m.RemoveRRset(set)
	if !remove {
		m.Insert(set)
	}
	c := &dns.Client{Net: "tcp", Timeout: 10 * time.Second}
	if u.TSIGName != "" {
		m.SetTsig(u.TSIGName, dns.HmacSHA256, 300, time.Now().Unix())
		c.TsigSecret = map[string]string{u.TSIGName: u.TSIGSecret}
	}
	resp, _, err := c.ExchangeContext(ctx, m, u.Server)
	if err != nil {
		return fmt.Errorf("dns update to %s: %w", u.Server, err)
	}
	if resp.Rcode != dns.RcodeSuccess {
		return fmt.Errorf("dns update to %s: %s", u.Server, dns.RcodeToString[resp.Rcode])
	}
	return nil
}
