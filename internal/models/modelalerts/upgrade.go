package modelalerts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/models/lifecycle"
)

// Change is one model change the upgrade job made to an agent.
type Change struct {
	AgentID   string
	From, To  string
	StepIDs   []string
	Rollback  bool   // a return to the previous model
	Reason    string // the strategy's or the trigger's explanation
	UpgradeID string
}

// UpgradeAgent applies an agent's rollback and upgrade settings now:
// first it rolls back recent upgrades that failure signals condemn (when
// rollback is enabled), then it moves prompt_call steps to the model the
// upgrade strategy picks, never to one it was rolled back from. Each
// change rewrites the definition through the agents store (keeping the
// previous version in the definition history) and raises an alert.
func (s *Service) UpgradeAgent(ctx context.Context, accountID, agentID string) ([]Change, error) {
	a, err := s.Agents.Agent(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	back, err := s.rollback(ctx, a)
	if err != nil {
		return back, err
	}
	if len(back) > 0 {
		if a, err = s.Agents.Agent(ctx, accountID, agentID); err != nil {
			return back, err
		}
	}
	up, err := s.upgrade(ctx, a)
	return append(back, up...), err
}

// upgrade moves the agent's prompt models by its strategy.
func (s *Service) upgrade(ctx context.Context, a agentrow.Agent) ([]Change, error) {
	strategy, err := lifecycle.ParseStrategy(a.Settings.ModelUpgradeStrategy)
	if err != nil || strategy == lifecycle.StrategyNone {
		return nil, nil // an unknown stored strategy is treated as none, never guessed at
	}
	d, err := parse(a.Definition)
	if err != nil {
		return nil, nil
	}
	history, err := s.repo.upgrades(ctx, a.AccountID, a.ID)
	if err != nil {
		return nil, err
	}
	policy := s.Policy
	for _, u := range history {
		if u.RolledBackAt != nil {
			policy.Excluded = append(policy.Excluded, u.ToModel)
		}
	}
	now := s.now()
	var out []Change
	for _, use := range modelsInUse(s.Catalog, d, true) {
		dec, err := lifecycle.DecideUpgrade(s.Catalog, use.ModelID, strategy, now, policy)
		if err != nil || !dec.Upgrade {
			continue
		}
		ch := Change{AgentID: a.ID, From: use.ModelID, To: dec.Target.ID, StepIDs: use.StepIDs, Reason: dec.Reason}
		if err := s.apply(ctx, a, ch); err != nil {
			if errors.Is(err, errUnchanged) {
				continue
			}
			return out, err
		}
		u, err := s.repo.recordUpgrade(ctx, ModelUpgrade{AccountID: a.AccountID, AgentID: a.ID,
			FromModel: ch.From, ToModel: ch.To, StepIDs: ch.StepIDs, Reason: ch.Reason, UpgradedAt: now})
		if err != nil {
			return out, err
		}
		ch.UpgradeID = u.ID
		from, to := s.name(ch.From), s.name(ch.To)
		if err := s.alert(ctx, a, TypeAutoUpgraded, ch, "upgrade|"+u.ID,
			fmt.Sprintf("Agent %q: prompt steps moved automatically from %s to %s (%s).", a.Name, from, to, dec.Reason)); err != nil {
			return out, err
		}
		out = append(out, ch)
	}
	return out, nil
}

// rollback undoes the agent's upgrades whose observation window saw a
// trigger, or alerts when the previous model can no longer be used.
func (s *Service) rollback(ctx context.Context, a agentrow.Agent) ([]Change, error) {
	if !a.Settings.ModelRollbackEnabled {
		return nil, nil
	}
	policy := lifecycle.RollbackPolicy{Enabled: true}
	if a.Settings.ModelRollbackTriggers != nil {
		policy.Triggers = []lifecycle.Signal{}
		for _, t := range a.Settings.ModelRollbackTriggers {
			if sig, err := lifecycle.ParseSignal(t); err == nil {
				policy.Triggers = append(policy.Triggers, sig)
			}
		}
	}
	history, err := s.repo.upgrades(ctx, a.AccountID, a.ID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var out []Change
	for _, u := range history {
		window := policy.Window
		if window <= 0 {
			window = lifecycle.DefaultRollbackWindow
		}
		if u.RolledBackAt != nil || now.Sub(u.UpgradedAt) > window {
			continue
		}
		signals, err := s.repo.signalsSince(ctx, a.AccountID, a.ID, u.UpgradedAt)
		if err != nil {
			return out, err
		}
		events := make([]lifecycle.Event, 0, len(signals))
		for _, sg := range signals {
			events = append(events, lifecycle.Event{Signal: lifecycle.Signal(sg.Signal), At: sg.At})
		}
		dec := lifecycle.DecideRollback(s.Catalog, lifecycle.Upgrade{From: u.FromModel, To: u.ToModel, At: u.UpgradedAt}, events, now, policy)
		ch := Change{AgentID: a.ID, From: u.ToModel, To: u.FromModel, StepIDs: u.StepIDs, Rollback: true, Reason: dec.Reason, UpgradeID: u.ID}
		switch {
		case dec.Blocked:
			if err := s.alert(ctx, a, TypeRollbackBlocked, ch, "rollback-blocked|"+u.ID,
				fmt.Sprintf("Agent %q: %s after the automatic upgrade to %s, but %s can no longer be used, so it was not rolled back.",
					a.Name, dec.Trigger, s.name(u.ToModel), s.name(u.FromModel))); err != nil {
				return out, err
			}
		case dec.Rollback:
			if err := s.apply(ctx, a, ch); err != nil && !errors.Is(err, errUnchanged) {
				return out, err
			}
			// Marked even when no step still used the new model (the
			// author changed it since): the upgrade is over either way,
			// and the model stays excluded from future upgrades.
			if err := s.repo.markUpgradeRolledBack(ctx, a.AccountID, u.ID, string(dec.Trigger)); err != nil {
				return out, err
			}
			if err := s.alert(ctx, a, TypeAutoRolledBack, ch, "rollback|"+u.ID,
				fmt.Sprintf("Agent %q: prompt steps rolled back from %s to %s after %s.", a.Name, s.name(u.ToModel), s.name(u.FromModel), dec.Trigger)); err != nil {
				return out, err
			}
			out = append(out, ch)
		}
	}
	return out, nil
}

// apply rewrites the agent's steps of ch from ch.From to ch.To in one
// store transaction, re-reading the definition under the row lock so a
// concurrent save by the author is never overwritten.
func (s *Service) apply(ctx context.Context, a agentrow.Agent, ch Change) error {
	_, err := s.Agents.UpdateAgent(ctx, a.AccountID, a.ID, "", func(cur *agentrow.Agent) error {
		body, targets, err := setModel(s.Catalog, cur.Definition, ch.StepIDs, ch.From, ch.To)
		if err != nil {
			return err
		}
		cur.Definition, cur.CallTargets = body, targets
		return nil
	})
	if err != nil && !errors.Is(err, errUnchanged) {
		slog.WarnContext(ctx, "model upgrade not applied", "agent_id", a.ID, "from", ch.From, "to", ch.To, "err", err)
	}
	return err
}

// alert records an alert about a change, once per key.
func (s *Service) alert(ctx context.Context, a agentrow.Agent, typ string, ch Change, key, msg string) error {
	_, _, err := s.repo.recordAlert(ctx, ModelAlert{AccountID: a.AccountID, AgentID: a.ID,
		ModelID: ch.From, ModelName: s.name(ch.From), Type: typ, Message: msg,
		SuccessorModelID: ch.To, SuccessorModelName: s.name(ch.To), DedupeKey: a.ID + "|" + key})
	return err
}

// name is a model's display name, or its id when the catalog lost it.
func (s *Service) name(id string) string {
	if m, ok := s.Catalog.Get(id); ok {
		return m.Name
	}
	return id
}
