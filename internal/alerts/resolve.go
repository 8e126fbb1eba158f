package alerts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/agentry/agentry/internal/store"
)

// Condition alerts resolve themselves. The types below describe a state
// (a run of failures, a rate over a window, a low balance, a paused
// inbox) rather than an event: once the detector sees the state gone, an
// alert still open for the configuration is moved to resolved, with the
// reason in its history, and its subscribers are told. Per-event types
// (run_failed, slow_run, evaluation and governance verdicts, model
// lifecycle, pull_failed) stay open until a person acts on them.
var conditionTypes = []string{ConsecutiveFailures, ErrorRateSpike, RunBurst,
	CreditsLowThreshold, CreditsRunoutPrediction, CreditsUsageSpike,
	ConsecutivePullFailures, PullErrorRateSpike, InboundEmailPaused}

// IsConditionType reports whether alerts of this type resolve themselves
// when their condition clears.
func IsConditionType(alertType string) bool { return slices.Contains(conditionTypes, alertType) }

// clear resolves c's open alert, if any, saying why. It reports whether
// one was resolved.
func (s *Service) clear(ctx context.Context, c AlertConfig, why string) (bool, error) {
	id, err := s.repo.openOf(ctx, c.ID)
	if err != nil || id == "" {
		return false, err
	}
	prev, err := s.repo.setStatus(ctx, c.AccountID, id, StatusResolved, "", "Resolved automatically: "+why)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil // deleted meanwhile
	}
	if err != nil {
		return false, err
	}
	if prev != StatusResolved {
		s.notify(ctx, c.AccountID, id, EventStatusChanged, "")
		slog.InfoContext(ctx, "alert resolved: condition cleared", "account_id", c.AccountID, "alert_id", id, "type", c.AlertType)
	}
	return true, nil
}

// StatusResolved is the status a cleared condition moves its alert to.
const StatusResolved = "resolved"

// Resolve resolves the open alerts a signal's condition clears: for every
// configuration of the account matching it (its type, naming its agent or
// source or neither) whose type is a condition type. Other areas call it
// when a state they raised ends (the inbound breaker lifting).
func (s *Service) Resolve(ctx context.Context, ev Signal) error {
	if !IsConditionType(ev.Type) {
		return fmt.Errorf("alerts: %q alerts do not resolve themselves", ev.Type)
	}
	configs, err := s.repo.matching(ctx, ev.AccountID, []string{ev.Type}, ev.AgentID, ev.SourceID)
	if err != nil {
		return err
	}
	for _, c := range configs {
		if _, err := s.clear(ctx, c, ev.Message); err != nil {
			return err
		}
	}
	return nil
}
