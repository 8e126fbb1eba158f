package lifecycle

import (
	"fmt"
	"time"

	"github.com/agentry/agentry/internal/models/catalog"
)

// Signal is a failure signal that may trigger rollback
// (prompt_model_auto_rollback_triggers).
type Signal string

// Failure signals.
const (
	SignalEvalFail        Signal = "agent_eval_fail"  // an evaluation of the agent's output failed
	SignalGovernanceFlag  Signal = "governance_flag"  // governance flagged an output
	SignalGovernanceBlock Signal = "governance_block" // governance blocked an output
	SignalRunFailed       Signal = "agent_run_failed" // a run of the agent failed
)

// DefaultTriggers apply when an agent's trigger list is null. A flag is
// left out: it asks for review, it does not say the model got worse.
var DefaultTriggers = []Signal{SignalEvalFail, SignalGovernanceBlock, SignalRunFailed}

// ParseSignal validates a trigger name.
func ParseSignal(s string) (Signal, error) {
	switch Signal(s) {
	case SignalEvalFail, SignalGovernanceFlag, SignalGovernanceBlock, SignalRunFailed:
		return Signal(s), nil
	}
	return "", fmt.Errorf("rollback trigger %q must be agent_eval_fail, governance_flag, governance_block or agent_run_failed", s)
}

// Event is one observed failure signal.
type Event struct {
	Signal Signal    `json:"signal"`
	At     time.Time `json:"at"`
}

// Upgrade records an automatic model change.
type Upgrade struct {
	From string    `json:"from"`
	To   string    `json:"to"`
	At   time.Time `json:"at"`
}

// RollbackPolicy is an agent's rollback configuration.
type RollbackPolicy struct {
	Enabled bool
	// Triggers that cause rollback; nil means DefaultTriggers, an empty
	// non-nil list means none.
	Triggers []Signal
	// Window after the upgrade during which signals count (default 7
	// days): an upgrade that has run cleanly that long is kept.
	Window time.Duration
}

// DefaultRollbackWindow is the observation period after an upgrade.
const DefaultRollbackWindow = 7 * 24 * time.Hour

// RollbackDecision is the outcome of DecideRollback.
type RollbackDecision struct {
	Rollback bool   `json:"rollback"`
	To       string `json:"to,omitempty"` // the model to return to
	Trigger  Signal `json:"trigger,omitempty"`
	// Blocked is set when a trigger fired but the previous model can no
	// longer be used (retired or disabled); the caller should alert.
	Blocked bool   `json:"blocked,omitempty"`
	Reason  string `json:"reason"`
}

// DecideRollback says whether the signals observed after up warrant going
// back to the previous model at now. The first event, in time order,
// whose signal is a trigger and which falls inside the window decides.
// After rolling back, add up.To to Policy.Excluded so the strategy does
// not upgrade straight back.
func DecideRollback(cat *catalog.Catalog, up Upgrade, events []Event, now time.Time, p RollbackPolicy) RollbackDecision {
	if !p.Enabled {
		return RollbackDecision{Reason: "automatic rollback is off"}
	}
	triggers := p.Triggers
	if triggers == nil {
		triggers = DefaultTriggers
	}
	window := p.Window
	if window <= 0 {
		window = DefaultRollbackWindow
	}
	isTrigger := map[Signal]bool{}
	for _, t := range triggers {
		isTrigger[t] = true
	}
	end := up.At.Add(window)
	var first *Event
	for i := range events {
		e := &events[i]
		if !isTrigger[e.Signal] || e.At.Before(up.At) || e.At.After(end) || e.At.After(now) {
			continue
		}
		if first == nil || e.At.Before(first.At) {
			first = e
		}
	}
	if first == nil {
		if now.After(end) {
			return RollbackDecision{Reason: "the upgrade ran through its observation window without a trigger"}
		}
		return RollbackDecision{Reason: "no trigger since the upgrade"}
	}
	prev, ok := cat.Get(up.From)
	if !ok || !prev.Enabled || prev.IsSunset(now) {
		return RollbackDecision{Trigger: first.Signal, Blocked: true,
			Reason: fmt.Sprintf("%s after the upgrade, but %s can no longer be used", first.Signal, up.From)}
	}
	return RollbackDecision{Rollback: true, To: prev.ID, Trigger: first.Signal,
		Reason: fmt.Sprintf("%s at %s, after the upgrade from %s to %s", first.Signal, first.At.UTC().Format(time.RFC3339), prev.ID, up.To)}
}
