package agents

import (
	"encoding/json"
	"slices"
	"time"

	def "github.com/agentry/agentry/internal/agents/definition"
)

// Agent setting values (AgentSummaryResponse documents the defaults).
const (
	DefaultEvaluationMode  = "eval_and_retry"
	DefaultMaxRetries      = 3
	DefaultUpgradeStrategy = "none"
	// ReasonManual is disabled_reason for a pause through the API.
	ReasonManual = "manual"
)

// defaultSettings are a new agent's settings.
func defaultSettings() AgentSettings {
	return AgentSettings{EvaluationMode: DefaultEvaluationMode, MaxRetries: DefaultMaxRetries,
		RetryOnFailure: true, ModelUpgradeStrategy: DefaultUpgradeStrategy}
}

// applySnapshot overlays the settings an export carries (the import
// decoder has already checked their values) on st.
func applySnapshot(st *AgentSettings, a def.AgentSnapshot) {
	if a.EvaluationMode != nil {
		st.EvaluationMode = *a.EvaluationMode
	}
	if a.DefaultEvaluationTier != nil {
		t := *a.DefaultEvaluationTier
		st.DefaultEvaluationTier = &t
	}
	if a.MaxRetries != nil {
		st.MaxRetries = *a.MaxRetries
	}
	if a.RetryOnFailure != nil {
		st.RetryOnFailure = *a.RetryOnFailure
	}
	if a.SamplingConfig != nil {
		if b, err := json.Marshal(a.SamplingConfig); err == nil {
			st.SamplingConfig = b
		}
	}
	if a.PromptModelAutoUpgradeStrategy != nil {
		st.ModelUpgradeStrategy = *a.PromptModelAutoUpgradeStrategy
	}
	if a.PromptModelAutoRollbackEnabled != nil {
		st.ModelRollbackEnabled = *a.PromptModelAutoRollbackEnabled
	}
	if a.PromptModelAutoRollbackTriggers != nil {
		st.ModelRollbackTriggers = slices.Clone(a.PromptModelAutoRollbackTriggers)
	}
}

// snapshot is the `agent` object of an export.
func snapshot(a Agent, d *def.Definition) def.AgentSnapshot {
	st := a.Settings
	s := def.AgentSnapshot{
		Name: a.Name, Description: a.Description, SchemaVersion: a.SchemaVersion, Definition: d,
		DefaultEvaluationTier: st.DefaultEvaluationTier, EvaluationMode: ptr(st.EvaluationMode),
		MaxRetries: ptr(st.MaxRetries), RetryOnFailure: ptr(st.RetryOnFailure),
		PromptModelAutoUpgradeStrategy:  ptr(st.ModelUpgradeStrategy),
		PromptModelAutoRollbackEnabled:  ptr(st.ModelRollbackEnabled),
		PromptModelAutoRollbackTriggers: st.ModelRollbackTriggers,
		CreatedAt:                       ptr(a.CreatedAt.Format(time.RFC3339Nano)), UpdatedAt: ptr(a.UpdatedAt.Format(time.RFC3339Nano)),
	}
	if len(st.SamplingConfig) > 0 {
		var m map[string]any
		if json.Unmarshal(st.SamplingConfig, &m) == nil {
			s.SamplingConfig = m
		}
	}
	return s
}

func ptr[T any](v T) *T { return &v }
