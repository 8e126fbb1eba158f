package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/store"
	"github.com/google/uuid"
)

// MaxNameLength bounds agent names.
const MaxNameLength = 255

// CreateInput is POST /agents.
type CreateInput struct {
	AccountID, UserID string
	Name              string
	Description       *string
	// TriggerType is nil when the client did not set it: an import then
	// keeps the payload's trigger, a template its default one.
	TriggerType *string
	Template    *string
	// Definition is the raw agent_definition (an export or a bare
	// definition); nil or "null" when absent. It replaces any template.
	Definition  json.RawMessage
	EntityRemap map[string]string
	// KnowledgeBaseID is the knowledge base a template searches
	// (retrieval_example, scheduled_report); when nil, the account's most
	// recently created one.
	KnowledgeBaseID *string
}

// Result is a created or updated agent. ImportWarnings is nil unless the
// request imported an agent_definition, and then never nil.
type Result struct {
	Agent          Agent
	ImportWarnings []def.ImportSkip
}

// Create creates an agent: from an imported payload, from a template, or
// with an empty workflow. A payload that fails validation is a
// *def.ImportError; a refused field an *InvalidError.
func (s *Service) Create(ctx context.Context, in CreateInput) (Result, error) {
	name, err := checkName(in.Name)
	if err != nil {
		return Result{}, err
	}
	var trigger def.TriggerType
	if in.TriggerType != nil {
		trigger = def.TriggerType(*in.TriggerType)
		if !trigger.Known() {
			return Result{}, invalid(fmt.Sprintf("trigger_type must be one of %v", def.TriggerTypes()), "enum", "body", "trigger_type")
		}
	}
	if present(in.Definition) {
		return s.importNew(ctx, in, name, trigger)
	}
	d, trigger, err := s.startingDefinition(ctx, in, name, trigger)
	if err != nil {
		return Result{}, err
	}
	body, err := json.Marshal(d)
	if err != nil {
		return Result{}, err
	}
	a, err := s.rows().CreateAgent(ctx, NewAgent{
		Agent: Agent{AccountID: in.AccountID, Name: name, Description: in.Description, SchemaVersion: def.CurrentSchemaVersion,
			Definition: body, Settings: defaultSettings(), CreatedBy: in.UserID, CallTargets: d.CallTargets()},
		Trigger: Trigger{Type: string(trigger)},
	})
	s.saved(ctx, a, err)
	return Result{Agent: a}, err
}

// startingDefinition is the workflow of an agent created without a
// payload: a template's, or an empty one.
func (s *Service) startingDefinition(ctx context.Context, in CreateInput, name string, trigger def.TriggerType) (*def.Definition, def.TriggerType, error) {
	if in.Template == nil {
		if trigger == "" {
			trigger = def.DefaultTrigger
		}
		d := &def.Definition{Name: name, Tags: []string{}}
		if in.Description != nil {
			d.Description = *in.Description
		}
		return d, trigger, nil
	}
	tmpl := def.TemplateName(*in.Template)
	params := def.TemplateParams{Trigger: trigger}
	if in.KnowledgeBaseID != nil && *in.KnowledgeBaseID != "" {
		// Checked here, so that a foreign, missing or malformed id is the
		// caller's 422 and not the template's failed validation.
		id := *in.KnowledgeBaseID
		if _, err := uuid.Parse(id); err != nil {
			return nil, "", invalid("knowledge_base_id must be a UUID", "uuid_parsing", "body", "knowledge_base_id")
		}
		ok, err := s.cfg.Knowledge.KnowledgeBaseExists(ctx, in.AccountID, id)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "", invalid("no knowledge base "+id+" in this account", "value_error", "body", "knowledge_base_id")
		}
		params.KnowledgeBaseID = id
	} else if id, err := s.cfg.Knowledge.LatestKnowledgeBase(ctx, in.AccountID); err == nil {
		params.KnowledgeBaseID = id
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, "", err
	}
	d, trig, err := def.NewFromTemplate(tmpl, name, params)
	switch {
	case errors.Is(err, def.ErrUnknownTemplate):
		names := make([]string, 0, 8)
		for _, t := range def.TemplateInfos() {
			names = append(names, string(t.Name))
		}
		return nil, "", invalid(fmt.Sprintf("agent_template must be one of %v", names), "enum", "body", "agent_template")
	case errors.Is(err, def.ErrTemplateTrigger):
		return nil, "", invalid(err.Error(), "value_error", "body", "trigger_type")
	case errors.Is(err, def.ErrTemplateKnowledgeBase):
		// Without a knowledge base there is nothing this template could search.
		return nil, "", invalid("the "+string(tmpl)+" template searches a knowledge base, and this account has none to search yet: "+
			"create a knowledge base first, or start from another template (such as simple_qa) and add a retrieval step later",
			"value_error", "body", "agent_template")
	case err != nil:
		return nil, "", err
	}
	if in.Description != nil {
		d.Description = *in.Description
	}
	rep, err := def.Validate(ctx, d, def.ValidateOptions{Trigger: trig, Resolver: s.resolver(in.AccountID), ServerRules: s.serverRules()})
	if err != nil {
		return nil, "", err
	}
	if errs := rep.Problems.Errors(); len(errs) > 0 {
		// A template that does not validate for its own trigger is a bug
		// of the template table, not of the request.
		return nil, "", fmt.Errorf("template %s for %s: %v", tmpl, trig, errs[0])
	}
	return d, trig, nil
}

// importNew creates an agent from an agent_definition payload, with every
// extra the payload carries that this account can take.
func (s *Service) importNew(ctx context.Context, in CreateInput, name string, trigger def.TriggerType) (Result, error) {
	im, err := def.Import(ctx, in.Definition, def.ImportOptions{Mode: def.ModeCreate, EntityRemap: in.EntityRemap,
		Trigger: trigger, Resolver: s.resolver(in.AccountID), ServerRules: s.serverRules()})
	if err != nil {
		return Result{}, err
	}
	settings := defaultSettings()
	applySnapshot(&settings, im.Export.Agent)
	desc := in.Description
	if desc == nil {
		desc = im.Export.Agent.Description
	}
	x, err := s.applyExtras(ctx, in.AccountID, im.Trigger, im.Extras, settings)
	if err != nil {
		return Result{}, err
	}
	trig, err := triggerConfig(im)
	if err != nil {
		return Result{}, err
	}
	trig.Schedules = x.Schedules
	body, err := json.Marshal(im.Definition)
	if err != nil {
		return Result{}, err
	}
	schema := im.Export.Agent.SchemaVersion
	if schema == "" || !slices.Contains(def.SupportedSchemaVersions, schema) {
		schema = def.CurrentSchemaVersion
	}
	a, err := s.rows().CreateAgent(ctx, NewAgent{
		Agent: Agent{AccountID: in.AccountID, Name: name, Description: desc, SchemaVersion: schema, Definition: body,
			Settings: settings, CreatedBy: in.UserID, CallTargets: im.Definition.CallTargets()},
		Trigger: trig, EvaluationCriteria: x.Criteria, SolutionIDs: x.SolutionIDs,
		Also: append(s.withAlerts(in.AccountID, x.Alerts), s.withPolicies(in.AccountID, x.Policies)...),
	})
	s.saved(ctx, a, err)
	if err != nil {
		return Result{}, err
	}
	return Result{Agent: a, ImportWarnings: append(append([]def.ImportSkip{}, im.Skips...), x.Skips...)}, nil
}

// triggerConfig is the trigger an import creates: the effective type, and
// the payload trigger's settings when the payload's trigger is of that
// type (settings of another type would not apply).
func triggerConfig(im *def.Imported) (Trigger, error) {
	t := Trigger{Type: string(im.Trigger)}
	p := im.Export.Trigger
	if p == nil || (p.TriggerType != "" && p.TriggerType != im.Trigger) {
		return t, nil
	}
	cfg := map[string]any{}
	for k, v := range p.Extra {
		if !slices.Contains(serverKeys, k) {
			cfg[k] = v
		}
	}
	set := func(key string, v any, present bool) {
		if present {
			cfg[key] = v
		}
	}
	set("name", deref(p.Name), p.Name != nil)
	set("input", deref(p.Input), p.Input != nil)
	set("input_content_type", deref(p.InputContentType), p.InputContentType != nil)
	set("allow_empty_input", p.AllowEmptyInput != nil && *p.AllowEmptyInput, p.AllowEmptyInput != nil)
	set("default_input", deref(p.DefaultInput), p.DefaultInput != nil)
	set("metadata_", p.Metadata, p.Metadata != nil)
	set("knowledge_base_id", deref(p.KnowledgeBaseID), p.KnowledgeBaseID != nil)
	b, err := json.Marshal(cfg)
	if err != nil {
		return t, err
	}
	t.Config = b
	return t, nil
}

func checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", invalid("name must not be empty", "string_too_short", "body", "name")
	case utf8.RuneCountInString(name) > MaxNameLength:
		return "", invalid(fmt.Sprintf("name must be at most %d characters", MaxNameLength), "string_too_long", "body", "name")
	}
	return name, nil
}

// present reports whether a raw JSON member was given and is not null.
func present(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	return t != "" && t != "null"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
