// Package oversight holds what evaluations and governance share with the
// alerts area: the alert-worthy Signal they raise and the one-method
// Alerter they raise it through. The alerts area implements Raise with
// the same shape; the server wires it in (nil raises nothing).
package oversight

import (
	"context"
	"log/slog"
)

// Alert types evaluations and governance raise.
const (
	AlertEvalFailed        = "non_manual_eval_failed"
	AlertEvalFlagged       = "non_manual_eval_flagged"
	AlertGovernanceFlagged = "governance_flagged"
	AlertGovernanceBlocked = "governance_blocked"
)

// Signal is an alert-worthy event.
type Signal struct {
	AccountID string
	Type      string
	AgentID   string
	RunID     string
	SourceID  string
	Message   string
	Details   map[string]any
}

// Alerter raises signals (the alerts area).
type Alerter interface {
	Raise(ctx context.Context, ev Signal) error
}

// AlerterFunc adapts a function to Alerter.
type AlerterFunc func(ctx context.Context, ev Signal) error

// Raise calls f.
func (f AlerterFunc) Raise(ctx context.Context, ev Signal) error { return f(ctx, ev) }

// Raise sends ev through a, which may be nil. A failure to alert is
// logged, never the caller's failure: the run or check goes on.
func Raise(ctx context.Context, a Alerter, ev Signal) {
	if a == nil {
		return
	}
	if err := a.Raise(context.WithoutCancel(ctx), ev); err != nil {
		slog.Warn("raising alert", "type", ev.Type, "account", ev.AccountID, "err", err)
	}
}
