package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/mail"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/mail/inbound"
	"github.com/agentry/agentry/internal/mail/sending"
	"github.com/agentry/agentry/internal/models/modelalerts"
	"github.com/agentry/agentry/internal/oversight"
	"github.com/agentry/agentry/internal/runs"
)

// The areas talk to each other through small interfaces of their own, so
// none imports another's service to adapt it; these adapters join them
// (internal/archtest's TestAreasDoNotAdapt keeps it so). Those that must
// bind late are in late.go.

// oversightAlerts passes evaluation and governance signals to the alerts
// area (the two Signal types have the same fields), except those of a
// regression's replay.
func oversightAlerts(a *alerts.Service, replays runRegressions) oversight.Alerter {
	return oversight.AlerterFunc(func(ctx context.Context, ev oversight.Signal) error {
		// A regression's replay raises no alert (docs/regressions.md).
		if ev.RunID != "" {
			if reg, err := replays.RunRegressionID(ctx, ev.RunID); err != nil || reg != "" {
				return err
			}
		}
		return a.Raise(ctx, alerts.Signal(ev))
	})
}

// modelAlerts passes the models area's new lifecycle alerts to the
// alerts area's configs of their type.
type modelAlerts struct{ a *alerts.Service }

func (m modelAlerts) Raise(ctx context.Context, ev modelalerts.Signal) error {
	return m.a.Raise(ctx, alerts.Signal{AccountID: ev.AccountID, Type: ev.Type, AgentID: ev.AgentID, Message: ev.Message,
		Details: ev.Details})
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

// agentsForRuns reads agents and their uploads for runs (runs.Agents and
// runs.Uploads) through the agents area, which owns how a stored workflow
// is parsed and owns uploads.
type agentsForRuns struct{ a *agents.Service }

func (a agentsForRuns) ForRun(ctx context.Context, accountID, agentID string) (runs.Agent, error) {
	return a.ForRunAt(ctx, accountID, agentID, "")
}

// ForRunAt loads an agent with one version of its workflow (the current
// one for ""); runs.ErrUnknownVersion when it has no such version.
func (a agentsForRuns) ForRunAt(ctx context.Context, accountID, agentID, changeID string) (runs.Agent, error) {
	row, d, err := a.a.RunDefinitionAt(ctx, accountID, agentID, changeID)
	if errors.Is(err, agents.ErrUnknownVersion) {
		return runs.Agent{}, runs.ErrUnknownVersion
	}
	if err != nil {
		return runs.Agent{}, err
	}
	return runs.Agent{ID: row.ID, Name: row.Name, Definition: d, Trigger: definition.TriggerType(row.TriggerType),
		Disabled: row.Disabled(), Contract: d.AttachmentContract(), OversightRev: row.OversightRev, ChangeID: row.ChangeID}, nil
}

// maxAttachmentText bounds the extracted text a run reads per upload.
const maxAttachmentText = 8 << 20

// Attachments resolves input uploads to attachments with their text. They
// come in the order given; every one must be an upload of this agent that
// finished processing.
func (a agentsForRuns) Attachments(ctx context.Context, accountID, agentID string, ids []string) ([]engine.Attachment, error) {
	out := make([]engine.Attachment, 0, len(ids))
	for _, id := range ids {
		up, err := a.a.Upload(ctx, accountID, agentID, id)
		if err != nil {
			return nil, &runs.InputError{Problems: []string{fmt.Sprintf("input upload %s was not found for this agent", id)}}
		}
		switch up.Status {
		case agents.UploadProcessing:
			return nil, &runs.InputError{Problems: []string{fmt.Sprintf("input upload %s is still being processed; poll its status and try again", id)}}
		case agents.UploadFailed:
			return nil, &runs.InputError{Problems: []string{fmt.Sprintf("input upload %s failed: %s", id, up.Error)}}
		}
		rd, err := a.a.OpenUploadText(ctx, up)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(io.LimitReader(rd, maxAttachmentText))
		rd.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, engine.Attachment{ID: up.ID, Name: up.Filename, ContentType: up.ContentType, Text: string(b)})
	}
	return out, nil
}

// newContentFirer starts an account's new_content agents for the
// knowledge area (knowledge.Firer) through runs.
type newContentFirer struct{ r *runs.Service }

func (f newContentFirer) FireNewContent(ctx context.Context, accountID, input string, metadata map[string]any) error {
	_, err := f.r.Fire(ctx, accountID, string(definition.TriggerNewContent), "", input, metadata)
	return err
}

// agentPolicies keeps agents' own governance policies (agents.Policies)
// in the governance area: an import creates them with the agent, an
// export reads them back.
type agentPolicies struct{ g *governance.Service }

func (a agentPolicies) CreateWithAgent(ctx context.Context, tx *sql.Tx, accountID, agentID string, ps []agents.Policy) error {
	rows := make([]governance.GovernancePolicy, len(ps))
	for i, p := range ps {
		rows[i] = governance.GovernancePolicy{Name: p.Name, Description: p.Description, PolicyType: p.PolicyType, Enabled: p.Enabled,
			Config: p.Config, KnowledgeBaseIDs: p.KnowledgeBaseIDs, Extra: p.Extra}
	}
	return a.g.CreateAgentPolicies(ctx, tx, accountID, agentID, rows)
}

func (a agentPolicies) OfAgent(ctx context.Context, accountID, agentID string) ([]agents.Policy, error) {
	rows, err := a.g.AgentPolicies(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	out := make([]agents.Policy, len(rows))
	for i, p := range rows {
		out[i] = agents.Policy{Name: p.Name, Description: p.Description, PolicyType: p.PolicyType, Enabled: p.Enabled,
			Config: p.Config, KnowledgeBaseIDs: p.KnowledgeBaseIDs, Extra: p.Extra}
	}
	return out, nil
}

func (agentPolicies) MaxPerAgent() int { return governance.MaxPoliciesPerScope }

// agentAlerts keeps agents' alert configurations (agents.AlertConfigs) in
// the alerts area: an import creates them with the agent, an export reads
// them back.
type agentAlerts struct{ a *alerts.Service }

func (w agentAlerts) CreateWithAgent(ctx context.Context, tx *sql.Tx, accountID, agentID string, cs []agents.AlertConfig) error {
	rows := make([]alerts.AlertConfig, len(cs))
	for i, c := range cs {
		rows[i] = alerts.AlertConfig{AlertType: c.AlertType, Enabled: c.Enabled, Threshold: c.Threshold, CooldownMinutes: c.CooldownMinutes,
			DistributionType: c.DistributionType, RecipientUserIDs: c.RecipientUserIDs, Extra: c.Extra}
	}
	return w.a.CreateAgentConfigs(ctx, tx, accountID, agentID, rows)
}

func (w agentAlerts) OfAgent(ctx context.Context, accountID, agentID string) ([]agents.AlertConfig, error) {
	rows, err := w.a.AgentConfigs(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	out := make([]agents.AlertConfig, len(rows))
	for i, c := range rows {
		out[i] = agents.AlertConfig{AlertType: c.AlertType, Enabled: c.Enabled, Threshold: c.Threshold, CooldownMinutes: c.CooldownMinutes,
			DistributionType: c.DistributionType, RecipientUserIDs: c.RecipientUserIDs, Extra: c.Extra}
	}
	return out, nil
}

func (agentAlerts) MaxPerAgent() int { return alerts.MaxAlertConfigsPerScope }

// runVerdicts reads, for runs, the policies that blocked and flagged
// something in a run from the governance area's records.
func runVerdicts(g *governance.Service) func(ctx context.Context, accountID, runID string) (blocked, flagged []runs.PolicyRef, err error) {
	refs := func(in []governance.PolicyRef) []runs.PolicyRef {
		out := make([]runs.PolicyRef, len(in))
		for i, p := range in {
			out[i] = runs.PolicyRef{PolicyID: p.ID}
			if p.Name != "" { // deleted since
				out[i].PolicyName = &p.Name
			}
		}
		return out
	}
	return func(ctx context.Context, accountID, runID string) (blocked, flagged []runs.PolicyRef, err error) {
		b, f, err := g.RunVerdicts(ctx, accountID, runID)
		return refs(b), refs(f), err
	}
}
