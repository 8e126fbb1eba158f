package server

import (
	"context"
	"net/mail"

	alerting "github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/mail/inbound"
	"github.com/agentry/agentry/internal/mail/outbound"
	"github.com/agentry/agentry/internal/oversight"
)

// The areas talk to each other through small interfaces of their own, so
// none imports another's service; these adapters join them.

// oversightAlerts passes evaluation and governance signals to the alerts
// area (the two Signal types have the same fields).
func oversightAlerts(a *alerting.Service) oversight.Alerter {
	return oversight.AlerterFunc(func(ctx context.Context, ev oversight.Signal) error {
		return a.Raise(ctx, alerting.Signal(ev))
	})
}

// mailGovernance lets inbound mail ask the account's governance policies
// about a message (the auto-block mode acts on a block).
type mailGovernance struct{ g *governance.Service }

func (m mailGovernance) Check(ctx context.Context, accountID, agentID, stage, text string) (inbound.Verdict, error) {
	v, err := m.g.Check(ctx, accountID, agentID, stage, text)
	if err != nil {
		return inbound.Verdict{}, err
	}
	return inbound.Verdict{Action: v.Action, Rule: v.Rule, Reason: v.Reason}, nil
}

// alertMailer sends alert e-mail through the mail area's outbound side:
// signed with the account's sending domain and delivered by its jobs.
// Alert mail is not agent mail, so it carries no agent unsubscribe link;
// people stop it with their alert preferences.
type alertMailer struct{ m *outbound.Service }

func (a alertMailer) SendAlert(ctx context.Context, m alerting.Mail) error {
	to := m.To
	if m.ToName != "" {
		to = (&mail.Address{Name: m.ToName, Address: m.To}).String()
	}
	_, err := a.m.Send(ctx, outbound.Mail{AccountID: m.AccountID, FromLocal: "alerts", FromName: "Agentry alerts",
		To: []string{to}, Subject: m.Subject, Body: m.Text})
	return err
}
