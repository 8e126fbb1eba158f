package domains

import (
	"strings"

	"github.com/agentry/agentry/internal/mail/dkimkey"
	"golang.org/x/net/publicsuffix"
)

// Record is one DNS record a domain needs, with its last check.
type Record struct {
	Key          string `json:"key"` // mx, spf, dkim, dmarc
	Type         string `json:"type"`
	Name         string `json:"name"`
	RelativeName string `json:"relative_name"`
	Value        string `json:"value"`
	MXHost       string `json:"mx_host,omitempty"`
	MXPriority   int    `json:"mx_priority,omitempty"`
	OK           bool   `json:"ok"`
	Detail       string `json:"detail,omitempty"`
}

// ReportLocalPart is the mailbox DMARC aggregate reports are sent to, on
// each domain: rua=mailto:dmarc-reports@<domain>. The domain's MX points
// at Agentry, so the reports arrive through its inbound server.
const ReportLocalPart = "dmarc-reports"

// MXPriority is the preference of the MX record asked for.
const MXPriority = 10

// records lists what domain must publish.
func (s *Service) records(domain, publicKey string) []Record {
	return []Record{
		{Key: "mx", Type: "MX", Name: domain, Value: s.cfg.MXHost, MXHost: s.cfg.MXHost, MXPriority: MXPriority},
		{Key: "spf", Type: "TXT", Name: domain, Value: s.cfg.SPF},
		{Key: "dkim", Type: "TXT", Name: dkimkey.RecordName(domain), Value: dkimkey.RecordValue(publicKey)},
		{Key: "dmarc", Type: "TXT", Name: "_dmarc." + domain, Value: "v=DMARC1; p=none; rua=mailto:" + ReportLocalPart + "@" + domain + "; adkim=r; aspf=r"},
	}
}

// zoneApex is the zone a domain's records are published in: the shared
// domain for vanity names, the domain itself when delegated, otherwise
// its registrable domain (where a registrar's DNS editor works).
func (s *Service) zoneApex(domain, kind string, delegated bool) string {
	switch {
	case kind == KindVanity:
		return s.cfg.SharedDomain
	case delegated:
		return domain
	}
	if apex, err := publicsuffix.EffectiveTLDPlusOne(domain); err == nil {
		return apex
	}
	return domain
}

// relative is name written relative to apex, as DNS editors want it ("@"
// for the apex itself).
func relative(name, apex string) string {
	if name == apex {
		return "@"
	}
	return strings.TrimSuffix(name, "."+apex)
}
