package lifecycle

import (
	"fmt"
	"sort"
	"time"

	"github.com/agentry/agentry/internal/models/catalog"
)

// Strategy is an agent's prompt_model_auto_upgrade_strategy.
type Strategy string

// Strategies, from never moving to moving first.
//
//   - none: never changes the model, even past its sunset (calls then
//     fail and the sunset alert says so).
//   - early_adopter: moves to the newest compatible model of the family
//     as soon as it is released.
//   - middle_of_road: moves to the newest compatible model once it has
//     been out for the settle period (30 days), so early problems are
//     found by others first; moves at once if the current model is
//     deprecated.
//   - cautious_adopter: moves only when it must: when the current model
//     is within the cautious window (30 days) of its sunset, or past it.
//     It then takes the designated successor, or else the longest-released
//     compatible model (the most proven).
const (
	StrategyNone     Strategy = "none"
	StrategyEarly    Strategy = "early_adopter"
	StrategyMiddle   Strategy = "middle_of_road"
	StrategyCautious Strategy = "cautious_adopter"
)

// ParseStrategy validates a strategy name; empty means none.
func ParseStrategy(s string) (Strategy, error) {
	switch Strategy(s) {
	case "", StrategyNone:
		return StrategyNone, nil
	case StrategyEarly, StrategyMiddle, StrategyCautious:
		return Strategy(s), nil
	}
	return "", fmt.Errorf("auto-upgrade strategy %q must be none, early_adopter, middle_of_road or cautious_adopter", s)
}

// UpgradeDecision is the outcome of DecideUpgrade.
type UpgradeDecision struct {
	Upgrade bool          `json:"upgrade"`
	Target  catalog.Model `json:"target,omitzero"`
	Reason  string        `json:"reason"`
	// NotBefore is when the strategy would move to Target, when a target
	// exists but the strategy is waiting.
	NotBefore *time.Time `json:"not_before,omitempty"`
}

// Compatible reports whether target can replace current without an agent
// noticing a lost capability: it keeps tool use, structured output and
// thinking where current has them, accepts at least current's input
// media, and has at least current's context and output limits.
func Compatible(current, target catalog.Model) bool {
	if current.SupportsToolUse && !target.SupportsToolUse ||
		current.SupportsStructuredOutput && !target.SupportsStructuredOutput ||
		current.SupportsThinking && !target.SupportsThinking {
		return false
	}
	for _, k := range current.InputMedia {
		if !target.AcceptsInput(k) {
			return false
		}
	}
	return target.Kind == current.Kind &&
		target.MaxContextTokens >= current.MaxContextTokens &&
		target.MaxOutputTokens >= current.MaxOutputTokens
}

// candidates are the models current may move to at now: the resolved
// successor and the newer models of its family that are enabled, priced,
// released, not deprecated, compatible and not excluded.
func candidates(cat *catalog.Catalog, cur catalog.Model, now time.Time, p Policy) (list []catalog.Model, successor string) {
	excluded := map[string]bool{}
	for _, id := range p.Excluded {
		excluded[id] = true
	}
	ok := func(m catalog.Model) bool {
		return m.ID != cur.ID && m.Enabled && m.Priced() && !m.IsDeprecated(now) && !excluded[m.ID] &&
			(m.ReleasedAt == nil || !m.ReleasedAt.After(now)) && Compatible(cur, m)
	}
	seen := map[string]bool{}
	if s, found := cat.ResolveSuccessor(cur.ID, now); found && ok(s) {
		list = append(list, s)
		seen[s.ID] = true
		successor = s.ID
	}
	for _, m := range cat.Upgrades(cur.ID, now) {
		if !seen[m.ID] && ok(m) {
			list = append(list, m)
			seen[m.ID] = true
		}
	}
	return list, successor
}

// DecideUpgrade applies strategy s to the model id an agent uses.
func DecideUpgrade(cat *catalog.Catalog, id string, s Strategy, now time.Time, p Policy) (UpgradeDecision, error) {
	p = p.withDefaults()
	cur, ok := cat.Get(id)
	if !ok {
		return UpgradeDecision{}, fmt.Errorf("%w: %s", catalog.ErrUnknownModel, id)
	}
	if _, err := ParseStrategy(string(s)); err != nil {
		return UpgradeDecision{}, err
	}
	if s == StrategyNone || s == "" {
		return UpgradeDecision{Reason: "auto-upgrade is off"}, nil
	}
	cands, successor := candidates(cat, cur, now, p)
	if len(cands) == 0 {
		return UpgradeDecision{Reason: "no compatible newer model is available"}, nil
	}
	newest := newestFirst(cands)
	switch s {
	case StrategyEarly:
		t := newest[0]
		return UpgradeDecision{Upgrade: true, Target: t, Reason: fmt.Sprintf("early adopter: %s is the newest compatible model", t.Name)}, nil

	case StrategyMiddle:
		if cur.IsDeprecated(now) {
			t := newest[0]
			if successor != "" {
				t, _ = cat.Get(successor)
			}
			return UpgradeDecision{Upgrade: true, Target: t, Reason: fmt.Sprintf("middle of road: %s is deprecated; moving to %s", cur.Name, t.Name)}, nil
		}
		for _, t := range newest {
			if t.ReleasedAt != nil && now.Sub(t.ReleasedAt.Time) >= p.SettlePeriod {
				return UpgradeDecision{Upgrade: true, Target: t, Reason: fmt.Sprintf("middle of road: %s has been available since %s", t.Name, day(t.ReleasedAt.Time))}, nil
			}
		}
		t := newest[0]
		d := UpgradeDecision{Target: t, Reason: fmt.Sprintf("middle of road: waiting for %s to settle", t.Name)}
		if t.ReleasedAt != nil {
			nb := t.ReleasedAt.Add(p.SettlePeriod)
			d.NotBefore = &nb
		}
		return d, nil

	case StrategyCautious:
		t := mostProven(cands, successor, cat)
		if cur.SunsetAt == nil {
			return UpgradeDecision{Target: t, Reason: fmt.Sprintf("cautious: %s has no retirement date", cur.Name)}, nil
		}
		moveAt := cur.SunsetAt.Add(-p.CautiousWindow)
		if now.Before(moveAt) {
			return UpgradeDecision{Target: t, NotBefore: &moveAt,
				Reason: fmt.Sprintf("cautious: waiting until %s, %d days before %s retires", day(moveAt), int(p.CautiousWindow.Hours()/24), cur.Name)}, nil
		}
		return UpgradeDecision{Upgrade: true, Target: t,
			Reason: fmt.Sprintf("cautious: %s retires on %s; moving to %s", cur.Name, day(cur.SunsetAt.Time), t.Name)}, nil
	}
	return UpgradeDecision{}, fmt.Errorf("unknown strategy %q", s)
}

func newestFirst(list []catalog.Model) []catalog.Model {
	out := append([]catalog.Model(nil), list...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.FamilyGeneration != b.FamilyGeneration {
			return a.FamilyGeneration > b.FamilyGeneration
		}
		return released(a).After(released(b))
	})
	return out
}

// mostProven prefers the designated successor, else the earliest release.
func mostProven(list []catalog.Model, successor string, cat *catalog.Catalog) catalog.Model {
	if successor != "" {
		m, _ := cat.Get(successor)
		return m
	}
	out := append([]catalog.Model(nil), list...)
	sort.SliceStable(out, func(i, j int) bool { return released(out[i]).Before(released(out[j])) })
	return out[0]
}

// released orders unknown release dates last among "newest".
func released(m catalog.Model) time.Time {
	if m.ReleasedAt == nil {
		return time.Time{}
	}
	return m.ReleasedAt.Time
}
