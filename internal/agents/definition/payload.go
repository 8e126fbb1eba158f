package definition

import (
	"math"
	"strconv"
)

// PayloadShape says what kind of payload Import was given.
type PayloadShape string

// Payload shapes: an export envelope ({export_version, agent: {definition}})
// or a bare definition ({child_steps}), which the reference accepts as a
// legacy payload.
const (
	ShapeExport     PayloadShape = "export"
	ShapeDefinition PayloadShape = "definition"
)

// Agent settings accepted in exports (and by PUT /agents/{id}).
var (
	EvaluationModes         = []string{"output_expectation", "eval_and_retry", "sample_and_flag"}
	EvaluationTiers         = []string{"fast", "balanced", "thorough"}
	ModelUpgradeStrategies  = []string{"none", "early_adopter", "middle_of_road", "cautious_adopter"}
	ModelRollbackTriggers   = []string{"agent_eval_fail", "governance_flag", "governance_block", "agent_run_failed"}
	SupportedSchemaVersions = []string{CurrentSchemaVersion}
)

// decodePayload reads either payload shape into an Export. version is the
// claimed export_version (nil for legacy payloads); defPath is where the
// definition sits.
func decodePayload(v any, probs *Problems) (e *Export, shape PayloadShape, version *string, defPath string) {
	e = &Export{}
	root, ok := v.(map[string]any)
	if !ok {
		probs.errorf(CodeInvalidPayload, "", "agent_definition must be a JSON object: an export (with agent.definition) or a definition (with child_steps)")
		e.Agent.Definition = &Definition{}
		return e, ShapeExport, nil, defPathInExport
	}
	_, hasAgent := root["agent"]
	_, hasSteps := root[keyChildSteps]
	_, hasLegacySteps := root["steps"]
	if !hasAgent && (hasSteps || hasLegacySteps) {
		def := decodeDefinition(root, "", probs)
		e.Agent = AgentSnapshot{Name: def.Name, SchemaVersion: CurrentSchemaVersion, Definition: def}
		if def.Description != "" {
			d := def.Description
			e.Agent.Description = &d
		}
		return e, ShapeDefinition, nil, ""
	}
	r := reader{m: root, probs: probs}
	version = r.str("export_version")
	if version != nil {
		if !contains(SupportedExportVersions, *version) {
			probs.warnf(CodeUnsupportedVersion, "export_version", "export_version %q is not one this server reads natively (supported: %v); fields it does not know may be ignored", *version, SupportedExportVersions)
		}
		e.ExportVersion = *version
	}
	e.ExportedAt = deref(r.str("exported_at"))
	e.SoftwareVersion = deref(r.str("software_version"))
	if agent := r.object("agent"); agent != nil {
		e.Agent = decodeAgent(reader{m: agent, path: "agent", probs: probs})
	} else {
		probs.errorf(CodeMissingField, "agent", "an export needs an agent object with the definition")
		e.Agent.Definition = &Definition{}
	}
	if trig := r.object("trigger"); trig != nil {
		e.Trigger = decodeTrigger(reader{m: trig, path: "trigger", probs: probs})
	}
	e.AlertConfigs = r.array("alert_configs")
	e.EvaluationCriteria = r.array("evaluation_criteria")
	e.GovernancePolicies = r.array("governance_policies")
	e.Solutions = r.array("solutions")
	if deps := r.object("dependencies"); deps != nil {
		e.Dependencies = decodeDependencies(reader{m: deps, path: "dependencies", probs: probs})
	}
	e.Extra = r.rest(true, "export_version", "exported_at", "software_version", "agent", "trigger",
		"alert_configs", "evaluation_criteria", "governance_policies", "solutions", "dependencies")
	return e, ShapeExport, version, defPathInExport
}

func decodeAgent(r reader) AgentSnapshot {
	a := AgentSnapshot{}
	a.Name = deref(r.str("name"))
	a.Description = r.str("description")
	a.SchemaVersion = deref(r.str("schema_version"))
	if a.SchemaVersion != "" && !contains(SupportedSchemaVersions, a.SchemaVersion) {
		r.probs.warnf(CodeUnsupportedVersion, fieldPath(r.path, "schema_version"), "schema_version %q is not one this server knows (supported: %v)", a.SchemaVersion, SupportedSchemaVersions)
	}
	if dv, ok := r.m["definition"]; !ok || dv == nil {
		r.probs.errorf(CodeMissingField, fieldPath(r.path, "definition"), "the agent needs a definition")
		a.Definition = &Definition{}
	} else {
		a.Definition = decodeDefinition(dv, fieldPath(r.path, "definition"), r.probs)
	}
	a.DefaultEvaluationTier = r.enum("default_evaluation_tier", EvaluationTiers)
	a.EvaluationMode = r.enum("evaluation_mode", EvaluationModes)
	a.SamplingConfig = r.object("sampling_config")
	a.MaxRetries = r.integer("max_retries", 1, 10)
	a.RetryOnFailure = r.boolean("retry_on_failure")
	a.PromptModelAutoUpgradeStrategy = r.enum("prompt_model_auto_upgrade_strategy", ModelUpgradeStrategies)
	a.PromptModelAutoRollbackEnabled = r.boolean("prompt_model_auto_rollback_enabled")
	if list := r.array("prompt_model_auto_rollback_triggers"); list != nil {
		a.PromptModelAutoRollbackTriggers = make([]string, 0, len(list))
		for i, x := range list {
			s, ok := x.(string)
			p := indexPath(fieldPath(r.path, "prompt_model_auto_rollback_triggers"), i)
			if !ok || !contains(ModelRollbackTriggers, s) {
				r.probs.errorf(CodeInvalidValue, p, "rollback triggers are %v", ModelRollbackTriggers)
				continue
			}
			a.PromptModelAutoRollbackTriggers = append(a.PromptModelAutoRollbackTriggers, s)
		}
	}
	a.CreatedAt = r.str("created_at")
	a.UpdatedAt = r.str("updated_at")
	a.Extra = r.rest(true, "name", "description", "schema_version", "definition", "default_evaluation_tier",
		"evaluation_mode", "sampling_config", "max_retries", "retry_on_failure", "prompt_model_auto_upgrade_strategy",
		"prompt_model_auto_rollback_enabled", "prompt_model_auto_rollback_triggers", "created_at", "updated_at")
	return a
}

func decodeTrigger(r reader) *TriggerSnapshot {
	t := &TriggerSnapshot{}
	switch tt := r.str("trigger_type"); {
	case tt == nil || *tt == "":
		// Read as absent: the request's trigger type or the default applies.
		r.probs.warnf(CodeTriggerIncomplete, fieldPath(r.path, "trigger_type"), "the trigger has no trigger_type; the request's or the default (%s) is used", DefaultTrigger)
	default:
		t.TriggerType = TriggerType(*tt)
		if !t.TriggerType.Known() {
			r.probs.errorf(CodeInvalidValue, fieldPath(r.path, "trigger_type"), "trigger_type must be one of %v, not %q", TriggerTypes(), *tt)
		}
	}
	t.Name = r.str("name")
	t.Input = r.str("input")
	t.InputContentType = r.str("input_content_type")
	t.AllowEmptyInput = r.boolean("allow_empty_input")
	t.DefaultInput = r.str("default_input")
	t.Metadata = r.object("metadata_")
	t.KnowledgeBaseID = r.str("knowledge_base_id")
	t.Schedules = r.array("schedules")
	// The exporting account's trigger id is read but never applied: the
	// imported agent's trigger is a new one.
	t.ID = deref(r.str("id"))
	t.Extra = r.rest(true, "id", "trigger_type", "name", "input", "input_content_type", "allow_empty_input",
		"default_input", "metadata_", "knowledge_base_id", "schedules")
	return t
}

func decodeDependencies(r reader) *Dependencies {
	d := &Dependencies{}
	for _, kind := range RefKinds() {
		key := manifestKey[kind]
		list := r.array(key)
		for i, x := range list {
			p := indexPath(fieldPath(r.path, key), i)
			m, ok := x.(map[string]any)
			if !ok {
				r.probs.warnf(CodeInvalidType, p, "manifest entries are {id, name, description} objects; entry ignored")
				continue
			}
			er := reader{m: m, path: p, probs: r.probs, lenient: true}
			ent := Entity{ID: deref(er.str("id")), Name: deref(er.str("name")), Description: er.str("description")}
			ent.Extra = er.rest(false, "id", "name", "description")
			*d.slot(kind) = append(*d.slot(kind), ent)
		}
	}
	d.Extra = r.rest(false, "knowledge_bases", "memory_banks", "source_connections", "agents", "users")
	return d
}

// reader reads typed members of one JSON object, recording type problems
// with their paths. lenient readers (the manifest, which is informative
// only) warn instead of failing.
type reader struct {
	m       map[string]any
	path    string
	probs   *Problems
	lenient bool
}

func (r reader) bad(key, what string) {
	p := fieldPath(r.path, key)
	if r.lenient {
		r.probs.warnf(CodeInvalidType, p, "%s should be %s; ignored", key, what)
		return
	}
	r.probs.errorf(CodeInvalidType, p, "%s must be %s", key, what)
}

func (r reader) str(key string) *string {
	v, ok := r.m[key]
	if !ok || v == nil {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		r.bad(key, "a string or null")
		return nil
	}
	return &s
}

func (r reader) enum(key string, allowed []string) *string {
	s := r.str(key)
	if s != nil && !contains(allowed, *s) {
		r.probs.errorf(CodeInvalidValue, fieldPath(r.path, key), "%s must be one of %v, not %q", key, allowed, *s)
		return nil
	}
	return s
}

func (r reader) boolean(key string) *bool {
	v, ok := r.m[key]
	if !ok || v == nil {
		return nil
	}
	b, ok := v.(bool)
	if !ok {
		r.bad(key, "true, false or null")
		return nil
	}
	return &b
}

func (r reader) integer(key string, lo, hi int) *int {
	v, ok := r.m[key]
	if !ok || v == nil {
		return nil
	}
	f, ok := toFloat(v)
	if !ok || f != math.Trunc(f) {
		r.bad(key, "a whole number or null")
		return nil
	}
	if f < float64(lo) || f > float64(hi) {
		r.probs.errorf(CodeOutOfRange, fieldPath(r.path, key), "%s must be between %d and %d, not %s", key, lo, hi, strconv.FormatFloat(f, 'g', -1, 64))
		return nil
	}
	n := int(f)
	return &n
}

func (r reader) object(key string) map[string]any {
	v, ok := r.m[key]
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		r.bad(key, "an object or null")
		return nil
	}
	return m
}

func (r reader) array(key string) []any {
	v, ok := r.m[key]
	if !ok || v == nil {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		r.bad(key, "a list or null")
		return nil
	}
	return a
}

// rest returns the members not in known, warning about them when warn is
// set: they are kept for the round trip but this server does not use them.
func (r reader) rest(warn bool, known ...string) map[string]any {
	var out map[string]any
	for k, v := range r.m {
		if contains(known, k) {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = v
		if warn {
			r.probs.warnf(CodeUnknownField, fieldPath(r.path, k), "unknown field %q is kept but not used", k)
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
