package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"

	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/mail/domains"
	"github.com/agentry/agentry/internal/mail/inbound"
	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/mail/resolver"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
)

// newMailInbound assembles inbound mail from the configuration. The
// domain directory and report sink are the outbound side's (wired by
// wireMailInbound once it is built); governance stays nil (nil-safe)
// until that area is wired here.
func newMailInbound(cfg Config, db *store.DB, r *runs.Service, blobs *blob.Store) (*inbound.Service, *protect.Service, error) {
	mc := inbound.Config{Domain: cfg.MailDomain, MaxMessageBytes: cfg.SMTPMaxMessageBytes, MaxRecipients: cfg.SMTPMaxRecipients,
		PerIPPerMinute: cfg.SMTPPerIPPerMinute, PerAccountPerMinute: cfg.SMTPPerAccountPerMinute, RunsPerHour: cfg.EmailRunsPerHour,
		Resolver: resolver.New(cfg.DNSResolver), Retention: inbound.Defaults().Retention}
	if cfg.SMTPTLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.SMTPTLSCert, cfg.SMTPTLSKey)
		if err != nil {
			return nil, nil, fmt.Errorf("smtp tls certificate: %w", err)
		}
		mc.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	p := &protect.Service{DB: db, Runs: r, QueueCeiling: cfg.InboundQueueCeiling}
	return &inbound.Service{DB: db, Runs: r, Blobs: blobs, Protect: p, Config: mc}, p, nil
}

// wireMailInbound connects inbound mail to the outbound side: accounts'
// verified domains route mail to their agents, and DMARC report
// addresses go to the report parser.
func (s *Server) wireMailInbound() {
	if s.EmailDomains != nil {
		s.MailInbound.Directory = domainDirectory{Service: s.EmailDomains, db: s.DB}
	}
	if s.DMARC != nil {
		s.MailInbound.Reports = s.DMARC
	}
	if s.Mail != nil {
		s.MailInbound.Bounces = s.Mail // late bounces of agents' mail
	}
}

// domainDirectory is the email domains service as inbound's directory,
// with the account's primary domain for its computed addresses.
type domainDirectory struct {
	*domains.Service
	db *store.DB
}

// PrimaryDomain implements inbound.PrimaryDomains.
func (d domainDirectory) PrimaryDomain(ctx context.Context, accountID string) (string, bool, error) {
	pd, err := d.db.PrimaryEmailDomain(ctx, accountID)
	if errors.Is(err, store.ErrNotFound) {
		return "", false, nil
	}
	if err != nil || pd.Status != "verified" {
		return "", false, err
	}
	return pd.Domain, true, nil
}
