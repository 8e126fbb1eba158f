package dmarc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/mail/domains"
	"github.com/agentry/agentry/internal/store"
)

// ReportLocalPart is the mailbox reports arrive at on every domain (the
// rua address the domains area asks each domain to publish).
const ReportLocalPart = "dmarc-reports"

// Service stores and sums aggregate reports. It implements mailin's
// inbound.ReportSink.
type Service struct {
	DB     *store.DB
	Limits Limits
}

// New returns the service with the default limits.
func New(db *store.DB) *Service { return &Service{DB: db, Limits: DefaultLimits} }

// ErrUnknownDomain means a report came for a domain no account has.
var ErrUnknownDomain = errors.New("no email domain here receives reports at this address")

// IsReportAddress reports whether rcpt is a rua mailbox: dmarc-reports@<any domain>.
// Whether the domain is one of ours is AcceptsReports' question.
func (s *Service) IsReportAddress(rcpt string) bool {
	at := strings.LastIndexByte(rcpt, '@')
	return at > 0 && strings.EqualFold(rcpt[:at], ReportLocalPart)
}

// AcceptsReports reports whether mail to rcpt is taken as a report: a rua
// mailbox of an e-mail domain some account owns. The shared domain, or a
// domain no account has added, has no rua mailbox: its reports would be
// parsed for nobody.
func (s *Service) AcceptsReports(ctx context.Context, rcpt string) bool {
	if !s.IsReportAddress(rcpt) {
		return false
	}
	_, _, ok, err := domains.ReportOwner(ctx, s.DB, reportDomain(rcpt))
	return err == nil && ok
}

func reportDomain(rcpt string) string {
	at := strings.LastIndexByte(rcpt, '@')
	return strings.TrimSuffix(strings.ToLower(rcpt[at+1:]), ".")
}

// Ingest parses the report a message carries and stores it against the
// domain it was addressed to. The report must describe that domain (or a
// subdomain under its policy); the same report delivered twice is kept once.
func (s *Service) Ingest(ctx context.Context, rcpt string, raw []byte) error {
	return s.IngestAll(ctx, []string{rcpt}, raw)
}

// IngestAll is Ingest for a message's every report recipient: the message
// is parsed once, however many there are, and the report is stored for
// the recipient whose domain it describes.
func (s *Service) IngestAll(ctx context.Context, rcpts []string, raw []byte) error {
	rep, err := ParseMessageContext(ctx, raw, s.Limits)
	if err != nil {
		return err
	}
	var errs []error
	stored := map[string]bool{}
	for _, rcpt := range rcpts {
		if !strings.Contains(rcpt, "@") {
			errs = append(errs, ErrUnknownDomain)
			continue
		}
		domain := reportDomain(rcpt)
		if stored[domain] {
			continue
		}
		stored[domain] = true
		if err := s.store(ctx, domain, rep); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (s *Service) store(ctx context.Context, domain string, rep *Report) error {
	if rep.Domain != domain && !strings.HasSuffix(rep.Domain, "."+domain) {
		return fmt.Errorf("dmarc: report for %s sent to %s's address", rep.Domain, domain)
	}
	accountID, domainID, ok, err := domains.ReportOwner(ctx, s.DB, domain)
	if err != nil {
		return err
	}
	if !ok {
		return ErrUnknownDomain
	}
	sr := storedReport{AccountID: accountID, DomainID: domainID, OrgName: rep.OrgName, ReportID: rep.ReportID,
		Begins: rep.Begin, Ends: rep.End}
	for _, r := range rep.Records {
		sr.Records = append(sr.Records, storedRecord{SourceIP: r.SourceIP, Disposition: r.Disposition, HeaderFrom: r.HeaderFrom,
			Count: r.Count, DKIMPass: r.DKIMPass, SPFPass: r.SPFPass})
	}
	_, err = repo{s.DB}.add(ctx, sr)
	return err
}

// Summary is the API's view of a domain's reports.
type Summary struct {
	WindowDays int
	Totals
}

// Bounds of the summary's parameters: the window is clamped to them.
const (
	MaxWindowDays = 365
	MaxTopSources = 100
)

// Summarize sums the domain's reports over the last days (clamped to 1…365)
// with up to top (1…100) failing sources. The caller has checked the
// domain belongs to the account.
func (s *Service) Summarize(ctx context.Context, accountID, domainID string, days, top int) (Summary, error) {
	days = min(max(days, 1), MaxWindowDays)
	top = min(max(top, 1), MaxTopSources)
	sum, err := repo{s.DB}.totals(ctx, accountID, domainID, time.Now().AddDate(0, 0, -days), top)
	return Summary{WindowDays: days, Totals: sum}, err
}
