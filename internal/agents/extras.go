package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/agentry/agentry/internal/accounts/directory"
	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/evals/evalrow"
)

// Applying an import's extras. The definition package has already set
// aside what is malformed beyond use (no alert_type, criteria for steps the
// workflow lacks); here each item is checked against this account and the
// API's value rules, and turned into rows. An item that cannot be applied
// is skipped and reported in import_warnings, never an error: the agent is
// still worth creating. Keys an item carries that no column holds are kept
// in its extra JSON and written back on export.

// Values the extras accept.
var (
	distributionTypes = []string{"owner", "owner_admins", "selected_members"}
	// serverKeys are assigned by the exporting server; they mean nothing
	// in this account and are dropped rather than kept as extra.
	serverKeys = []string{"id", "account_id", "agent_id", "trigger_id", "created_at", "updated_at", "next_run_at",
		"last_run_at", "last_alerted_at", "result_summary"}
)

// applied is what an import's extras become.
type applied struct {
	Schedules   []Schedule
	Alerts      []AlertConfig
	Criteria    []evalrow.Criterion
	Policies    []Policy
	SolutionIDs []string
	Skips       []def.ImportSkip
}

func (s *Service) applyExtras(ctx context.Context, accountID string, trigger def.TriggerType, x def.Extras, st AgentSettings) (applied, error) {
	var out applied
	skip := func(cat def.SkipCategory, details map[string]any, format string, args ...any) {
		out.Skips = append(out.Skips, def.NewSkip(cat, details, format, args...))
	}
	now := s.now()
	for i, m := range x.Schedules {
		expr, _ := m["cron_expression"].(string)
		zone, _ := m["timezone"].(string)
		details := map[string]any{"index": i, "cron_expression": expr, "timezone": zone}
		if trigger != def.TriggerSchedule {
			skip(def.SkipSchedule, details, "schedule %d not applied: the agent's trigger is %s, and only schedule triggers fire on schedules", i, trigger)
			continue
		}
		enabled, ok := optBool(m, "enabled", true)
		if !ok {
			skip(def.SkipSchedule, details, "schedule %d not applied: enabled must be true or false", i)
			continue
		}
		next, loc, err := ParseSchedule(expr, zone, now)
		if err != nil {
			skip(def.SkipSchedule, details, "schedule %d not applied: %v", i, err)
			continue
		}
		out.Schedules = append(out.Schedules, Schedule{CronExpression: strings.TrimSpace(expr), Timezone: loc.String(),
			Enabled: enabled, Extra: rest(m, "cron_expression", "timezone", "enabled"), NextRunAt: &next})
	}
	for i, m := range x.AlertConfigs {
		c, why, err := s.alertConfig(ctx, accountID, m, func(id string) {
			skip(def.SkipAlertRecipient, map[string]any{"index": i, "alert_type": m["alert_type"], "user_id": id},
				"alert config %d: recipient %s is not a member of this account and was left out", i, id)
		})
		if err != nil {
			return applied{}, err
		}
		switch {
		case why != "":
		case s.cfg.AlertConfigs == nil:
			why = "this server keeps no alert configs"
		case len(out.Alerts) == s.cfg.AlertConfigs.MaxPerAgent():
			why = fmt.Sprintf("an agent has at most %d alert configs", s.cfg.AlertConfigs.MaxPerAgent())
		}
		if why != "" {
			skip(def.SkipAlertConfig, map[string]any{"index": i, "alert_type": m["alert_type"]}, "alert config %d not applied: %s", i, why)
			continue
		}
		out.Alerts = append(out.Alerts, c)
	}
	for i, m := range x.EvaluationCriteria {
		c, why := criterion(m, st)
		if why == "" && len(out.Criteria) == evalrow.MaxCriteriaPerAgent {
			why = fmt.Sprintf("an agent has at most %d evaluation criteria", evalrow.MaxCriteriaPerAgent)
		}
		if why != "" {
			skip(def.SkipEvaluationCriteria, map[string]any{"index": i, "step_id": m["step_id"]}, "evaluation criteria %d not applied: %s", i, why)
			continue
		}
		out.Criteria = append(out.Criteria, c)
	}
	for i, m := range x.GovernancePolicies {
		p, why, err := s.policy(ctx, accountID, m, func(details map[string]any, msg string) {
			details["index"] = i
			skip(def.SkipGovernanceKBLink, details, "governance policy %d: %s", i, msg)
		})
		if err != nil {
			return applied{}, err
		}
		switch {
		case why != "":
		case s.cfg.Policies == nil:
			why = "this server keeps no governance policies"
		case len(out.Policies) == s.cfg.Policies.MaxPerAgent():
			why = fmt.Sprintf("an agent has at most %d governance policies of its own", s.cfg.Policies.MaxPerAgent())
		}
		if why != "" {
			skip(def.SkipGovernancePolicy, map[string]any{"index": i, "name": m["name"]}, "governance policy %d not applied: %s", i, why)
			continue
		}
		out.Policies = append(out.Policies, p)
	}
	found, err := s.extras().solutionsNamed(ctx, accountID, x.Solutions)
	if err != nil {
		return applied{}, err
	}
	for i, name := range x.Solutions {
		sol, ok := found[name]
		if !ok {
			skip(def.SkipSolutionLink, map[string]any{"index": i, "name": name}, "solution %q does not exist in this account; the agent was not linked to it", name)
			continue
		}
		if !slices.Contains(out.SolutionIDs, sol.ID) {
			out.SolutionIDs = append(out.SolutionIDs, sol.ID)
		}
	}
	return out, nil
}

// alertConfig reads an imported alert configuration. why is set when the
// item cannot be applied; dropped is told each recipient left out.
func (s *Service) alertConfig(ctx context.Context, accountID string, m map[string]any, dropped func(userID string)) (AlertConfig, string, error) {
	c := AlertConfig{AlertType: m["alert_type"].(string), DistributionType: "owner", CooldownMinutes: 60}
	var ok bool
	if c.DistributionType, ok = optString(m, "distribution_type", "owner"); !ok || !slices.Contains(distributionTypes, c.DistributionType) {
		return c, fmt.Sprintf("distribution_type must be one of %v", distributionTypes), nil
	}
	if c.CooldownMinutes, ok = optInt(m, "cooldown_minutes", 60, 0, math.MaxInt32); !ok {
		return c, "cooldown_minutes must be a whole number of minutes, 0 or more", nil
	}
	if c.Enabled, ok = optBool(m, "enabled", true); !ok {
		return c, "enabled must be true or false", nil
	}
	if c.Threshold, ok = optObject(m, "threshold"); !ok {
		return c, "threshold must be an object or null", nil
	}
	ids, ok := optStrings(m, "recipient_user_ids")
	if !ok {
		return c, "recipient_user_ids must be a list of user ids", nil
	}
	c.RecipientUserIDs = []string{}
	for _, id := range ids {
		member, err := directory.IsMember(ctx, s.db, accountID, id)
		if err != nil {
			return c, "", err
		}
		if !member {
			dropped(id)
			continue
		}
		if !slices.Contains(c.RecipientUserIDs, id) {
			c.RecipientUserIDs = append(c.RecipientUserIDs, id)
		}
	}
	c.Extra = rest(m, "alert_type", "distribution_type", "cooldown_minutes", "enabled", "threshold", "recipient_user_ids", "source_connection_id")
	return c, "", nil
}

// criterion reads imported evaluation criteria; settings the item leaves
// out follow the agent's.
func criterion(m map[string]any, st AgentSettings) (evalrow.Criterion, string) {
	c := evalrow.Criterion{StepID: m["step_id"].(string)}
	var ok bool
	if c.Description, ok = optNullString(m, "description"); !ok {
		return c, "description must be a string or null"
	}
	if c.EvaluationPrompt, ok = optNullString(m, "evaluation_prompt"); !ok {
		return c, "evaluation_prompt must be a string or null"
	}
	if c.PassThreshold, ok = optNumber(m, "pass_threshold", 0.5); !ok || c.PassThreshold < 0 || c.PassThreshold > 1 {
		return c, "pass_threshold must be a number from 0 to 1"
	}
	if c.EvaluationTier, ok = optNullString(m, "evaluation_tier"); !ok || (c.EvaluationTier != nil && !slices.Contains(def.EvaluationTiers, *c.EvaluationTier)) {
		return c, fmt.Sprintf("evaluation_tier must be one of %v or null", def.EvaluationTiers)
	}
	if c.EvaluationMode, ok = optString(m, "evaluation_mode", st.EvaluationMode); !ok || !slices.Contains(def.EvaluationModes, c.EvaluationMode) {
		return c, fmt.Sprintf("evaluation_mode must be one of %v", def.EvaluationModes)
	}
	if c.MaxRetries, ok = optInt(m, "max_retries", st.MaxRetries, 1, 10); !ok {
		return c, "max_retries must be a whole number from 1 to 10"
	}
	if c.RetryOnFailure, ok = optBool(m, "retry_on_failure", st.RetryOnFailure); !ok {
		return c, "retry_on_failure must be true or false"
	}
	if c.Enabled, ok = optBool(m, "enabled", true); !ok {
		return c, "enabled must be true or false"
	}
	if c.ExpectationConfig, ok = optObject(m, "expectation_config"); !ok {
		return c, "expectation_config must be an object or null"
	}
	c.Extra = rest(m, "step_id", "description", "evaluation_prompt", "pass_threshold", "evaluation_tier", "evaluation_mode",
		"max_retries", "retry_on_failure", "enabled", "expectation_config")
	return c, ""
}

// kbLinkKeys are where an imported policy names the knowledge bases holding
// its policy documents: by id, or by name (kb_name, as the skip details of
// the API call it).
var kbLinkKeys = []string{"knowledge_base_ids", "knowledge_base_id", "knowledge_base_names", "kb_names", "kb_name", "knowledge_bases"}

// policy reads an imported governance policy. Its knowledge base links are
// kept when the knowledge base exists here; each other link is dropped and
// reported through skipLink.
func (s *Service) policy(ctx context.Context, accountID string, m map[string]any, skipLink func(details map[string]any, msg string)) (Policy, string, error) {
	p := Policy{KnowledgeBaseIDs: []string{}}
	name, _ := m["name"].(string)
	if strings.TrimSpace(name) == "" {
		return p, "it has no name", nil
	}
	p.Name = name
	var ok bool
	if p.Description, ok = optNullString(m, "description"); !ok {
		return p, "description must be a string or null", nil
	}
	if p.PolicyType, ok = optNullString(m, "policy_type"); !ok {
		return p, "policy_type must be a string or null", nil
	}
	if p.Enabled, ok = optBool(m, "enabled", true); !ok {
		return p, "enabled must be true or false", nil
	}
	if p.Config, ok = optObject(m, "config"); !ok {
		return p, "config must be an object or null", nil
	}
	resolve := s.resolver(accountID)
	for _, key := range kbLinkKeys {
		for _, link := range kbLinks(m[key]) {
			if link.id != "" {
				found, err := resolve.Exists(ctx, def.RefKnowledgeBase, link.id)
				if err != nil {
					return p, "", err
				}
				if found {
					if !slices.Contains(p.KnowledgeBaseIDs, link.id) {
						p.KnowledgeBaseIDs = append(p.KnowledgeBaseIDs, link.id)
					}
					continue
				}
			}
			details := map[string]any{"policy": name}
			if link.id != "" {
				details["knowledge_base_id"] = link.id
			}
			if link.name != "" {
				details["kb_name"] = link.name
			}
			skipLink(details, fmt.Sprintf("knowledge base %s of policy %q does not exist in this account; the link was left out", link, name))
		}
	}
	p.Extra = rest(m, append([]string{"name", "description", "policy_type", "enabled", "config"}, kbLinkKeys...)...)
	return p, "", nil
}

type kbLink struct{ id, name string }

func (l kbLink) String() string {
	switch {
	case l.name != "" && l.id != "":
		return fmt.Sprintf("%q (%s)", l.name, l.id)
	case l.name != "":
		return fmt.Sprintf("%q", l.name)
	}
	return l.id
}

// kbLinks reads knowledge base references in any of the forms exports
// use: an id, a list of ids or names, or {id, name} objects.
func kbLinks(v any) []kbLink {
	switch t := v.(type) {
	case string:
		if t == "" {
			return nil
		}
		if looksLikeID(t) {
			return []kbLink{{id: t}}
		}
		return []kbLink{{name: t}}
	case map[string]any:
		id, _ := t["id"].(string)
		name, _ := t["name"].(string)
		if id == "" && name == "" {
			return nil
		}
		return []kbLink{{id: id, name: name}}
	case []any:
		var out []kbLink
		for _, e := range t {
			out = append(out, kbLinks(e)...)
		}
		return out
	}
	return nil
}

func looksLikeID(s string) bool {
	return len(s) == 36 && strings.Count(s, "-") == 4
}

// rest returns the members of m that are neither known nor assigned by the
// exporting server, as JSON (nil when none).
func rest(m map[string]any, known ...string) json.RawMessage {
	out := map[string]any{}
	for k, v := range m {
		if !slices.Contains(known, k) && !slices.Contains(serverKeys, k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return b
}

// The opt* readers return a member of an imported object, the default
// when it is absent or null, and false when it has the wrong type.

func optString(m map[string]any, key, dflt string) (string, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return dflt, true
	}
	s, ok := v.(string)
	return s, ok
}

func optNullString(m map[string]any, key string) (*string, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, true
	}
	s, ok := v.(string)
	if !ok {
		return nil, false
	}
	return &s, true
}

func optBool(m map[string]any, key string, dflt bool) (bool, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return dflt, true
	}
	b, ok := v.(bool)
	return b, ok
}

func optNumber(m map[string]any, key string, dflt float64) (float64, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return dflt, true
	}
	switch t := v.(type) {
	case json.Number:
		f, err := t.Float64()
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case float64:
		return t, true
	}
	return 0, false
}

func optInt(m map[string]any, key string, dflt, lo, hi int) (int, bool) {
	f, ok := optNumber(m, key, float64(dflt))
	if !ok || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, false
	}
	return int(f), true
}

func optObject(m map[string]any, key string) (json.RawMessage, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, true
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(obj)
	return b, err == nil
}

func optStrings(m map[string]any, key string) ([]string, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, true
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}
