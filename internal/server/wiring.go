package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/mail"

	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/mail/inbound"
	"github.com/agentry/agentry/internal/mail/sending"
	"github.com/agentry/agentry/internal/oversight"
	"github.com/agentry/agentry/internal/store"
)

// The areas talk to each other through small interfaces of their own, so
// none imports another's service; these adapters join them.

// oversightAlerts passes evaluation and governance signals to the alerts
// area (the two Signal types have the same fields), except those of a
// regression's replay.
func oversightAlerts(a *alerts.Service, db *store.DB) oversight.Alerter {
	return oversight.AlerterFunc(func(ctx context.Context, ev oversight.Signal) error {
		// A regression's replay raises no alert (docs/regressions.md).
		if ev.RunID != "" {
			if reg, err := db.RunRegressionID(ctx, ev.RunID); err != nil || reg != "" {
				return err
			}
		}
		return a.Raise(ctx, alerts.Signal(ev))
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

// mailOutputBlocks is the output half of the mail area's auto-block mode:
// a governance block on a step's output in a run an e-mail started may
// block the message's sender. A failure is logged; the run is blocked
// either way.
func mailOutputBlocks(in *inbound.Service) func(ctx context.Context, accountID string, md map[string]any, v governance.Verdict) {
	return func(ctx context.Context, accountID string, md map[string]any, v governance.Verdict) {
		if err := in.OutputBlocked(ctx, accountID, md, v.Rule); err != nil {
			slog.WarnContext(ctx, "auto-block on output", "account_id", accountID, "err", err)
		}
	}
}

// alertMailer sends alert e-mail through the mail area's outbound side:
// signed with the account's sending domain and delivered by its jobs.
// Alert mail is not agent mail, so it carries no agent unsubscribe link;
// people stop it with their alert preferences.
type alertMailer struct{ m *sending.Service }

func (a alertMailer) SendAlert(ctx context.Context, m alerts.Mail) error {
	to := m.To
	if m.ToName != "" {
		to = (&mail.Address{Name: m.ToName, Address: m.To}).String()
	}
	_, err := a.m.Send(ctx, sending.Mail{AccountID: m.AccountID, FromLocal: "alerts", FromName: "Agentry alerts",
		To: []string{to}, Subject: m.Subject, Body: m.Text})
	return err
}

// breakerAlerts raises the inbound_email_paused alert when an account's
// inbound breaker arms (giving the account the type's default
// configuration the first time) and resolves it when the breaker lifts.
func breakerAlerts(a *alerts.Service) func(ctx context.Context, accountID string, armed bool, backlog, ceiling int) error {
	return func(ctx context.Context, accountID string, armed bool, backlog, ceiling int) error {
		if !armed {
			msg := fmt.Sprintf("Inbound e-mail resumed (%d runs parked, ceiling %d).", backlog, ceiling)
			if backlog < 0 {
				msg = "Inbound e-mail resumed."
			}
			return a.Resolve(ctx, alerts.Signal{AccountID: accountID, Type: alerts.InboundEmailPaused, Message: msg})
		}
		if _, err := a.EnsureDefault(ctx, accountID, alerts.InboundEmailPaused); err != nil {
			return err
		}
		return a.Raise(ctx, alerts.Signal{AccountID: accountID, Type: alerts.InboundEmailPaused,
			Message: fmt.Sprintf("Inbound e-mail is paused: %d runs are parked over the hourly quota, past the ceiling of %d. "+
				"New mail is turned away (451) until the backlog drains to half the ceiling, or resume or cancel the queued runs.", backlog, ceiling),
			Details: map[string]any{"queued_backlog": backlog, "ceiling": ceiling}})
	}
}

// pullAlerts passes the knowledge area's pull outcomes to the alerts
// area's source detectors. A pull whose alert cannot be recorded is
// logged: the pull itself is done.
func pullAlerts(a *alerts.Service) func(ctx context.Context, accountID, sourceID string, err error) {
	return func(ctx context.Context, accountID, sourceID string, err error) {
		ev := alerts.Signal{AccountID: accountID, SourceID: sourceID, Type: alerts.PullSucceeded}
		if err != nil {
			ev.Type, ev.Message = alerts.PullFailed, "The source's pull failed: "+err.Error()
		}
		if rerr := a.Raise(ctx, ev); rerr != nil {
			slog.Warn("source pull alert", "source", sourceID, "err", rerr)
		}
	}
}
