// Package inbound owns mail that arrives for agents: the SMTP listener
// that accepts it (only once it is durably queued), the routing of
// <agent_id>@ and alias addresses on the shared domain and on accounts'
// own domains, the EMAIL_RECEIVED trigger's email settings, and the job
// that parses a queued message, runs it past the protections of package
// protect, and fires the agent's trigger.
package inbound

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/google/uuid"
)

// DomainDirectory tells which account owns a custom or vanity domain; the
// email domains area implements it. A nil directory knows none.
type DomainDirectory interface {
	AccountForDomain(ctx context.Context, domain string) (accountID string, ok bool, err error)
}

// PrimaryDomains, when the directory also implements it, names an
// account's primary domain, so the computed addresses include it.
type PrimaryDomains interface {
	PrimaryDomain(ctx context.Context, accountID string) (domain string, ok bool, err error)
}

// ReportSink takes the mail addressed to DMARC aggregate-report (rua)
// addresses; the DMARC area implements it. A nil sink claims none.
type ReportSink interface {
	// AcceptsReports says whether rcpt is the rua mailbox of a domain an
	// account owns; mail to any other address is not a report.
	AcceptsReports(ctx context.Context, rcpt string) bool
	// IngestAll parses the message once for all its report recipients.
	IngestAll(ctx context.Context, rcpts []string, raw []byte) error
}

// Verdict and Governance are what auto-block asks of the governance area
// (its Check, adapted at wiring): a "block" action on an authenticated
// sender adds them to the blocklist when the account's mode says so.
type Verdict struct {
	Action string // "", "flag", "block"
	Rule   string
	Reason string
}

// Governance checks text against the account's policies.
type Governance interface {
	Check(ctx context.Context, accountID, agentID, stage, text string) (Verdict, error)
}

// Bounces takes delivery status notifications about the account's own
// outgoing copies (late bounces); the outbound area implements it. A nil
// sink handles none, and such mail goes to the agent's checks like any
// other (ignore_auto_generated drops it by default).
type Bounces interface {
	LateBounce(ctx context.Context, accountID string, raw []byte) (handled bool, err error)
}

// DefaultDomain is the shared domain when none is configured.
const DefaultDomain = "agent.localhost"

// Config tunes inbound mail.
type Config struct {
	// Addr is the SMTP listen address ("" turns the listener off).
	Addr string
	// Domain is the shared domain (SERVICE_MAIL_DOMAIN).
	Domain string
	// TLS, when set, is offered through STARTTLS.
	TLS *tls.Config
	// MaxMessageBytes bounds one message; MaxRecipients one transaction.
	MaxMessageBytes int64
	MaxRecipients   int
	// PerIPPerMinute and PerAccountPerMinute bound messages accepted from
	// one client address and for one account (0: no limit).
	PerIPPerMinute      int
	PerAccountPerMinute int
	// RunsPerHour is an account's hourly email-trigger quota: mail past it
	// parks (queue_on_quota) or is discarded as over_quota.
	RunsPerHour int
	// Resolver looks up SPF, DKIM and DMARC records.
	Resolver *net.Resolver
	// Retention is how long processed messages and rejections are kept.
	Retention time.Duration
}

// Defaults returns the built-in limits.
func Defaults() Config {
	return Config{Domain: DefaultDomain, MaxMessageBytes: 10 << 20, MaxRecipients: 50, PerIPPerMinute: 600,
		PerAccountPerMinute: 1200, RunsPerHour: 1000, Retention: 30 * 24 * time.Hour}
}

// Deps is what the inbound mail service is built from (New).
type Deps struct {
	DB      *store.DB
	Runs    *runs.Service
	Queue   jobs.Enqueuer
	Blobs   *blob.Store
	Protect *protect.Service
	Config  Config
	// Directory, Reports, Governance and Bounces come from other areas,
	// wired by the server; nil-safe.
	Directory  DomainDirectory
	Reports    ReportSink
	Governance Governance
	Bounces    Bounces
}

func (s *Service) repo() repo { return repo{s.DB} }

// Service is the inbound mail area.
type Service struct {
	Deps

	enq enqueuer // group commits of accepted messages (smtp.go)
}

// New builds the service from its dependencies.
func New(d Deps) *Service { return &Service{Deps: d} }

// Domain is the shared domain, lower case.
func (s *Service) Domain() string {
	if s.Config.Domain == "" {
		return DefaultDomain
	}
	return strings.ToLower(s.Config.Domain)
}

// The area's refusals, in the fault vocabulary (the API answers each with
// its status and sentence). A taken alias is an AliasTakenError naming it.
var (
	ErrNotEmailTrigger error = &fault.BadRequest{Msg: "Email settings apply only to an email_received trigger", Err: errors.New("the trigger is not an email_received trigger")}
	ErrAliasTaken            = errors.New("another agent of the account uses this alias")
	ErrBadAlias        error = &fault.Invalid{Err: errors.New("invalid alias"), Items: []fault.Item{{Loc: []any{"body", "alias"},
		Msg: "Alias must be 1-32 letters, digits, '+', '.' or '-', not starting or ending with '+', '.' or '-', and not shaped like a UUID", Type: "value_error"}}}
	ErrBadSender = fault.FieldSentinel([]any{"body", "allowed_senders"}, "value_error", "invalid allowed sender")
)

// aliasTaken refuses an alias another agent of the account uses; it
// matches ErrAliasTaken.
func aliasTaken(alias string) error {
	return &fault.Conflict{Msg: fmt.Sprintf("Another agent of this account already uses the alias %q", alias), Err: ErrAliasTaken}
}

// ConfigPatch is PUT email-config's body: nil leaves a field unchanged.
type ConfigPatch struct {
	Alias               *string // "" clears
	ClearAlias          bool    // alias sent as null
	AllowedSenders      *[]string
	ClearAllowed        bool // allowed_senders sent as null
	IgnoreAutoGenerated *bool
	RequireSenderAuth   *bool
	QueueOnQuota        *bool
}

// TriggerEmail is a trigger's email settings with its computed addresses.
type TriggerEmail struct {
	TriggerConfig
	TriggerType string
	Addresses   []string
}

var aliasPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9+.\-]{0,30}[a-z0-9])?$`)

// SetTriggerConfig applies a patch to an agent's EMAIL_RECEIVED trigger.
func (s *Service) SetTriggerConfig(ctx context.Context, accountID, agentID, triggerID string, p ConfigPatch) (TriggerEmail, error) {
	r, err := s.repo().routeInAccount(ctx, accountID, agentID)
	if err != nil {
		return TriggerEmail{}, err
	}
	if r.TriggerID != triggerID {
		return TriggerEmail{}, store.ErrNotFound
	}
	if r.TriggerType != "email_received" {
		return TriggerEmail{}, ErrNotEmailTrigger
	}
	c, err := s.repo().triggerConfig(ctx, accountID, agentID, triggerID)
	if err != nil {
		return TriggerEmail{}, err
	}
	switch {
	case p.ClearAlias:
		c.Alias = ""
	case p.Alias != nil:
		a := strings.ToLower(strings.TrimSpace(*p.Alias))
		if a != "" {
			if !aliasPattern.MatchString(a) || uuid.Validate(a) == nil {
				return TriggerEmail{}, ErrBadAlias
			}
		}
		c.Alias = a
	}
	switch {
	case p.ClearAllowed:
		c.AllowedSenders = nil
	case p.AllowedSenders != nil:
		list, err := normalizeSenders(*p.AllowedSenders)
		if err != nil {
			return TriggerEmail{}, err
		}
		c.AllowedSenders = list
	}
	if p.IgnoreAutoGenerated != nil {
		c.IgnoreAutoGenerated = *p.IgnoreAutoGenerated
	}
	if p.RequireSenderAuth != nil {
		c.RequireSenderAuth = *p.RequireSenderAuth
	}
	if p.QueueOnQuota != nil {
		c.QueueOnQuota = *p.QueueOnQuota
	}
	if err := s.repo().putTriggerConfig(ctx, c); err != nil {
		if errors.Is(err, store.ErrConflict) {
			asked := c.Alias
			if p.Alias != nil {
				asked = *p.Alias // as the request wrote it
			}
			return TriggerEmail{}, aliasTaken(asked)
		}
		return TriggerEmail{}, err
	}
	return TriggerEmail{TriggerConfig: c, TriggerType: r.TriggerType, Addresses: s.Addresses(ctx, accountID, agentID, c.Alias)}, nil
}

// maxAllowedSenders bounds an allowlist.
const maxAllowedSenders = 100

func normalizeSenders(in []string) ([]string, error) {
	if len(in) > maxAllowedSenders {
		return nil, errors.Join(ErrBadSender, errors.New("at most 100 allowed senders"))
	}
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, e := range in {
		e = strings.ToLower(strings.TrimSpace(e))
		ok := false
		if strings.Contains(e, "@") && !strings.HasPrefix(e, "@") {
			ok = len(e) <= 320 && protect.Address(e) == e
		} else {
			e = strings.TrimPrefix(e, "@")
			ok = len(e) <= 253 && validHost(e)
		}
		if !ok {
			return nil, errors.Join(ErrBadSender, errors.New("not an address or a domain: "+clipQuote(e)))
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func clipQuote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return "\"" + s + "\""
}

func validHost(d string) bool {
	if !strings.Contains(d, ".") || strings.HasPrefix(d, ".") || strings.HasSuffix(d, ".") {
		return false
	}
	for _, l := range strings.Split(d, ".") {
		if l == "" || len(l) > 63 {
			return false
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// Addresses are an agent's inbound addresses: <agent_id>@ and
// <alias>.<account_id>@ on the shared domain, and <agent_id>@ and <alias>@
// on the account's primary domain when it has one.
func (s *Service) Addresses(ctx context.Context, accountID, agentID, alias string) []string {
	out := []string{agentID + "@" + s.Domain()}
	if alias != "" {
		out = append(out, alias+"."+accountID+"@"+s.Domain())
	}
	if pd, ok := s.Directory.(PrimaryDomains); ok && s.Directory != nil {
		if d, ok, err := pd.PrimaryDomain(ctx, accountID); err == nil && ok && d != "" {
			d = strings.ToLower(d)
			out = append(out, agentID+"@"+d)
			if alias != "" {
				out = append(out, alias+"@"+d)
			}
		}
	}
	return out
}

// TriggerEmailOf returns an agent's current email settings (the email
// trigger's) and addresses; other areas show them.
func (s *Service) TriggerEmailOf(ctx context.Context, accountID, agentID string) (TriggerEmail, error) {
	r, err := s.repo().routeInAccount(ctx, accountID, agentID)
	if err != nil {
		return TriggerEmail{}, err
	}
	c, err := s.repo().triggerConfig(ctx, accountID, agentID, r.TriggerID)
	if err != nil {
		return TriggerEmail{}, err
	}
	return TriggerEmail{TriggerConfig: c, TriggerType: r.TriggerType, Addresses: s.Addresses(ctx, accountID, agentID, c.Alias)}, nil
}

// Route errors.
var (
	errUnknownDomain  = errors.New("unknown domain")
	errUnknownMailbox = errors.New("unknown mailbox")
)

// resolve finds the agent a recipient reaches. accountID is set whenever
// the domain (or the address's account part) names an account, even when
// the mailbox is unknown, so the rejection can be recorded for it.
func (s *Service) resolve(ctx context.Context, rcpt string) (route Route, accountID string, err error) {
	rcpt = strings.ToLower(strings.TrimSpace(rcpt))
	at := strings.LastIndexByte(rcpt, '@')
	if at <= 0 || at == len(rcpt)-1 {
		return route, "", errUnknownDomain
	}
	local, domain := rcpt[:at], strings.TrimSuffix(rcpt[at+1:], ".")
	if domain == s.Domain() {
		if uuid.Validate(local) == nil {
			route, err = s.repo().routeByAgentID(ctx, local)
			if errors.Is(err, store.ErrNotFound) {
				return route, "", errUnknownMailbox
			}
			return route, route.AccountID, checkEmailRoute(route, err)
		}
		dot := strings.LastIndexByte(local, '.')
		if dot <= 0 || uuid.Validate(local[dot+1:]) != nil {
			return route, "", errUnknownMailbox
		}
		accountID = local[dot+1:]
		if _, err := directory.GetAccount(ctx, s.DB, accountID); err != nil {
			return route, "", errUnknownMailbox
		}
		route, err = s.repo().routeByAlias(ctx, accountID, local[:dot])
		return route, accountID, checkEmailRoute(route, err)
	}
	if s.Directory == nil {
		return route, "", errUnknownDomain
	}
	acct, ok, err := s.Directory.AccountForDomain(ctx, domain)
	if err != nil {
		return route, "", err
	}
	if !ok {
		return route, "", errUnknownDomain
	}
	if uuid.Validate(local) == nil {
		route, err = s.repo().routeInAccount(ctx, acct, local)
	} else {
		route, err = s.repo().routeByAlias(ctx, acct, local)
	}
	return route, acct, checkEmailRoute(route, err)
}

func checkEmailRoute(r Route, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return errUnknownMailbox
	}
	if err != nil {
		return err
	}
	if r.TriggerType != "email_received" {
		return errUnknownMailbox
	}
	return nil
}
