package server

import (
	"crypto/tls"
	"fmt"

	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/mail/inbound"
	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
)

// newMailInbound assembles inbound mail from the configuration. The
// domain directory, report sink and governance come from other areas and
// stay nil (nil-safe) until they are wired here.
func newMailInbound(cfg Config, db *store.DB, r *runs.Service, blobs *blob.Store) (*inbound.Service, *protect.Service, error) {
	mc := inbound.Config{Domain: cfg.MailDomain, MaxMessageBytes: cfg.SMTPMaxMessageBytes, MaxRecipients: cfg.SMTPMaxRecipients,
		PerIPPerMinute: cfg.SMTPPerIPPerMinute, PerAccountPerMinute: cfg.SMTPPerAccountPerMinute, RunsPerHour: cfg.EmailRunsPerHour,
		Resolver: protect.NewResolver(cfg.DNSResolver), Retention: inbound.Defaults().Retention}
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
