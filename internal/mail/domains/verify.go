package domains

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/mail/dkimkey"
	"github.com/agentry/agentry/internal/mail/resolver"
)

// check looks each record up through the resolver and marks it ok or
// says what was found instead.
func (s *Service) check(ctx context.Context, recs []Record, publicKey string) []Record {
	for i := range recs {
		r := &recs[i]
		r.OK, r.Detail = false, ""
		switch r.Key {
		case "mx":
			mxs, err := s.resolver.LookupMX(ctx, r.Name)
			if err != nil {
				r.Detail = lookupDetail(err)
				continue
			}
			var found []string
			for _, mx := range mxs {
				h := strings.TrimSuffix(strings.ToLower(mx.Host), ".")
				found = append(found, h)
				if h == strings.ToLower(s.cfg.MXHost) {
					r.OK = true
				}
			}
			if !r.OK {
				r.Detail = "MX points to " + strings.Join(found, ", ") + ", not " + s.cfg.MXHost
			}
		case "spf":
			txts, err := s.resolver.LookupTXT(ctx, r.Name)
			if err != nil {
				r.Detail = lookupDetail(err)
				continue
			}
			r.OK, r.Detail = spfCovers(txts, s.cfg.SPF)
		case "dkim":
			txts, err := s.resolver.LookupTXT(ctx, r.Name)
			if err != nil {
				r.Detail = lookupDetail(err)
				continue
			}
			for _, t := range txts {
				if dkimkey.HasKey(t, publicKey) {
					r.OK = true
				}
			}
			if !r.OK {
				r.Detail = "the TXT record does not carry this domain's public key"
			}
		case "dmarc":
			txts, err := s.resolver.LookupTXT(ctx, r.Name)
			if err != nil {
				r.Detail = lookupDetail(err)
				continue
			}
			for _, t := range txts {
				if strings.HasPrefix(strings.TrimSpace(t), "v=DMARC1") {
					r.OK = true
					if !strings.Contains(t, ReportLocalPart+"@") {
						r.Detail = "published without Agentry's rua address: aggregate reports will not reach the DMARC summary"
					}
				}
			}
			if !r.OK {
				r.Detail = "no v=DMARC1 record"
			}
		}
	}
	return recs
}

func lookupDetail(err error) string {
	if resolver.NotFound(err) {
		return "not published yet"
	}
	return fmt.Sprintf("lookup failed: %v", err)
}

// spfCovers reports whether one of the published SPF records carries
// every mechanism of the expected one (its all-qualifier aside): an
// existing record the customer extended with ours passes.
func spfCovers(txts []string, want string) (bool, string) {
	var spf []string
	for _, t := range txts {
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(t)), "v=spf1") {
			spf = append(spf, t)
		}
	}
	if len(spf) == 0 {
		return false, "no v=spf1 record"
	}
	if len(spf) > 1 {
		return false, "more than one v=spf1 record: receivers treat that as an error; merge them"
	}
	have := map[string]bool{}
	for _, f := range strings.Fields(strings.ToLower(spf[0])) {
		have[f] = true
	}
	for _, f := range strings.Fields(strings.ToLower(want)) {
		if f == "v=spf1" || strings.HasSuffix(f, "all") {
			continue
		}
		if !have[f] {
			return false, fmt.Sprintf("the SPF record lacks %q", f)
		}
	}
	return true, ""
}
