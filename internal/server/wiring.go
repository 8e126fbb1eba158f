package server

import (
	"context"

	alerting "github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/mail/inbound"
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
