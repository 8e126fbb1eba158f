package alerts

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Alert types, as the contract lists them.
const (
	RunFailed           = "run_failed"
	ConsecutiveFailures = "consecutive_failures"
	ErrorRateSpike      = "error_rate_spike"
	RunBurst            = "run_burst"
	SlowRun             = "slow_run"

	CreditsLowThreshold     = "credits_low_threshold"
	CreditsRunoutPrediction = "credits_runout_prediction"
	CreditsUsageSpike       = "credits_usage_spike"

	NonManualEvalFailed  = "non_manual_eval_failed"
	NonManualEvalFlagged = "non_manual_eval_flagged"
	GovernanceFlagged    = "governance_flagged"
	GovernanceBlocked    = "governance_blocked"

	ModelNewerAvailable = "model_newer_available"
	ModelDeprecated     = "model_deprecated"
	ModelSunset         = "model_sunset"

	// InboundEmailPaused is an extension type (not in the contract's
	// list): the account's inbound overload breaker armed and inbound
	// mail is being turned away. Account-level; resolves itself when
	// the breaker lifts.
	InboundEmailPaused = "inbound_email_paused"

	PullFailed              = "pull_failed"
	ConsecutivePullFailures = "consecutive_pull_failures"
	PullErrorRateSpike      = "pull_error_rate_spike"
)

// PullSucceeded is a signal, not an alert type: the knowledge area reports
// a successful pull with it, so the source detectors see the whole series.
const PullSucceeded = "pull_succeeded"

// AgentTypes are the agent (and account) alert types; SourceTypes those of
// sources; CreditTypes the account-level credit ones among AgentTypes.
var (
	AgentTypes = []string{RunFailed, ConsecutiveFailures, ErrorRateSpike, RunBurst, SlowRun,
		CreditsLowThreshold, CreditsRunoutPrediction, CreditsUsageSpike,
		NonManualEvalFailed, NonManualEvalFlagged, GovernanceFlagged, GovernanceBlocked,
		ModelNewerAvailable, ModelDeprecated, ModelSunset}
	SourceTypes = []string{PullFailed, ConsecutivePullFailures, PullErrorRateSpike}
	CreditTypes = []string{CreditsLowThreshold, CreditsRunoutPrediction, CreditsUsageSpike}
	// AccountTypes are account-level: a configuration of them names no
	// agent or source.
	AccountTypes = append(slices.Clone(CreditTypes), InboundEmailPaused)
	// AllTypes is every alert type, agent types first, then the
	// extension types.
	AllTypes = append(append(slices.Clone(AgentTypes), SourceTypes...), InboundEmailPaused)
	// runTypes are detected from runs.
	runTypes = []string{RunFailed, ConsecutiveFailures, ErrorRateSpike, RunBurst, SlowRun}
)

// Distribution types.
const (
	DistributionOwner           = "owner"
	DistributionOwnerAdmins     = "owner_admins"
	DistributionSelectedMembers = "selected_members"
)

// Distributions lists the distribution types.
var Distributions = []string{DistributionOwner, DistributionOwnerAdmins, DistributionSelectedMembers}

// Statuses an alert may be set to.
var Statuses = []string{"triggered", "acknowledged", "resolved", "dismissed"}

// Bounds of what a tenant configures.
const (
	MaxCooldownMinutes = 60 * 24 * 365
	MaxRecipients      = 100
	MaxThresholdBytes  = 4096
	MaxCommentBytes    = 10_000
	MaxNoteBytes       = 2_000
)

// Threshold is a configuration's threshold object read with the defaults
// of its type. Unknown keys are kept as they are (the contract leaves the
// object open); known keys must have the right type and range.
type Threshold struct {
	// consecutive_failures, consecutive_pull_failures, run_burst: how many.
	Count int
	// error_rate_spike, pull_error_rate_spike: the failed fraction that alerts,
	// over at least MinRuns runs in the window.
	Rate    float64
	MinRuns int
	// Window of the rate and burst detectors, and of credits_usage_spike.
	WindowMinutes int
	// slow_run: a run longer than this.
	Seconds float64
	// credits_low_threshold: a balance below this.
	Credits float64
	// credits_runout_prediction: a predicted run-out within this many days.
	Days float64
	// credits_usage_spike: spend in the window over Multiplier × the
	// average of the windows before it.
	Multiplier float64
}

// thresholdKey is one known key: its JSON name, range, and where it goes.
type thresholdKey struct {
	name     string
	min, max float64
	integer  bool
	set      func(t *Threshold, v float64)
}

var thresholdKeys = map[string][]thresholdKey{
	ConsecutiveFailures:     {countKey(2, 1000)},
	ConsecutivePullFailures: {countKey(2, 1000)},
	RunBurst:                {countKey(1, 1_000_000), windowKey()},
	ErrorRateSpike:          {rateKey(), minRunsKey(), windowKey()},
	PullErrorRateSpike:      {rateKey(), minRunsKey(), windowKey()},
	SlowRun:                 {{"seconds", 0.001, 86400 * 7, false, func(t *Threshold, v float64) { t.Seconds = v }}},
	CreditsLowThreshold:     {{"credits", 0, 1e12, false, func(t *Threshold, v float64) { t.Credits = v }}},
	CreditsRunoutPrediction: {{"days", 0.01, 3650, false, func(t *Threshold, v float64) { t.Days = v }}, windowKey()},
	CreditsUsageSpike:       {{"multiplier", 1, 1000, false, func(t *Threshold, v float64) { t.Multiplier = v }}, windowKey()},
}

func countKey(min, max float64) thresholdKey {
	return thresholdKey{"count", min, max, true, func(t *Threshold, v float64) { t.Count = int(v) }}
}
func windowKey() thresholdKey {
	return thresholdKey{"window_minutes", 1, 60 * 24 * 30, true, func(t *Threshold, v float64) { t.WindowMinutes = int(v) }}
}
func rateKey() thresholdKey {
	return thresholdKey{"rate", 0.01, 1, false, func(t *Threshold, v float64) { t.Rate = v }}
}
func minRunsKey() thresholdKey {
	return thresholdKey{"min_runs", 1, 1_000_000, true, func(t *Threshold, v float64) { t.MinRuns = int(v) }}
}

// defaults of each type's threshold.
func defaultThreshold(alertType string) Threshold {
	t := Threshold{Count: 3, Rate: 0.5, MinRuns: 5, WindowMinutes: 60, Seconds: 300, Credits: 10, Days: 7, Multiplier: 3}
	switch alertType {
	case RunBurst:
		t.Count, t.WindowMinutes = 100, 5
	case CreditsRunoutPrediction:
		t.WindowMinutes = 7 * 24 * 60
	case CreditsUsageSpike:
		t.WindowMinutes = 24 * 60
	}
	return t
}

// ThresholdError is a threshold key of the wrong type or range.
type ThresholdError struct{ Key, Msg string }

func (e *ThresholdError) Error() string { return fmt.Sprintf("threshold.%s %s", e.Key, e.Msg) }

// ParseThreshold reads raw (a JSON object or empty) for alertType.
func ParseThreshold(alertType string, raw json.RawMessage) (Threshold, error) {
	t := defaultThreshold(alertType)
	if len(raw) == 0 || string(raw) == "null" {
		return t, nil
	}
	if len(raw) > MaxThresholdBytes {
		return t, &ThresholdError{"", fmt.Sprintf("is longer than %d bytes", MaxThresholdBytes)}
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return t, &ThresholdError{"", "must be a JSON object"}
	}
	for _, k := range thresholdKeys[alertType] {
		v, ok := m[k.name]
		if !ok || v == nil {
			continue
		}
		f, isNum := v.(float64)
		if !isNum || math.IsNaN(f) || f < k.min || f > k.max || (k.integer && f != math.Trunc(f)) {
			kind := "a number"
			if k.integer {
				kind = "a whole number"
			}
			return t, &ThresholdError{k.name, fmt.Sprintf("must be %s from %g to %g", kind, k.min, k.max)}
		}
		k.set(&t, f)
	}
	return t, nil
}
