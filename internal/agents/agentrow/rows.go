package agentrow

import (
	"encoding/json"
	"time"
)

// Agent is a stored agent with its trigger type. Definition is the
// workflow as JSON text; the row neither parses nor validates it (the
// agents service does, with the definition package).
type Agent struct {
	ID                string
	AccountID         string
	Name              string
	Description       *string
	SchemaVersion     string
	Definition        json.RawMessage
	ChangeID          string // changes with every definition save (optimistic locking)
	DefinitionSavedAt time.Time
	DefinitionSavedBy string
	Settings          Settings
	TriggerID         string
	TriggerType       string
	DisabledAt        *time.Time
	DisabledReason    string
	DisabledBy        string
	CreatedBy         string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// OversightRev changes whenever the agent, its evaluation criteria or
	// a governance policy over it changes (see BumpOversight).
	OversightRev int64

	// CallTargets are the agents the definition calls. Only written: set it
	// whenever Definition changes, and the repository rewrites agent_calls.
	CallTargets []string
}

// Disabled reports whether the agent is paused.
func (a Agent) Disabled() bool { return a.DisabledAt != nil }

// Settings are an agent's evaluation and model lifecycle settings.
type Settings struct {
	EvaluationMode        string
	DefaultEvaluationTier *string
	MaxRetries            int
	RetryOnFailure        bool
	SamplingConfig        json.RawMessage // a JSON object, or nil
	ModelUpgradeStrategy  string
	ModelRollbackEnabled  bool
	ModelRollbackTriggers []string // nil: the system default
}

// Ref names an agent of an account.
type Ref struct{ AccountID, ID string }
