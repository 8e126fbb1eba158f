package api

import (
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/agents"
	def "github.com/agentry/agentry/internal/agents/definition"
)

// Request and response bodies of the agents operations, field for field
// those of the contract.

// AgentSummaryResponse is an agent's metadata.
type AgentSummaryResponse struct {
	ID                              string           `json:"id" doc:"Unique agent identifier."`
	Name                            string           `json:"name"`
	Description                     *string          `json:"description" required:"true" nullable:"true"`
	TriggerType                     *string          `json:"trigger_type" nullable:"true"`
	CreatedAt                       string           `json:"created_at" doc:"ISO 8601 creation timestamp."`
	UpdatedAt                       string           `json:"updated_at" doc:"ISO 8601 last-updated timestamp."`
	DefaultEvaluationTier           *string          `json:"default_evaluation_tier" nullable:"true"`
	EvaluationMode                  string           `json:"evaluation_mode"`
	SamplingConfig                  map[string]any   `json:"sampling_config" nullable:"true"`
	MaxRetries                      int              `json:"max_retries"`
	RetryOnFailure                  bool             `json:"retry_on_failure"`
	PromptModelAutoUpgradeStrategy  string           `json:"prompt_model_auto_upgrade_strategy"`
	PromptModelAutoRollbackEnabled  bool             `json:"prompt_model_auto_rollback_enabled"`
	PromptModelAutoRollbackTriggers []string         `json:"prompt_model_auto_rollback_triggers" nullable:"true"`
	Disabled                        bool             `json:"disabled"`
	DisabledAt                      *string          `json:"disabled_at" nullable:"true"`
	DisabledReason                  *string          `json:"disabled_reason" nullable:"true"`
	ImportWarnings                  []def.ImportSkip `json:"import_warnings" nullable:"true" doc:"Items dropped or not applied by an import; null on calls that import nothing."`
	Triggers                        []AgentTrigger   `json:"triggers,omitempty" doc:"Extension: the agent's triggers (one today), with the id PUT /agents/{agent_id}/triggers/{trigger_id}/email-config takes. GET /agents/{agent_id} adds an email_received trigger's addresses."`
}

// AgentTrigger is one trigger of an agent, in AgentSummaryResponse.
type AgentTrigger struct {
	ID             string   `json:"id" format:"uuid"`
	TriggerType    string   `json:"trigger_type"`
	EmailAddresses []string `json:"email_addresses,omitempty" doc:"An email_received trigger's addresses (GET /agents/{agent_id} only)."`
	EmailAlias     *string  `json:"email_alias,omitempty" doc:"An email_received trigger's alias, when set (GET /agents/{agent_id} only)."`
}

// AgentListResponse is GET /agents: the same {data, pagination} shape at
// every version.
type AgentListResponse struct {
	Data       []AgentSummaryResponse `json:"data"`
	Pagination Pagination             `json:"pagination"`
}

// CreateAgentRequest is the body of POST /agents.
type CreateAgentRequest struct {
	Name            string            `json:"name" doc:"Name for the new agent."`
	Description     *string           `json:"description,omitempty" nullable:"true"`
	TriggerType     *string           `json:"trigger_type,omitempty" doc:"dynamic_input (default), template_input, schedule, new_content, email_received."`
	AgentTemplate   *string           `json:"agent_template,omitempty" nullable:"true" doc:"blank, retrieval_example, simple_qa, summarizer, json_extractor, content_change_notifier, scheduled_report, webhook_pipeline."`
	AgentDefinition json.RawMessage   `json:"agent_definition,omitempty" doc:"A payload as GET /agents/{agent_id}/export produces it (or a bare definition)."`
	EntityRemap     map[string]string `json:"entity_remap,omitempty" nullable:"true" doc:"Source-account id → this account's id, applied to the imported workflow before validation."`
	KnowledgeBaseID *string           `json:"knowledge_base_id,omitempty" nullable:"true" doc:"Extension: the knowledge base a template searches (retrieval_example, scheduled_report); the account's newest one when omitted."`
}

// UpdateAgentRequest is the body of PUT /agents/{agent_id}.
type UpdateAgentRequest struct {
	Name                               *string           `json:"name,omitempty" nullable:"true"`
	Description                        *string           `json:"description,omitempty" nullable:"true"`
	EvaluationMode                     *string           `json:"evaluation_mode,omitempty" nullable:"true"`
	DefaultEvaluationTier              *string           `json:"default_evaluation_tier,omitempty" nullable:"true"`
	SetDefaultEvaluationTier           bool              `json:"set_default_evaluation_tier,omitempty" doc:"With default_evaluation_tier omitted, clears it to null."`
	MaxRetries                         *int              `json:"max_retries,omitempty" nullable:"true"`
	RetryOnFailure                     *bool             `json:"retry_on_failure,omitempty" nullable:"true"`
	SamplingConfig                     map[string]any    `json:"sampling_config,omitempty" nullable:"true"`
	SetSamplingConfig                  bool              `json:"set_sampling_config,omitempty" doc:"With sampling_config omitted, clears it to null."`
	PromptModelAutoUpgradeStrategy     *string           `json:"prompt_model_auto_upgrade_strategy,omitempty" nullable:"true"`
	PromptModelAutoRollbackEnabled     *bool             `json:"prompt_model_auto_rollback_enabled,omitempty" nullable:"true"`
	PromptModelAutoRollbackTriggers    []string          `json:"prompt_model_auto_rollback_triggers,omitempty" nullable:"true"`
	SetPromptModelAutoRollbackTriggers bool              `json:"set_prompt_model_auto_rollback_triggers,omitempty" doc:"With prompt_model_auto_rollback_triggers omitted, clears it to null."`
	AgentDefinition                    json.RawMessage   `json:"agent_definition,omitempty"`
	EntityRemap                        map[string]string `json:"entity_remap,omitempty" nullable:"true"`
}

// AgentImportPreviewRequest is the body of POST /agents/preview-import.
type AgentImportPreviewRequest struct {
	AgentDefinition json.RawMessage `json:"agent_definition" doc:"A payload as GET /agents/{agent_id}/export produces it."`
}

// AgentDefinitionResponse is GET and PUT /agents/{agent_id}/definition.
type AgentDefinitionResponse struct {
	ChangeID      string              `json:"change_id" doc:"Send as expected_change_id to update the definition."`
	Definition    json.RawMessage     `json:"definition"`
	SchemaVersion string              `json:"schema_version"`
	Warnings      []map[string]string `json:"warnings" nullable:"true"`
}

// UpdateAgentDefinitionRequest is the body of PUT /agents/{agent_id}/definition.
type UpdateAgentDefinitionRequest struct {
	ExpectedChangeID string          `json:"expected_change_id" doc:"The change_id of the definition this one replaces."`
	Definition       json.RawMessage `json:"definition"`
}

// UploadAgentInputResponse is an input upload's state.
type UploadAgentInputResponse struct {
	ID          string  `json:"id"`
	Status      string  `json:"status" enum:"processing,ready,failed"`
	Filename    string  `json:"filename"`
	ContentType string  `json:"content_type"`
	FileSize    int64   `json:"file_size"`
	Error       *string `json:"error" nullable:"true"`
}

func agentSummary(a agents.Agent, warnings []def.ImportSkip) AgentSummaryResponse {
	st := a.Settings
	out := AgentSummaryResponse{
		ID: a.ID, Name: a.Name, Description: a.Description, CreatedAt: timestamp(a.CreatedAt), UpdatedAt: timestamp(a.UpdatedAt),
		DefaultEvaluationTier: st.DefaultEvaluationTier, EvaluationMode: st.EvaluationMode, MaxRetries: st.MaxRetries,
		RetryOnFailure: st.RetryOnFailure, PromptModelAutoUpgradeStrategy: st.ModelUpgradeStrategy,
		PromptModelAutoRollbackEnabled: st.ModelRollbackEnabled, PromptModelAutoRollbackTriggers: st.ModelRollbackTriggers,
		Disabled: a.DisabledAt != nil, ImportWarnings: warnings,
	}
	if a.TriggerType != "" {
		t := a.TriggerType
		out.TriggerType = &t
	}
	if a.TriggerID != "" {
		out.Triggers = []AgentTrigger{{ID: a.TriggerID, TriggerType: a.TriggerType}}
	}
	if len(st.SamplingConfig) > 0 {
		_ = json.Unmarshal(st.SamplingConfig, &out.SamplingConfig)
	}
	if a.DisabledAt != nil {
		at, reason := timestamp(*a.DisabledAt), a.DisabledReason
		out.DisabledAt, out.DisabledReason = &at, &reason
	}
	return out
}

func uploadResponse(u agents.Upload) UploadAgentInputResponse {
	out := UploadAgentInputResponse{ID: u.ID, Status: u.Status, Filename: u.Filename, ContentType: u.ContentType, FileSize: u.FileSize}
	if u.Error != "" {
		e := u.Error
		out.Error = &e
	}
	return out
}

// timestamp is the API's time format: RFC 3339 in UTC.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
