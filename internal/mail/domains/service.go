// Package domains owns an account's sending domains: vanity names under
// the shared domain and custom domains, each with its own DKIM key pair;
// the DNS records they must publish, checked through the configured
// resolver on demand and by a periodic sweep; publishing those records
// through an RFC 2136 dynamic-update server when the operator runs one;
// which domain an account sends from (its primary, or the shared domain
// with the operator's key); and which account a verified domain belongs
// to, for inbound mail.
package domains

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/mail/dkimkey"
	"github.com/agentry/agentry/internal/mail/sending"
	"github.com/agentry/agentry/internal/secrets"
	"github.com/agentry/agentry/internal/store"
)

// Kinds of domain.
const (
	KindVanity = "vanity"
	KindCustom = "custom"
)

// Statuses of a domain.
const (
	StatusPending  = "pending"
	StatusVerified = "verified"
	StatusFailed   = "failed"
)

// Config is the operator's mail setup the domains depend on.
type Config struct {
	// SharedDomain is SERVICE_MAIL_DOMAIN: every account's mail goes out
	// as <agent>@SharedDomain until it makes a domain of its own primary.
	SharedDomain string
	// SharedKey signs mail of the shared domain (the operator publishes
	// its record: see SharedDKIMRecord).
	SharedKey crypto.Signer
	// MXHost is the host other servers deliver this server's mail to (the
	// MX every domain must publish); default the shared domain.
	MXHost string
	// SPF is the SPF record asked for; default "v=spf1 mx ~all".
	SPF string
	// DNSUpdate, when set, publishes records itself (vanity names and
	// delegated custom domains).
	DNSUpdate *DNSUpdate
	// SweepInterval is how often every domain is checked again.
	SweepInterval time.Duration
}

// Service is the domains area.
type Service struct {
	db       *store.DB
	repo     repo
	box      *secrets.Box
	resolver *net.Resolver
	cfg      Config
	mail     Mailer
	keys     sync.Map // domain id + key id → crypto.Signer
	// generate makes DKIM keys (tests may swap in a faster source).
	generate func() (crypto.Signer, error)
}

// Mailer sends the domains' test e-mails: the outbound side
// (*sending.Service), which itself signs with these domains, so the
// server hands this service a late-bound one (internal/server/late.go).
type Mailer interface {
	Send(ctx context.Context, m sending.Mail) (sending.Report, error)
}

// New builds the service; mail sends test e-mails.
func New(db *store.DB, box *secrets.Box, res *net.Resolver, mail Mailer, cfg Config) *Service {
	if cfg.MXHost == "" {
		cfg.MXHost = cfg.SharedDomain
	}
	if cfg.SPF == "" {
		cfg.SPF = "v=spf1 mx ~all"
	}
	if cfg.SweepInterval <= 0 {
		cfg.SweepInterval = 15 * time.Minute
	}
	return &Service{db: db, repo: repo{db}, box: box, resolver: res, mail: mail, cfg: cfg,
		generate: func() (crypto.Signer, error) { return dkimkey.Generate() }}
}

// SharedDomain is the shared sending domain.
func (s *Service) SharedDomain() string { return s.cfg.SharedDomain }

// SharedDKIMRecord is the record the operator publishes for the shared
// domain's key: name and TXT value.
func (s *Service) SharedDKIMRecord() (name, value string, err error) {
	p, err := dkimkey.PublicBase64(s.cfg.SharedKey)
	if err != nil {
		return "", "", err
	}
	return dkimkey.RecordName(s.cfg.SharedDomain), dkimkey.RecordValue(p), nil
}

// The area's refusals, in the fault vocabulary (the API answers each with
// its status and sentence; ErrInvalid's is its text with the detail it is
// wrapped with).
var (
	ErrInvalid            = fault.FieldSentinel([]any{"body", "value"}, "value_error", "invalid domain")
	ErrKindTaken    error = &fault.Conflict{Msg: "The account already has a domain of this kind (one vanity and one custom domain at most); remove it first"}
	ErrNameTaken    error = &fault.Conflict{Msg: "That name is already taken"}
	ErrNotVerified  error = &fault.Conflict{Msg: "The domain is not verified yet: publish its DNS records and verify it first"}
	ErrNoDNSUpdate        = fault.InvalidAt([]any{"body", "delegated"}, "delegated=true needs the operator to configure an RFC 2136 dynamic-update DNS server (SERVICE_DNS_UPDATE_SERVER)", "value_error")
	ErrNoOwnerEmail error = &fault.Conflict{Msg: "The account's owner has no e-mail address to send the test message to"}
)

// Domain is a domain as the API shows it.
type Domain struct {
	StoredDomain
	Records  []Record
	ZoneApex string
}

func (s *Service) view(d StoredDomain) Domain {
	recs := s.records(d.Domain, d.DKIMPublic)
	var checks map[string]Record
	_ = json.Unmarshal([]byte(d.Checks), &checks)
	apex := s.zoneApex(d.Domain, d.Kind, d.Delegated)
	for i := range recs {
		if c, ok := checks[recs[i].Key]; ok {
			recs[i].OK, recs[i].Detail = c.OK, c.Detail
		}
		recs[i].RelativeName = relative(recs[i].Name, apex)
	}
	return Domain{StoredDomain: d, Records: recs, ZoneApex: apex}
}

// Monitored reports whether aggregate reports can reach the DMARC
// summary: the domain's DMARC record, as last checked, was found naming
// Agentry's rua mailbox. A domain never checked, or whose owner keeps
// their own DMARC reporting, is not monitored (its summary stays empty).
func (d Domain) Monitored() bool {
	for _, r := range d.Records {
		if r.Key == "dmarc" {
			return r.OK && r.Detail == ""
		}
	}
	return false
}

// List answers the account's domains.
func (s *Service) List(ctx context.Context, accountID string) ([]Domain, error) {
	ds, err := s.repo.list(ctx, accountID)
	if err != nil {
		return nil, err
	}
	out := make([]Domain, len(ds))
	for i, d := range ds {
		out[i] = s.view(d)
	}
	return out, nil
}

// Get answers one of the account's domains (store.ErrNotFound).
func (s *Service) Get(ctx context.Context, accountID, id string) (Domain, error) {
	d, err := s.repo.get(ctx, accountID, id)
	if err != nil {
		return Domain{}, err
	}
	return s.view(d), nil
}

// CanAddVanity reports whether vanity names can be offered (a shared domain is set).
func (s *Service) CanAddVanity() bool { return s.cfg.SharedDomain != "" }

var (
	slugRE  = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
	labelRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
	// Names the operator's own mail and web need.
	reservedSlugs = map[string]bool{"www": true, "mail": true, "mx": true, "smtp": true, "imap": true, "pop": true, "api": true,
		"admin": true, "postmaster": true, "abuse": true, "dmarc": true, "_dmarc": true, "autodiscover": true, "autoconfig": true}
)

// normalize checks the requested value and answers the full domain name.
func (s *Service) normalize(kind, value string) (string, error) {
	v := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(value)), ".")
	switch kind {
	case KindVanity:
		if !s.CanAddVanity() {
			return "", fmt.Errorf("%w: this server has no shared mail domain (SERVICE_MAIL_DOMAIN)", ErrInvalid)
		}
		if !slugRE.MatchString(v) {
			return "", fmt.Errorf("%w: a vanity name is 1-63 lowercase letters, digits and hyphens, not starting or ending with a hyphen", ErrInvalid)
		}
		if reservedSlugs[v] {
			return "", fmt.Errorf("%w: %q is reserved", ErrInvalid, v)
		}
		return v + "." + s.cfg.SharedDomain, nil
	case KindCustom:
		if len(v) > 253 || net.ParseIP(v) != nil {
			return "", fmt.Errorf("%w: %q is not a domain name", ErrInvalid, value)
		}
		labels := strings.Split(v, ".")
		if len(labels) < 2 {
			return "", fmt.Errorf("%w: a custom domain needs at least two labels (agent.example.com)", ErrInvalid)
		}
		for _, l := range labels {
			if !labelRE.MatchString(l) {
				return "", fmt.Errorf("%w: %q is not a domain name", ErrInvalid, value)
			}
		}
		if s.cfg.SharedDomain != "" && (v == s.cfg.SharedDomain || strings.HasSuffix(v, "."+s.cfg.SharedDomain)) {
			return "", fmt.Errorf("%w: names under %s are vanity names (kind=vanity)", ErrInvalid, s.cfg.SharedDomain)
		}
		return v, nil
	}
	return "", fmt.Errorf("%w: kind must be 'vanity' or 'custom'", ErrInvalid)
}

// Add provisions a domain: a new DKIM key pair, the records to publish
// (published at once through the update server for vanity names and
// delegated domains), and a first check.
func (s *Service) Add(ctx context.Context, accountID, kind, value string, delegated bool) (Domain, error) {
	name, err := s.normalize(kind, value)
	if err != nil {
		return Domain{}, err
	}
	if kind == KindVanity {
		delegated = false // the operator's zone; published when an update server is set
	}
	if delegated && s.cfg.DNSUpdate == nil {
		return Domain{}, ErrNoDNSUpdate
	}
	existing, err := s.repo.list(ctx, accountID)
	if err != nil {
		return Domain{}, err
	}
	for _, d := range existing {
		if d.Kind == kind {
			return Domain{}, ErrKindTaken
		}
	}
	key, err := s.generate()
	if err != nil {
		return Domain{}, err
	}
	der, err := dkimkey.MarshalPrivate(key)
	if err != nil {
		return Domain{}, err
	}
	sealed, err := s.box.Seal(accountID, sealName(name), der)
	if err != nil {
		return Domain{}, err
	}
	pub, err := dkimkey.PublicBase64(key)
	if err != nil {
		return Domain{}, err
	}
	d, err := s.repo.create(ctx, StoredDomain{AccountID: accountID, Domain: name, Kind: kind, Delegated: delegated,
		Status: StatusPending, DKIMSelector: dkimkey.Selector, DKIMPublic: pub, DKIMPrivate: sealed, DKIMKeyID: s.box.KeyID()})
	if errors.Is(err, store.ErrConflict) {
		return Domain{}, ErrNameTaken
	}
	if err != nil {
		return Domain{}, err
	}
	if s.managed(d) {
		if err := s.cfg.DNSUpdate.apply(ctx, s.zoneApex(d.Domain, d.Kind, d.Delegated), s.records(d.Domain, d.DKIMPublic), false); err != nil {
			d.ErrorMessage = "publishing the records failed: " + err.Error()
			_, _ = s.repo.recordCheck(ctx, accountID, d.ID, checkOutcome{Status: StatusPending, Checks: "{}",
				ErrorMessage: d.ErrorMessage, CheckedAt: store.Now()})
			return s.view(d), nil
		}
	}
	return s.Verify(ctx, accountID, d.ID)
}

// managed reports whether the service publishes the domain's records.
func (s *Service) managed(d StoredDomain) bool {
	return s.cfg.DNSUpdate != nil && (d.Kind == KindVanity || d.Delegated)
}

func sealName(domain string) string { return "dkim:" + domain }

// Verify checks the domain's records now and stores the outcome.
func (s *Service) Verify(ctx context.Context, accountID, id string) (Domain, error) {
	d, err := s.repo.get(ctx, accountID, id)
	if err != nil {
		return Domain{}, err
	}
	return s.verify(ctx, d)
}

func (s *Service) verify(ctx context.Context, d StoredDomain) (Domain, error) {
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	recs := s.check(cctx, s.records(d.Domain, d.DKIMPublic), d.DKIMPublic)
	cancel()
	checks := map[string]Record{}
	var missing []string
	all := true
	for _, r := range recs {
		checks[r.Key] = Record{OK: r.OK, Detail: r.Detail}
		if !r.OK {
			all = false
			missing = append(missing, fmt.Sprintf("%s (%s %s): %s", r.Key, r.Type, r.Name, r.Detail))
		}
	}
	b, _ := json.Marshal(checks)
	now := store.Now()
	c := checkOutcome{Status: d.Status, Checks: string(b), CheckedAt: now, VerifiedAt: d.VerifiedAt}
	switch {
	case all:
		c.Status, c.Regressing = StatusVerified, false
		if c.VerifiedAt == nil {
			c.VerifiedAt = &now
		}
	case d.Status == StatusVerified:
		// Mail keeps flowing while the owner repairs the record.
		c.Regressing = true
		c.ErrorMessage = "a record that verified this domain is gone: " + strings.Join(missing, "; ")
	default:
		c.Status = StatusPending
		c.ErrorMessage = "records not published yet: " + strings.Join(missing, "; ")
	}
	out, err := s.repo.recordCheck(ctx, d.AccountID, d.ID, c)
	if errors.Is(err, store.ErrConflict) {
		// Another account verified the same custom domain first.
		c.Status, c.VerifiedAt = StatusFailed, nil
		c.ErrorMessage = "this domain is verified by another account"
		out, err = s.repo.recordCheck(ctx, d.AccountID, d.ID, c)
	}
	if err != nil {
		return Domain{}, err
	}
	return s.view(out), nil
}

// SetPrimary makes a verified domain the account's sending and inbound domain.
func (s *Service) SetPrimary(ctx context.Context, accountID, id string) (Domain, error) {
	if err := s.repo.setPrimary(ctx, accountID, id); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return Domain{}, ErrNotVerified
		}
		return Domain{}, err
	}
	return s.Get(ctx, accountID, id)
}

// UseShared clears the account's primary domain; its domains stay.
func (s *Service) UseShared(ctx context.Context, accountID string) error {
	return s.repo.setPrimary(ctx, accountID, "")
}

// Remove deletes a domain (and its published records, when the service
// published them). The note reminds the owner of a delegation to undo.
func (s *Service) Remove(ctx context.Context, accountID, id string) (note string, err error) {
	d, err := s.repo.remove(ctx, accountID, id)
	if err != nil {
		return "", err
	}
	s.keys.Range(func(k, _ any) bool {
		if strings.HasPrefix(k.(string), d.ID+"/") {
			s.keys.Delete(k)
		}
		return true
	})
	if s.managed(d) {
		if err := s.cfg.DNSUpdate.apply(ctx, s.zoneApex(d.Domain, d.Kind, d.Delegated), s.records(d.Domain, d.DKIMPublic), true); err != nil {
			note = "The records could not be withdrawn from DNS (" + err.Error() + "); ask the operator to remove them. "
		}
	}
	if d.Delegated {
		note += "Delete the NS records that delegate " + d.Domain + " to this server at your registrar: a delegation left pointing at a zone nobody serves lets someone else take the name over."
	}
	return strings.TrimSpace(note), nil
}

// SendTest sends a test message from the verified domain to the account
// owner's own address, and nowhere else.
func (s *Service) SendTest(ctx context.Context, accountID, id string) error {
	d, err := s.repo.get(ctx, accountID, id)
	if err != nil {
		return err
	}
	if d.Status != StatusVerified {
		return ErrNotVerified
	}
	owner, err := s.repo.accountOwnerEmail(ctx, accountID)
	if err != nil {
		return err
	}
	if owner == "" {
		return ErrNoOwnerEmail
	}
	key, err := s.key(d)
	if err != nil {
		return err
	}
	_, err = s.mail.Send(ctx, sending.Mail{AccountID: accountID, FromLocal: "noreply", FromName: "Agentry",
		Identity: &sending.Identity{Domain: d.Domain, Selector: d.DKIMSelector, Signer: key},
		To:       []string{owner}, Subject: "Agentry test message from " + d.Domain,
		Body: "This message was sent from " + d.Domain + " to confirm that the domain sends mail signed with its DKIM key.\r\n" +
			"If it arrived with DKIM and SPF passing, the domain is ready.\r\n"})
	return err
}

// key unseals (once) the domain's private key.
func (s *Service) key(d StoredDomain) (crypto.Signer, error) {
	k := d.ID + "/" + d.DKIMKeyID
	if v, ok := s.keys.Load(k); ok {
		return v.(crypto.Signer), nil
	}
	der, err := s.box.Open(d.AccountID, sealName(d.Domain), d.DKIMPrivate)
	if err != nil {
		return nil, fmt.Errorf("dkim key of %s: %w", d.Domain, err)
	}
	signer, err := dkimkey.ParsePrivate(der)
	if err != nil {
		return nil, err
	}
	s.keys.Store(k, signer)
	return signer, nil
}

// Sender implements outbound.Identities: the primary domain (verified),
// else the shared domain with the operator's key.
func (s *Service) Sender(ctx context.Context, accountID string) (sending.Identity, error) {
	d, err := s.repo.primary(ctx, accountID)
	if err == nil && d.Status == StatusVerified {
		key, err := s.key(d)
		if err != nil {
			return sending.Identity{}, err
		}
		return sending.Identity{Domain: d.Domain, Selector: d.DKIMSelector, Signer: key}, nil
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return sending.Identity{}, err
	}
	if s.cfg.SharedDomain == "" || s.cfg.SharedKey == nil {
		return sending.Identity{}, errors.New("no sending domain: set SERVICE_MAIL_DOMAIN or make a verified domain primary")
	}
	return sending.Identity{Domain: s.cfg.SharedDomain, Selector: dkimkey.Selector, Signer: s.cfg.SharedKey}, nil
}

// AccountForDomain implements inbound.DomainDirectory: the account that
// verified domain.
func (s *Service) AccountForDomain(ctx context.Context, domain string) (string, bool, error) {
	d, err := s.repo.verifiedByName(ctx, strings.TrimSuffix(strings.ToLower(domain), "."))
	if errors.Is(err, store.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return d.AccountID, true, nil
}

// Sweep checks up to limit domains not checked within the sweep
// interval; it answers how many it checked.
func (s *Service) Sweep(ctx context.Context, limit int) (int, error) {
	due, err := s.repo.due(ctx, time.Now().Add(-s.cfg.SweepInterval), limit)
	if err != nil {
		return 0, err
	}
	for _, d := range due {
		if _, err := s.verify(ctx, d); err != nil && !errors.Is(err, store.ErrNotFound) {
			return 0, err
		}
	}
	return len(due), nil
}

// PrimaryDomain implements inbound.PrimaryDomains: the account's primary
// domain, when it is verified.
func (s *Service) PrimaryDomain(ctx context.Context, accountID string) (string, bool, error) {
	d, err := s.repo.primary(ctx, accountID)
	if errors.Is(err, store.ErrNotFound) {
		return "", false, nil
	}
	if err != nil || d.Status != StatusVerified {
		return "", false, err
	}
	return d.Domain, true, nil
}

// ReportOwner answers whose domain a DMARC aggregate report addressed to
// domain is stored against: the account that verified it, else the
// oldest claim (reports can arrive before the first check passes). ok is
// false when no account has added the domain.
func ReportOwner(ctx context.Context, db *store.DB, domain string) (accountID, domainID string, ok bool, err error) {
	ds, err := repo{db}.byName(ctx, domain)
	if err != nil || len(ds) == 0 {
		return "", "", false, err
	}
	target := ds[0]
	for _, d := range ds {
		if d.Status == StatusVerified {
			target = d
		}
	}
	return target.AccountID, target.ID, true, nil
}
