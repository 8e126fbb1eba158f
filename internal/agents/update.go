package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	def "github.com/agentry/agentry/internal/agents/definition"
)

// UpdateInput is PUT /agents/{agent_id}. A nil field is not being set;
// the Set* flags clear their field to null when it is nil.
type UpdateInput struct {
	AccountID, AgentID, UserID string

	Name                     *string
	Description              *string
	EvaluationMode           *string
	DefaultEvaluationTier    *string
	SetDefaultEvaluationTier bool
	MaxRetries               *int
	RetryOnFailure           *bool
	SamplingConfig           json.RawMessage // a JSON object; nil or null: not set
	SetSamplingConfig        bool
	UpgradeStrategy          *string
	RollbackEnabled          *bool
	RollbackTriggers         []string // nil: not set
	SetRollbackTriggers      bool

	// Definition is an agent_definition payload replacing the workflow;
	// settings the request leaves out are taken from it.
	Definition  json.RawMessage
	EntityRemap map[string]string
}

func (in UpdateInput) empty() bool {
	return in.Name == nil && in.Description == nil && in.EvaluationMode == nil && in.DefaultEvaluationTier == nil &&
		!in.SetDefaultEvaluationTier && in.MaxRetries == nil && in.RetryOnFailure == nil && !present(in.SamplingConfig) &&
		!in.SetSamplingConfig && in.UpgradeStrategy == nil && in.RollbackEnabled == nil && in.RollbackTriggers == nil &&
		!in.SetRollbackTriggers && !present(in.Definition)
}

// check refuses values outside the API's sets, naming each field.
func (in UpdateInput) check() error {
	var items []FieldProblem
	bad := func(field, msg, typ string, more ...any) {
		items = append(items, FieldProblem{Loc: append([]any{"body", field}, more...), Msg: msg, Type: typ})
	}
	if in.Name != nil {
		if _, err := checkName(*in.Name); err != nil {
			items = append(items, err.(*InvalidError).Items...)
		}
	}
	if in.EvaluationMode != nil && !slices.Contains(def.EvaluationModes, *in.EvaluationMode) {
		bad("evaluation_mode", fmt.Sprintf("evaluation_mode must be one of %v", def.EvaluationModes), "enum")
	}
	if in.DefaultEvaluationTier != nil && !slices.Contains(def.EvaluationTiers, *in.DefaultEvaluationTier) {
		bad("default_evaluation_tier", fmt.Sprintf("default_evaluation_tier must be one of %v", def.EvaluationTiers), "enum")
	}
	if in.MaxRetries != nil && (*in.MaxRetries < 1 || *in.MaxRetries > 10) {
		bad("max_retries", "max_retries must be between 1 and 10", "less_than_equal")
	}
	if in.UpgradeStrategy != nil && !slices.Contains(def.ModelUpgradeStrategies, *in.UpgradeStrategy) {
		bad("prompt_model_auto_upgrade_strategy", fmt.Sprintf("prompt_model_auto_upgrade_strategy must be one of %v", def.ModelUpgradeStrategies), "enum")
	}
	for i, t := range in.RollbackTriggers {
		if !slices.Contains(def.ModelRollbackTriggers, t) {
			bad("prompt_model_auto_rollback_triggers", fmt.Sprintf("rollback triggers are %v, not %q", def.ModelRollbackTriggers, t), "enum", i)
		}
	}
	if present(in.SamplingConfig) {
		var m map[string]any
		if json.Unmarshal(in.SamplingConfig, &m) != nil || m == nil {
			bad("sampling_config", "sampling_config must be an object or null", "dict_type")
		}
	}
	if len(items) > 0 {
		return &InvalidError{Items: items}
	}
	return nil
}

// Update changes an agent's settings and, with an agent_definition, its
// workflow. Only the workflow and settings of a payload are applied: its
// extras are reported in ImportWarnings as not applied.
func (s *Service) Update(ctx context.Context, in UpdateInput) (Result, error) {
	if in.empty() {
		return Result{}, invalid("At least one field must be provided", "value_error", "body")
	}
	if err := in.check(); err != nil {
		return Result{}, err
	}
	var im *def.Imported
	if present(in.Definition) {
		cur, err := s.rows().Agent(ctx, in.AccountID, in.AgentID)
		if err != nil {
			return Result{}, err
		}
		im, err = def.Import(ctx, in.Definition, def.ImportOptions{Mode: def.ModeUpdate, EntityRemap: in.EntityRemap,
			Trigger: def.TriggerType(cur.TriggerType), AgentID: in.AgentID, Resolver: s.resolver(in.AccountID),
			ServerRules: s.serverRules()})
		if err != nil {
			return Result{}, err
		}
	}
	a, err := s.rows().UpdateAgent(ctx, in.AccountID, in.AgentID, in.UserID, func(a *Agent) error {
		if im != nil {
			// The payload first, so that what the request sets wins.
			if name, err := checkName(im.Export.Agent.Name); err == nil {
				a.Name = name // a payload without a usable name keeps the agent's
			}
			if im.Export.Agent.Description != nil {
				a.Description = im.Export.Agent.Description
			}
			applySnapshot(&a.Settings, im.Export.Agent)
			body, err := json.Marshal(im.Definition)
			if err != nil {
				return err
			}
			a.Definition, a.CallTargets = body, im.Definition.CallTargets()
			if v := im.Export.Agent.SchemaVersion; slices.Contains(def.SupportedSchemaVersions, v) {
				a.SchemaVersion = v
			}
		}
		in.apply(a)
		return nil
	})
	s.saved(ctx, a, err)
	if err != nil {
		return Result{}, err
	}
	res := Result{Agent: a}
	if im != nil {
		res.ImportWarnings = append([]def.ImportSkip{}, im.Skips...)
	}
	return res, nil
}

// apply writes the request's fields over the agent.
func (in UpdateInput) apply(a *Agent) {
	st := &a.Settings
	if in.Name != nil {
		a.Name, _ = checkName(*in.Name)
	}
	if in.Description != nil {
		a.Description = in.Description
	}
	if in.EvaluationMode != nil {
		st.EvaluationMode = *in.EvaluationMode
	}
	switch {
	case in.DefaultEvaluationTier != nil:
		st.DefaultEvaluationTier = in.DefaultEvaluationTier
	case in.SetDefaultEvaluationTier:
		st.DefaultEvaluationTier = nil
	}
	if in.MaxRetries != nil {
		st.MaxRetries = *in.MaxRetries
	}
	if in.RetryOnFailure != nil {
		st.RetryOnFailure = *in.RetryOnFailure
	}
	switch {
	case present(in.SamplingConfig):
		st.SamplingConfig = in.SamplingConfig
	case in.SetSamplingConfig:
		st.SamplingConfig = nil
	}
	if in.UpgradeStrategy != nil {
		st.ModelUpgradeStrategy = *in.UpgradeStrategy
	}
	if in.RollbackEnabled != nil {
		st.ModelRollbackEnabled = *in.RollbackEnabled
	}
	switch {
	case in.RollbackTriggers != nil:
		st.ModelRollbackTriggers = in.RollbackTriggers
	case in.SetRollbackTriggers:
		st.ModelRollbackTriggers = nil
	}
}
