package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Agent e-mail: opt-outs of recipients, and the account's sending domains
// with their DNS records, checks and DMARC summaries.

// EmailOptOut is a recipient's opt-out of an account's agent mail.
type EmailOptOut struct {
	ID             string  `json:"id"`
	CreatedAt      string  `json:"created_at"`
	RecipientEmail string  `json:"recipient_email"`
	AgentID        *string `json:"agent_id"` // nil: all the account's agents
	AgentName      *string `json:"agent_name"`
	Reason         *string `json:"reason"`
	Comment        *string `json:"comment"`
}

// EmailOptOutListOptions filter and page GET /agents/agent-email-optouts.
type EmailOptOutListOptions struct {
	AgentID string // that agent's opt-outs and the account-wide ones
	Offset  int
	Limit   int // 1–200; the server's default (50) when zero
}

const maxOptOutPage = 200

func (o EmailOptOutListOptions) query() ListQuery {
	q := ListQuery{Params: url.Values{}, Paging: Offsets, Offset: o.Offset, Limit: min(o.Limit, maxOptOutPage), Key: "items"}
	if o.AgentID != "" {
		q.Params.Set("agent_id", o.AgentID)
	}
	return q
}

// ListEmailOptOuts returns one page of the account's opt-outs, newest first.
func (c *Client) ListEmailOptOuts(ctx context.Context, o EmailOptOutListOptions, opts ...CallOption) (*Page[EmailOptOut], error) {
	return ListPage[EmailOptOut](ctx, c, "/agents/agent-email-optouts", o.query(), opts...)
}

// EmailOptOuts iterates over all of the account's opt-outs.
func (c *Client) EmailOptOuts(ctx context.Context, agentID string, opts ...CallOption) iter.Seq2[EmailOptOut, error] {
	return ListAll[EmailOptOut](ctx, c, "/agents/agent-email-optouts", EmailOptOutListOptions{AgentID: agentID, Limit: maxOptOutPage}.query(), opts...)
}

// RevokeEmailOptOut opts the recipient back in.
func (c *Client) RevokeEmailOptOut(ctx context.Context, id string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/agents/agent-email-optouts/%s", id), nil, nil, opts...)
}

// Unsubscribe follows an unsubscribe link's token as a mail client's
// one-click would (POST /email/unsubscribe, an Agentry extension that
// needs no credentials); all opts out of every agent of the account.
func (c *Client) Unsubscribe(ctx context.Context, token string, all bool, opts ...CallOption) error {
	return c.Do(ctx, http.MethodPost, "/email/unsubscribe?token="+url.QueryEscape(token)+"&all="+strconv.FormatBool(all), nil, nil, opts...)
}

// EmailDNSRecord is a record a domain must publish, with its last check.
type EmailDNSRecord struct {
	Key          string  `json:"key"`
	Type         string  `json:"type"`
	Name         string  `json:"name"`
	RelativeName string  `json:"relative_name"`
	Value        string  `json:"value"`
	OK           bool    `json:"ok"`
	Detail       *string `json:"detail"`
	MXHost       *string `json:"mx_host"`
	MXPriority   *int    `json:"mx_priority"`
}

// EmailDomain is a sending domain.
type EmailDomain struct {
	ID            string           `json:"id"`
	Domain        string           `json:"domain"`
	Kind          string           `json:"kind"`
	Status        string           `json:"status"`
	IsPrimary     bool             `json:"is_primary"`
	Delegated     bool             `json:"delegated"`
	Verified      bool             `json:"verified"`
	Regressing    bool             `json:"regressing"`
	DNSRecords    []EmailDNSRecord `json:"dns_records"`
	ErrorMessage  *string          `json:"error_message"`
	LastCheckedAt *time.Time       `json:"last_checked_at"`
	VerifiedAt    *time.Time       `json:"verified_at"`
	ZoneApex      string           `json:"zone_apex"`
}

// EmailDomains is the account's domains and what it may add.
type EmailDomains struct {
	Domains      []EmailDomain `json:"domains"`
	CanAddVanity bool          `json:"can_add_vanity"`
	CanAddCustom bool          `json:"can_add_custom"`
	HasVanity    bool          `json:"has_vanity"`
	HasCustom    bool          `json:"has_custom"`
}

// ListEmailDomains answers the account's domains.
func (c *Client) ListEmailDomains(ctx context.Context, opts ...CallOption) (*EmailDomains, error) {
	var out EmailDomains
	return &out, c.Do(ctx, http.MethodGet, "/email-domains", nil, &out, opts...)
}

// AddEmailDomain adds a vanity name (kind "vanity", value the slug) or a
// custom domain (kind "custom"); delegated asks the server to publish the
// records itself (it needs an RFC 2136 server configured).
func (c *Client) AddEmailDomain(ctx context.Context, kind, value string, delegated bool, opts ...CallOption) (*EmailDomain, error) {
	body := map[string]any{"kind": kind, "value": value, "delegated": delegated}
	var out EmailDomain
	return &out, c.Do(ctx, http.MethodPost, "/email-domains", body, &out, opts...)
}

func (c *Client) emailDomainAction(ctx context.Context, id, action string, opts []CallOption) (*EmailDomain, error) {
	var out EmailDomain
	return &out, c.Do(ctx, http.MethodPost, pathf("/email-domains/%s/", id)+action, nil, &out, opts...)
}

// VerifyEmailDomain checks the domain's DNS records now.
func (c *Client) VerifyEmailDomain(ctx context.Context, id string, opts ...CallOption) (*EmailDomain, error) {
	return c.emailDomainAction(ctx, id, "verify", opts)
}

// SetPrimaryEmailDomain makes a verified domain the account's sending and inbound domain.
func (c *Client) SetPrimaryEmailDomain(ctx context.Context, id string, opts ...CallOption) (*EmailDomain, error) {
	return c.emailDomainAction(ctx, id, "primary", opts)
}

// UseSharedEmailDomain goes back to the shared domain; the domains stay.
func (c *Client) UseSharedEmailDomain(ctx context.Context, opts ...CallOption) error {
	return c.Do(ctx, http.MethodPost, "/email-domains/use-shared-domain", nil, nil, opts...)
}

// SendTestEmail sends a test message from the domain to the account owner.
func (c *Client) SendTestEmail(ctx context.Context, id string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodPost, pathf("/email-domains/%s/test-email", id), nil, nil, opts...)
}

// RemoveEmailDomain removes a domain and answers the cleanup note ("" when none).
func (c *Client) RemoveEmailDomain(ctx context.Context, id string, opts ...CallOption) (string, error) {
	var out struct {
		CleanupNote *string `json:"cleanup_note"`
	}
	if err := c.Do(ctx, http.MethodDelete, pathf("/email-domains/%s", id), nil, &out, opts...); err != nil {
		return "", err
	}
	if out.CleanupNote == nil {
		return "", nil
	}
	return *out.CleanupNote, nil
}

// DMARCSummary sums a domain's DMARC aggregate reports.
type DMARCSummary struct {
	WindowDays        int              `json:"window_days"`
	ReportCount       int64            `json:"report_count"`
	TotalMessages     int64            `json:"total_messages"`
	PassedMessages    int64            `json:"passed_messages"`
	FailedMessages    int64            `json:"failed_messages"`
	PassRate          *float64         `json:"pass_rate"`
	Dispositions      map[string]int64 `json:"dispositions"`
	TopFailingSources []struct {
		SourceIP    string  `json:"source_ip"`
		FailedCount int64   `json:"failed_count"`
		HeaderFrom  *string `json:"header_from"`
	} `json:"top_failing_sources"`
	Monitored bool `json:"monitored"`
}

// EmailDomainDMARC answers the summary over the last days (0: the server's
// default, 30) with up to top failing sources (0: 10).
func (c *Client) EmailDomainDMARC(ctx context.Context, id string, days, top int, opts ...CallOption) (*DMARCSummary, error) {
	q := url.Values{}
	if days > 0 {
		q.Set("days", strconv.Itoa(days))
	}
	if top > 0 {
		q.Set("top_sources", strconv.Itoa(top))
	}
	p := pathf("/email-domains/%s/dmarc", id)
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	var out DMARCSummary
	return &out, c.Do(ctx, http.MethodGet, p, nil, &out, opts...)
}
