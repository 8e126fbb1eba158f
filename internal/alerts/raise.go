package alerts

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/telemetry"
	"github.com/riverqueue/river"
)

// Signal is something alert-worthy another area observed: an evaluation
// that failed or was flagged, a governance verdict, a model lifecycle
// change, a source pull's outcome (pull_failed, or pull_succeeded to
// reset the source detectors). Type is an alert type (or PullSucceeded);
// AgentID, RunID and SourceID say what it is about.
type Signal struct {
	AccountID                string
	Type                     string
	AgentID, RunID, SourceID string
	Message                  string
	Details                  map[string]any
}

// Raise opens (or counts one more occurrence on) an alert for every
// enabled configuration of the account that matches the signal: of its
// type, and naming its agent or source or neither. A configuration within
// its cooldown raises nothing. Signals about runs (run_failed, slow_run…)
// normally come from the runs hook, not from here.
func (s *Service) Raise(ctx context.Context, ev Signal) error {
	if ev.AccountID == "" {
		return fmt.Errorf("alerts: a signal needs an account")
	}
	switch ev.Type {
	case PullFailed, PullSucceeded:
		if ev.SourceID == "" {
			return fmt.Errorf("alerts: a pull signal needs a source")
		}
		return s.sourcePull(ctx, ev)
	}
	if !slices.Contains(AllTypes, ev.Type) {
		return fmt.Errorf("alerts: unknown alert type %q", ev.Type)
	}
	configs, err := s.repo.matching(ctx, ev.AccountID, []string{ev.Type}, ev.AgentID, ev.SourceID)
	if err != nil {
		return err
	}
	for _, c := range configs {
		if _, err := s.open(ctx, c, ev, true, ""); err != nil {
			return err
		}
	}
	return nil
}

// titles of each alert type.
var titles = map[string]string{
	RunFailed:               "Run failed",
	ConsecutiveFailures:     "Consecutive run failures",
	ErrorRateSpike:          "Run error rate spike",
	RunBurst:                "Burst of runs",
	SlowRun:                 "Slow run",
	CreditsLowThreshold:     "Credits running low",
	CreditsRunoutPrediction: "Credits predicted to run out",
	CreditsUsageSpike:       "Credit usage spike",
	NonManualEvalFailed:     "Evaluation failed",
	NonManualEvalFlagged:    "Evaluation flagged",
	GovernanceFlagged:       "Governance policy flagged content",
	GovernanceBlocked:       "Governance policy blocked content",
	ModelNewerAvailable:     "Newer model available",
	ModelDeprecated:         "Model deprecated",
	ModelSunset:             "Model sunset",
	InboundEmailPaused:      "Inbound e-mail paused",
	PullFailed:              "Source pull failed",
	ConsecutivePullFailures: "Consecutive source pull failures",
	PullErrorRateSpike:      "Source pull error rate spike",
}

// open raises ev for configuration c. repeat says whether an alert already
// open for c counts the signal as one more occurrence (per-event types) or
// ignores it (state detectors, which see the same condition again).
// markRunID, when set, counts that run for c once: a run already counted
// raises nothing. It reports whether a new alert was opened; the new
// alert's notification job commits with it.
func (s *Service) open(ctx context.Context, c AlertConfig, ev Signal, repeat bool, markRunID string) (bool, error) {
	a := Alert{AccountID: c.AccountID, ConfigID: c.ID, Type: c.AlertType, Title: titles[c.AlertType],
		Description: ev.Message, AgentID: ev.AgentID, RunID: ev.RunID, SourceConnectionID: ev.SourceID, Details: ev.Details}
	if a.AgentID == "" {
		a.AgentID = c.AgentID
	}
	if a.SourceConnectionID == "" {
		a.SourceConnectionID = c.SourceConnectionID
	}
	if !repeat {
		// A state detector's condition seen again is not a new occurrence.
		if open, err := s.hasOpen(ctx, c); err != nil || open {
			return false, err
		}
	}
	recipients, err := s.recipients(ctx, c)
	if err != nil {
		return false, err
	}
	subs := make([]string, len(recipients))
	for i, r := range recipients {
		subs[i] = r.UserID
	}
	var wake func()
	opened, outcome, err := s.repo.openThen(ctx, a, subs, s.now(), markRunID, func(tx *sql.Tx, conn *sql.Conn, a Alert) error {
		if s.Queue == nil {
			return nil
		}
		var err error
		wake, err = s.Queue.InsertTx(ctx, tx, conn, NotifyArgs{AccountID: a.AccountID, AlertID: a.ID, Event: EventTriggered}, notifyOpts)
		return err
	})
	if err != nil || outcome != AlertOpened {
		return false, err
	}
	if wake != nil {
		wake()
	}
	telemetry.AlertRaised(ctx, telemetry.Alert{Type: c.AlertType, ID: opened.ID, AccountID: c.AccountID, AgentID: a.AgentID, RunID: a.RunID})
	return true, nil
}

func (s *Service) hasOpen(ctx context.Context, c AlertConfig) (bool, error) {
	return s.repo.hasOpen(ctx, c.ID)
}

// recipients are the members a configuration distributes to, less those
// who opted out of its type in the organization.
func (s *Service) recipients(ctx context.Context, c AlertConfig) ([]AlertMember, error) {
	members, err := s.repo.members(ctx, c.AccountID)
	if err != nil {
		return nil, err
	}
	var out []AlertMember
	for _, m := range members {
		var in bool
		switch c.DistributionType {
		case DistributionSelectedMembers:
			in = slices.Contains(c.RecipientUserIDs, m.UserID)
		case DistributionOwnerAdmins:
			in = m.Role == store.RoleOwner || m.Role == store.RoleAdmin
		default:
			in = m.Role == store.RoleOwner
		}
		if !in {
			continue
		}
		if m.AccountKind == directory.KindOrganization {
			opted, err := s.repo.optOuts(ctx, m.UserID, c.AccountID)
			if err != nil {
				return nil, err
			}
			if opted[c.AlertType] {
				continue
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// Events an alert's deliveries announce.
const (
	EventTriggered     = "alert.triggered"
	EventStatusChanged = "alert.status_changed"
	EventCommented     = "alert.commented"
)

// notifyOpts are the notification jobs' options.
var notifyOpts = &river.InsertOpts{MaxAttempts: 3}

// notify enqueues the deliveries of an event. A failure to enqueue is
// logged: the alert itself is recorded, and is what matters most.
func (s *Service) notify(ctx context.Context, accountID, alertID, event, actorUserID string) {
	if s.Queue == nil {
		return
	}
	if _, err := s.Queue.Insert(ctx, NotifyArgs{AccountID: accountID, AlertID: alertID, Event: event, ActorUserID: actorUserID},
		notifyOpts); err != nil {
		slog.WarnContext(ctx, "enqueue alert notification", "alert_id", alertID, "err", err)
	}
}

// describe joins the parts of a message that are set.
func describe(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}
