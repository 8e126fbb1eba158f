package api

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/mail/domains"
)

// Email domains (/email-domains): an account's vanity and custom sending
// domains, their DNS records and checks, the primary domain, test
// messages and DMARC summaries. Every operation needs a credential bound
// to a user (an account-only key is refused with 403); the changes need
// an owner or admin.

// DNSRecordResponse is one record a domain must publish, with its last check.
type DNSRecordResponse struct {
	Key          string  `json:"key" doc:"mx, spf, dkim or dmarc."`
	Type         string  `json:"type"`
	Name         string  `json:"name"`
	RelativeName string  `json:"relative_name" doc:"The name relative to zone_apex, as DNS editors want it (@ for the apex)."`
	Value        string  `json:"value"`
	OK           bool    `json:"ok"`
	Detail       *string `json:"detail" required:"false"`
	MXHost       *string `json:"mx_host" required:"false"`
	MXPriority   *int    `json:"mx_priority" required:"false"`
}

// DNSProviderResponse would describe the customer's DNS provider; Agentry
// does not guess it, so it is always null.
type DNSProviderResponse struct {
	Key  string `json:"key"`
	Name string `json:"name"`
}

// EmailDomainResponse is a domain.
type EmailDomainResponse struct {
	ID            string               `json:"id" format:"uuid"`
	Domain        string               `json:"domain"`
	Kind          string               `json:"kind"`
	Status        string               `json:"status" doc:"pending, verified or failed."`
	IsPrimary     bool                 `json:"is_primary"`
	Delegated     bool                 `json:"delegated"`
	Verified      bool                 `json:"verified"`
	Regressing    bool                 `json:"regressing" doc:"Verified once, but a record has since gone; mail still flows."`
	DNSRecords    []DNSRecordResponse  `json:"dns_records"`
	ErrorMessage  *string              `json:"error_message"`
	LastCheckedAt *time.Time           `json:"last_checked_at"`
	VerifiedAt    *time.Time           `json:"verified_at"`
	Provider      *DNSProviderResponse `json:"provider"`
	ZoneApex      string               `json:"zone_apex"`
}

// EmailDomainsListResponse is the list with the account's capabilities.
type EmailDomainsListResponse struct {
	Domains         []EmailDomainResponse `json:"domains"`
	CanAddVanity    bool                  `json:"can_add_vanity"`
	CanAddCustom    bool                  `json:"can_add_custom"`
	HasVanity       bool                  `json:"has_vanity"`
	HasCustom       bool                  `json:"has_custom"`
	VanityPlanNames []string              `json:"vanity_plan_names" doc:"Self-hosted: every account may add one; empty."`
	CustomPlanNames []string              `json:"custom_plan_names" doc:"Self-hosted: every account may add one; empty."`
}

// AddEmailDomainRequest adds a domain.
type AddEmailDomainRequest struct {
	Kind      string `json:"kind" doc:"'vanity' or 'custom'"`
	Value     string `json:"value" minLength:"1" maxLength:"253" doc:"The vanity slug, or the custom domain (agent.example.com)."`
	Delegated bool   `json:"delegated,omitempty" required:"false" doc:"Custom only: this server publishes the records itself in a zone delegated to the operator's RFC 2136 DNS server (SERVICE_DNS_UPDATE_SERVER)."`
}

// RemoveEmailDomainResponse answers a removal.
type RemoveEmailDomainResponse struct {
	Removed     bool    `json:"removed"`
	CleanupNote *string `json:"cleanup_note"`
}

// SendTestEmailResponse answers a test message.
type SendTestEmailResponse struct {
	Sent bool `json:"sent" doc:"The message is queued for delivery to the account owner's address."`
}

// DmarcFailingSourceResponse is a source whose mail failed DMARC.
type DmarcFailingSourceResponse struct {
	SourceIP    string  `json:"source_ip"`
	FailedCount int64   `json:"failed_count"`
	HeaderFrom  *string `json:"header_from"`
}

// DmarcSummaryResponse sums a domain's aggregate reports.
type DmarcSummaryResponse struct {
	WindowDays        int                          `json:"window_days"`
	ReportCount       int64                        `json:"report_count"`
	TotalMessages     int64                        `json:"total_messages"`
	PassedMessages    int64                        `json:"passed_messages"`
	FailedMessages    int64                        `json:"failed_messages"`
	PassRate          *float64                     `json:"pass_rate" doc:"Passed over total; null when no message was reported."`
	Dispositions      map[string]int64             `json:"dispositions"`
	TopFailingSources []DmarcFailingSourceResponse `json:"top_failing_sources"`
	Monitored         bool                         `json:"monitored" doc:"True when the domain's DMARC record, as last verified, names Agentry's rua mailbox (rua=mailto:dmarc-reports@<domain>), so aggregate reports reach this summary; false for a domain not yet verified or one that keeps its own DMARC reporting."`
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func emailDomainResponse(d domains.Domain) EmailDomainResponse {
	out := EmailDomainResponse{ID: d.ID, Domain: d.Domain, Kind: d.Kind, Status: d.Status, IsPrimary: d.IsPrimary, Delegated: d.Delegated,
		Verified: d.Status == domains.StatusVerified, Regressing: d.Regressing, ErrorMessage: strPtr(d.ErrorMessage),
		LastCheckedAt: d.LastCheckedAt, VerifiedAt: d.VerifiedAt, ZoneApex: d.ZoneApex, DNSRecords: []DNSRecordResponse{}}
	for _, r := range d.Records {
		rr := DNSRecordResponse{Key: r.Key, Type: r.Type, Name: r.Name, RelativeName: r.RelativeName, Value: r.Value, OK: r.OK, Detail: strPtr(r.Detail)}
		if r.Type == "MX" {
			host, prio := r.MXHost, r.MXPriority
			rr.MXHost, rr.MXPriority = &host, &prio
		}
		out.DNSRecords = append(out.DNSRecords, rr)
	}
	return out
}

type emailDomainIDPath struct {
	DomainID string `path:"domain_id" format:"uuid" doc:"The domain's id."`
}

type emailDomainsListOutput struct{ Body EmailDomainsListResponse }

func (s *Server) listEmailDomains(ctx context.Context, _ *struct{}) (*emailDomainsListOutput, error) {
	ds, err := s.deps.EmailDomains.List(ctx, principal(ctx).AccountID)
	if err != nil {
		return nil, err
	}
	out := EmailDomainsListResponse{Domains: []EmailDomainResponse{}, CanAddVanity: s.deps.EmailDomains.CanAddVanity(), CanAddCustom: true,
		VanityPlanNames: []string{}, CustomPlanNames: []string{}}
	for _, d := range ds {
		out.Domains = append(out.Domains, emailDomainResponse(d))
		out.HasVanity = out.HasVanity || d.Kind == domains.KindVanity
		out.HasCustom = out.HasCustom || d.Kind == domains.KindCustom
	}
	return &emailDomainsListOutput{Body: out}, nil
}

type emailDomainOutput struct{ Body EmailDomainResponse }

type addEmailDomainInput struct{ Body AddEmailDomainRequest }

func (s *Server) addEmailDomain(ctx context.Context, in *addEmailDomainInput) (*emailDomainOutput, error) {
	if in.Body.Kind != domains.KindVanity && in.Body.Kind != domains.KindCustom {
		return nil, Invalid([]any{"body", "kind"}, "kind must be 'vanity' or 'custom'", "value_error")
	}
	d, err := s.deps.EmailDomains.Add(ctx, principal(ctx).AccountID, in.Body.Kind, in.Body.Value, in.Body.Delegated)
	if err != nil {
		return nil, fault.Name(err, "Email domain")
	}
	return &emailDomainOutput{Body: emailDomainResponse(d)}, nil
}

func (s *Server) useSharedEmailDomain(ctx context.Context, _ *struct{}) (*struct{}, error) {
	return nil, s.deps.EmailDomains.UseShared(ctx, principal(ctx).AccountID)
}

type removeEmailDomainOutput struct{ Body RemoveEmailDomainResponse }

func (s *Server) removeEmailDomain(ctx context.Context, in *emailDomainIDPath) (*removeEmailDomainOutput, error) {
	note, err := s.deps.EmailDomains.Remove(ctx, principal(ctx).AccountID, in.DomainID)
	if err != nil {
		return nil, fault.Name(err, "Email domain")
	}
	return &removeEmailDomainOutput{Body: RemoveEmailDomainResponse{Removed: true, CleanupNote: strPtr(note)}}, nil
}

type dmarcInput struct {
	DomainID   string `path:"domain_id" format:"uuid" doc:"The domain's id."`
	Days       int    `query:"days" default:"30" doc:"Window in days, clamped to 1-365."`
	TopSources int    `query:"top_sources" default:"10" doc:"Failing sources answered, clamped to 1-100."`
}

type dmarcOutput struct{ Body DmarcSummaryResponse }

func (s *Server) getDMARCSummary(ctx context.Context, in *dmarcInput) (*dmarcOutput, error) {
	acct := principal(ctx).AccountID
	dom, err := s.deps.EmailDomains.Get(ctx, acct, in.DomainID)
	if err != nil {
		return nil, fault.Name(err, "Email domain")
	}
	sum, err := s.deps.DMARC.Summarize(ctx, acct, in.DomainID, in.Days, in.TopSources)
	if err != nil {
		return nil, err
	}
	out := DmarcSummaryResponse{WindowDays: sum.WindowDays, ReportCount: sum.Reports, TotalMessages: sum.Total, PassedMessages: sum.Passed,
		FailedMessages: sum.Total - sum.Passed, Dispositions: map[string]int64{"none": 0, "quarantine": 0, "reject": 0},
		TopFailingSources: []DmarcFailingSourceResponse{}, Monitored: dom.Monitored()}
	for k, v := range sum.Dispositions {
		out.Dispositions[k] = v
	}
	if sum.Total > 0 {
		r := float64(sum.Passed) / float64(sum.Total)
		out.PassRate = &r
	}
	for _, f := range sum.TopFailing {
		out.TopFailingSources = append(out.TopFailingSources, DmarcFailingSourceResponse{SourceIP: f.SourceIP, FailedCount: f.Failed, HeaderFrom: strPtr(f.HeaderFrom)})
	}
	return &dmarcOutput{Body: out}, nil
}

func (s *Server) setPrimaryEmailDomain(ctx context.Context, in *emailDomainIDPath) (*emailDomainOutput, error) {
	d, err := s.deps.EmailDomains.SetPrimary(ctx, principal(ctx).AccountID, in.DomainID)
	if err != nil {
		return nil, fault.Name(err, "Email domain")
	}
	return &emailDomainOutput{Body: emailDomainResponse(d)}, nil
}

type sendTestEmailOutput struct{ Body SendTestEmailResponse }

func (s *Server) sendTestEmail(ctx context.Context, in *emailDomainIDPath) (*sendTestEmailOutput, error) {
	if err := s.deps.EmailDomains.SendTest(ctx, principal(ctx).AccountID, in.DomainID); err != nil {
		return nil, fault.Name(err, "Email domain")
	}
	return &sendTestEmailOutput{Body: SendTestEmailResponse{Sent: true}}, nil
}

func (s *Server) verifyEmailDomain(ctx context.Context, in *emailDomainIDPath) (*emailDomainOutput, error) {
	d, err := s.deps.EmailDomains.Verify(ctx, principal(ctx).AccountID, in.DomainID)
	if err != nil {
		return nil, fault.Name(err, "Email domain")
	}
	return &emailDomainOutput{Body: emailDomainResponse(d)}, nil
}
