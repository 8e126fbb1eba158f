package protect

import (
	"bytes"
	"context"
	"net"
	"strings"
	"time"

	"blitiri.com.ar/go/spf"
	"github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-msgauth/dmarc"
	"golang.org/x/net/publicsuffix"
)

// AuthResult is what the sender checks found.
type AuthResult struct {
	SPF        string   `json:"spf"`         // pass, fail, softfail, neutral, none, temperror, permerror
	SPFDomain  string   `json:"spf_domain"`  // the domain SPF vouched for (envelope sender, or HELO for bounces)
	DKIM       []string `json:"dkim_pass"`   // domains with a valid signature
	FromDomain string   `json:"from_domain"` // the From header's domain
	DMARC      string   `json:"dmarc"`       // pass or fail: SPF or DKIM aligned with FromDomain
}

// Authenticated reports whether the From domain is vouched for: SPF or
// DKIM passed for a domain aligned with it, as DMARC defines alignment.
func (r AuthResult) Authenticated() bool { return r.DMARC == "pass" }

// lookupTimeout bounds all the DNS work for one message.
const lookupTimeout = 15 * time.Second

// Authenticate checks a message's sender: SPF for the connecting address
// and envelope sender, every DKIM signature (at most five), and DMARC
// alignment of either with the From domain, under the domain's published
// alignment modes (relaxed when it publishes none).
func Authenticate(ctx context.Context, res *net.Resolver, ip net.IP, helo, mailFrom, fromDomain string, raw []byte) AuthResult {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	out := AuthResult{FromDomain: fromDomain, DMARC: "fail", DKIM: []string{}}
	lookup := func(name string) ([]string, error) { return res.LookupTXT(ctx, name) }

	out.SPFDomain = DomainOf(mailFrom)
	if out.SPFDomain == "" {
		out.SPFDomain = strings.ToLower(helo)
	}
	if ip != nil {
		r, _ := spf.CheckHostWithSender(ip, helo, mailFrom, spf.WithResolver(res), spf.WithContext(ctx))
		out.SPF = string(r)
	} else {
		out.SPF = string(spf.None)
	}
	if vs, _ := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{LookupTXT: lookup, MaxVerifications: 5}); vs != nil {
		for _, v := range vs {
			if v.Err == nil {
				out.DKIM = append(out.DKIM, strings.ToLower(v.Domain))
			}
		}
	}
	if fromDomain == "" {
		return out
	}
	spfMode, dkimMode := dmarc.AlignmentMode(dmarc.AlignmentRelaxed), dmarc.AlignmentMode(dmarc.AlignmentRelaxed)
	rec, err := dmarc.LookupWithOptions(fromDomain, &dmarc.LookupOptions{LookupTXT: lookup})
	if err != nil {
		if org := orgDomain(fromDomain); org != fromDomain {
			rec, err = dmarc.LookupWithOptions(org, &dmarc.LookupOptions{LookupTXT: lookup})
		}
	}
	if err == nil && rec != nil {
		if rec.SPFAlignment != "" {
			spfMode = rec.SPFAlignment
		}
		if rec.DKIMAlignment != "" {
			dkimMode = rec.DKIMAlignment
		}
	}
	if out.SPF == string(spf.Pass) && aligned(out.SPFDomain, fromDomain, spfMode) {
		out.DMARC = "pass"
	}
	for _, d := range out.DKIM {
		if aligned(d, fromDomain, dkimMode) {
			out.DMARC = "pass"
		}
	}
	return out
}

func aligned(a, b string, mode dmarc.AlignmentMode) bool {
	a, b = strings.ToLower(strings.TrimSuffix(a, ".")), strings.ToLower(strings.TrimSuffix(b, "."))
	if a == "" || b == "" {
		return false
	}
	if mode == dmarc.AlignmentStrict {
		return a == b
	}
	return orgDomain(a) == orgDomain(b)
}

// orgDomain is a domain's organizational domain (public suffix plus one
// label), or the domain itself when that cannot be told.
func orgDomain(d string) string {
	if o, err := publicsuffix.EffectiveTLDPlusOne(d); err == nil {
		return o
	}
	return d
}
