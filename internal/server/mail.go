package server

import (
	"crypto/tls"
	"fmt"

	"github.com/agentry/agentry/internal/mail/inbound"
	"github.com/agentry/agentry/internal/mail/protect"
	"github.com/agentry/agentry/internal/mail/resolver"
)

// newMailInbound assembles inbound mail from the configuration, over the
// outbound side (built first): accounts' verified domains route mail to
// their agents, DMARC report addresses go to the report parser, late
// bounces of agents' mail to sending; governance's policies judge
// messages in the auto-block mode, and the breaker raises alerts.
func (s *Server) newMailInbound(cfg Config) (*inbound.Service, *protect.Service, error) {
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
	p := protect.New(protect.Deps{DB: s.DB, Runs: s.Runs, QueueCeiling: cfg.InboundQueueCeiling,
		OnBreaker: breakerAlerts(s.Alerts)}) // breaker → alerts
	in := inbound.New(inbound.Deps{DB: s.DB, Runs: s.Runs, Queue: lateQueue{s}, Blobs: s.Blobs, Protect: p, Config: mc,
		Directory:  s.EmailDomains, // and its primary domains
		Reports:    s.DMARC,
		Governance: mailGovernance{s.Governance}, // auto-block mode
		Bounces:    s.Mail})                      // late bounces of agents' mail
	return in, p, nil
}
