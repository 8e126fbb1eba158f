package definition

import "fmt"

// SkipCategory is the `category` of an ImportSkipResponse.
type SkipCategory string

// Skip categories. This package decides the ones that need no database
// (malformed items, criteria for steps that do not exist, everything on an
// update); the handler adds alert_recipient, governance_kb_link and
// solution_link when the account has no match.
const (
	SkipSchedule           SkipCategory = "schedule"
	SkipEvaluationCriteria SkipCategory = "evaluation_criteria"
	SkipAlertConfig        SkipCategory = "alert_config"
	SkipAlertRecipient     SkipCategory = "alert_recipient"
	SkipGovernancePolicy   SkipCategory = "governance_policy"
	SkipGovernanceKBLink   SkipCategory = "governance_kb_link"
	SkipSolutionLink       SkipCategory = "solution_link"
)

// ImportSkip is one element of `import_warnings`: an item of the payload
// that was not applied, and why.
type ImportSkip struct {
	Category SkipCategory   `json:"category"`
	Message  string         `json:"message"`
	Details  map[string]any `json:"details"`
}

// NewSkip builds an ImportSkip; details may be nil.
func NewSkip(cat SkipCategory, details map[string]any, format string, args ...any) ImportSkip {
	if details == nil {
		details = map[string]any{}
	}
	return ImportSkip{Category: cat, Message: fmt.Sprintf(format, args...), Details: details}
}

// Extras are the payload items besides the workflow that an import applies.
type Extras struct {
	Schedules          []map[string]any
	AlertConfigs       []map[string]any
	EvaluationCriteria []map[string]any
	GovernancePolicies []map[string]any
	Solutions          []string // solution names, matched by name on commit
}

// sortExtras splits the payload's extras into what can be applied and what
// is skipped. On an update nothing is applied: PUT /agents/{id} only
// replaces the workflow and metadata.
func sortExtras(e *Export, def *Definition, mode ImportMode) (Extras, []ImportSkip) {
	var x Extras
	var skips []ImportSkip
	var schedules []any
	if e.Trigger != nil {
		schedules = e.Trigger.Schedules
	}
	if mode == ModeUpdate {
		const why = "not applied by an update, which only replaces the workflow and agent settings; use the dedicated endpoint, or import as a new agent"
		for i := range schedules {
			skips = append(skips, NewSkip(SkipSchedule, map[string]any{"index": i}, "schedule %d %s", i, why))
		}
		for i, a := range e.AlertConfigs {
			skips = append(skips, NewSkip(SkipAlertConfig, detailsOf(a, i, "alert_type"), "alert config %d %s", i, why))
		}
		for i, c := range e.EvaluationCriteria {
			skips = append(skips, NewSkip(SkipEvaluationCriteria, detailsOf(c, i, "step_id"), "evaluation criteria %d %s", i, why))
		}
		for i, g := range e.GovernancePolicies {
			skips = append(skips, NewSkip(SkipGovernancePolicy, detailsOf(g, i, "name"), "governance policy %d %s", i, why))
		}
		for i, s := range e.Solutions {
			skips = append(skips, NewSkip(SkipSolutionLink, detailsOf(s, i, "name"), "solution link %d %s", i, why))
		}
		return x, skips
	}
	for i, s := range schedules {
		if m, ok := s.(map[string]any); ok {
			x.Schedules = append(x.Schedules, m)
			continue
		}
		skips = append(skips, NewSkip(SkipSchedule, map[string]any{"index": i}, "schedule %d is not an object", i))
	}
	for i, a := range e.AlertConfigs {
		m, ok := a.(map[string]any)
		if t, isStr := m["alert_type"].(string); !ok || !isStr || t == "" {
			skips = append(skips, NewSkip(SkipAlertConfig, map[string]any{"index": i}, "alert config %d has no alert_type", i))
			continue
		}
		x.AlertConfigs = append(x.AlertConfigs, m)
	}
	for i, c := range e.EvaluationCriteria {
		m, ok := c.(map[string]any)
		id, isStr := m["step_id"].(string)
		switch {
		case !ok || !isStr || id == "":
			skips = append(skips, NewSkip(SkipEvaluationCriteria, map[string]any{"index": i}, "evaluation criteria %d has no step_id", i))
		case def == nil || def.Find(id) == nil:
			skips = append(skips, NewSkip(SkipEvaluationCriteria, map[string]any{"index": i, "step_id": id}, "evaluation criteria %d targets step %q, which is not in the imported workflow", i, id))
		default:
			x.EvaluationCriteria = append(x.EvaluationCriteria, m)
		}
	}
	for i, g := range e.GovernancePolicies {
		if m, ok := g.(map[string]any); ok {
			x.GovernancePolicies = append(x.GovernancePolicies, m)
			continue
		}
		skips = append(skips, NewSkip(SkipGovernancePolicy, map[string]any{"index": i}, "governance policy %d is not an object", i))
	}
	for i, s := range e.Solutions {
		if name := solutionName(s); name != "" {
			x.Solutions = append(x.Solutions, name)
			continue
		}
		skips = append(skips, NewSkip(SkipSolutionLink, map[string]any{"index": i}, "solution %d has no name", i))
	}
	return x, skips
}

// solutionName accepts a solution as its name or as {name, …}.
func solutionName(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case map[string]any:
		s, _ := t["name"].(string)
		return s
	}
	return ""
}

func detailsOf(v any, i int, key string) map[string]any {
	d := map[string]any{"index": i}
	if m, ok := v.(map[string]any); ok {
		if s, ok := m[key].(string); ok {
			d[key] = s
		}
	}
	if s, ok := v.(string); ok {
		d[key] = s
	}
	return d
}
