package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// Agents: create (blank, from a template, or importing an export), read,
// list, update, delete, the workflow definition, exports and imports,
// pausing, callers, the attachment contract and input uploads.

// Trigger types of an agent.
const (
	TriggerDynamicInput  = "dynamic_input"
	TriggerTemplateInput = "template_input"
	TriggerSchedule      = "schedule"
	TriggerNewContent    = "new_content"
	TriggerEmailReceived = "email_received"
)

// Agent templates of CreateAgentRequest.AgentTemplate.
const (
	TemplateBlank                 = "blank"
	TemplateRetrievalExample      = "retrieval_example"
	TemplateSimpleQA              = "simple_qa"
	TemplateSummarizer            = "summarizer"
	TemplateJSONExtractor         = "json_extractor"
	TemplateContentChangeNotifier = "content_change_notifier"
	TemplateScheduledReport       = "scheduled_report"
	TemplateWebhookPipeline       = "webhook_pipeline"
)

// Upload statuses of an input upload.
const (
	UploadProcessing = "processing"
	UploadReady      = "ready"
	UploadFailed     = "failed"
)

// Agent is an agent's metadata (AgentSummaryResponse).
type Agent struct {
	ID                              string         `json:"id"`
	Name                            string         `json:"name"`
	Description                     *string        `json:"description"`
	TriggerType                     *string        `json:"trigger_type"`
	CreatedAt                       string         `json:"created_at"`
	UpdatedAt                       string         `json:"updated_at"`
	DefaultEvaluationTier           *string        `json:"default_evaluation_tier"`
	EvaluationMode                  string         `json:"evaluation_mode"`
	SamplingConfig                  map[string]any `json:"sampling_config"`
	MaxRetries                      int            `json:"max_retries"`
	RetryOnFailure                  bool           `json:"retry_on_failure"`
	PromptModelAutoUpgradeStrategy  string         `json:"prompt_model_auto_upgrade_strategy"`
	PromptModelAutoRollbackEnabled  bool           `json:"prompt_model_auto_rollback_enabled"`
	PromptModelAutoRollbackTriggers []string       `json:"prompt_model_auto_rollback_triggers"`
	Disabled                        bool           `json:"disabled"`
	DisabledAt                      *string        `json:"disabled_at"`
	DisabledReason                  *string        `json:"disabled_reason"`
	// ImportWarnings lists what an import skipped; nil when the call
	// imported nothing.
	ImportWarnings []ImportSkip `json:"import_warnings"`
	// Triggers are the agent's triggers (one today), with the id
	// SetEmailTriggerConfig takes; GetAgent adds an email_received
	// trigger's addresses. An extension of the Agent Platform API.
	Triggers []AgentTrigger `json:"triggers,omitempty"`
}

// AgentTrigger is one trigger of an agent.
type AgentTrigger struct {
	ID          string `json:"id"`
	TriggerType string `json:"trigger_type"`
	// EmailAddresses and EmailAlias are set by GetAgent for an
	// email_received trigger.
	EmailAddresses []string `json:"email_addresses,omitempty"`
	EmailAlias     *string  `json:"email_alias,omitempty"`
}

// ImportSkip is an item of an imported payload that was not applied.
type ImportSkip struct {
	Category string         `json:"category"`
	Message  string         `json:"message"`
	Details  map[string]any `json:"details"`
}

// CreateAgentRequest is POST /agents. Give AgentTemplate to start from a
// template, or AgentDefinition (an export) to import an agent.
type CreateAgentRequest struct {
	Name            string            `json:"name"`
	Description     *string           `json:"description,omitempty"`
	TriggerType     string            `json:"trigger_type,omitempty"` // the payload's or the template's when empty
	AgentTemplate   string            `json:"agent_template,omitempty"`
	AgentDefinition json.RawMessage   `json:"agent_definition,omitempty"`
	EntityRemap     map[string]string `json:"entity_remap,omitempty"`
}

// UpdateAgentRequest is PUT /agents/{agent_id}: nil fields are left as
// they are; the Set* flags clear theirs to null.
type UpdateAgentRequest struct {
	Name                               *string           `json:"name,omitempty"`
	Description                        *string           `json:"description,omitempty"`
	EvaluationMode                     *string           `json:"evaluation_mode,omitempty"`
	DefaultEvaluationTier              *string           `json:"default_evaluation_tier,omitempty"`
	SetDefaultEvaluationTier           bool              `json:"set_default_evaluation_tier,omitempty"`
	MaxRetries                         *int              `json:"max_retries,omitempty"`
	RetryOnFailure                     *bool             `json:"retry_on_failure,omitempty"`
	SamplingConfig                     map[string]any    `json:"sampling_config,omitempty"`
	SetSamplingConfig                  bool              `json:"set_sampling_config,omitempty"`
	PromptModelAutoUpgradeStrategy     *string           `json:"prompt_model_auto_upgrade_strategy,omitempty"`
	PromptModelAutoRollbackEnabled     *bool             `json:"prompt_model_auto_rollback_enabled,omitempty"`
	PromptModelAutoRollbackTriggers    []string          `json:"prompt_model_auto_rollback_triggers,omitempty"`
	SetPromptModelAutoRollbackTriggers bool              `json:"set_prompt_model_auto_rollback_triggers,omitempty"`
	AgentDefinition                    json.RawMessage   `json:"agent_definition,omitempty"`
	EntityRemap                        map[string]string `json:"entity_remap,omitempty"`
}

// AgentDefinition is an agent's workflow with its change id.
type AgentDefinition struct {
	ChangeID      string              `json:"change_id"`
	Definition    json.RawMessage     `json:"definition"`
	SchemaVersion string              `json:"schema_version"`
	Warnings      []map[string]string `json:"warnings"`
}

// ImportPreview summarises an import payload without saving it.
type ImportPreview struct {
	OK                     bool            `json:"ok"`
	AgentName              *string         `json:"agent_name"`
	Description            *string         `json:"description"`
	StepCount              int             `json:"step_count"`
	Schedules              int             `json:"schedules"`
	AlertConfigs           int             `json:"alert_configs"`
	EvaluationCriteria     int             `json:"evaluation_criteria"`
	GovernancePolicies     int             `json:"governance_policies"`
	Solutions              int             `json:"solutions"`
	PayloadExportVersion   *string         `json:"payload_export_version"`
	SupportedExportVersion string          `json:"supported_export_version"`
	UnresolvedRefs         []UnresolvedRef `json:"unresolved_refs"`
}

// UnresolvedRef is an entity the payload references that the account
// lacks, with the account's likeliest replacements first.
type UnresolvedRef struct {
	Category     string        `json:"category"` // knowledge_base, memory_bank, source_connection, agent, user
	RefID        string        `json:"ref_id"`
	RefName      *string       `json:"ref_name,omitempty"`
	Locations    []string      `json:"locations"`
	Alternatives []Alternative `json:"alternatives"`
}

// Alternative is a replacement candidate for an unresolved reference.
type Alternative struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description,omitempty"`
}

// AgentCaller is an agent calling another through a call_agent step.
type AgentCaller struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Disabled bool   `json:"disabled"`
}

// AttachmentReferences says what files a run of the agent needs.
type AttachmentReferences struct {
	RequiresUploads bool              `json:"requires_uploads"`
	Agent           AttachmentSummary `json:"agent"`
}

// AttachmentSummary aggregates the attachment selectors of a workflow.
type AttachmentSummary struct {
	ExactNames []string `json:"exact_names"`
	IndexesMax *int     `json:"indexes_max"`
	Kinds      []string `json:"kinds"`
	Patterns   []string `json:"patterns"`
}

// InputUpload is a file uploaded as run input and its processing state.
type InputUpload struct {
	ID          string  `json:"id"`
	Status      string  `json:"status"` // processing, ready, failed
	Filename    string  `json:"filename"`
	ContentType string  `json:"content_type"`
	FileSize    int64   `json:"file_size"`
	Error       *string `json:"error"`
}

// AgentListOptions page GET /agents.
type AgentListOptions struct {
	Page  int // 1-based; 1 when zero
	Limit int // 1–100; the server's default (20) when zero
}

const maxAgentPage = 100

func (o AgentListOptions) query() ListQuery {
	return ListQuery{Paging: PageNumbers, Page: o.Page, Limit: min(o.Limit, maxAgentPage)}
}

// ListAgents returns one page of the account's agents, newest first.
func (c *Client) ListAgents(ctx context.Context, o AgentListOptions, opts ...CallOption) (*Page[Agent], error) {
	return ListPage[Agent](ctx, c, "/agents", o.query(), opts...)
}

// Agents iterates over all of the account's agents (from o.Page on),
// fetching pages as the loop needs them.
func (c *Client) Agents(ctx context.Context, o AgentListOptions, opts ...CallOption) iter.Seq2[Agent, error] {
	if o.Limit <= 0 {
		o.Limit = maxAgentPage
	}
	return ListAll[Agent](ctx, c, "/agents", o.query(), opts...)
}

// GetAgent returns an agent (GET /agents/{agent_id}).
func (c *Client) GetAgent(ctx context.Context, agentID string, opts ...CallOption) (*Agent, error) {
	return doAgent(ctx, c, http.MethodGet, pathf("/agents/%s", agentID), nil, opts)
}

// CreateAgent creates an agent (POST /agents). An invalid AgentDefinition
// is an *ImportError with positions into its canonical echo.
func (c *Client) CreateAgent(ctx context.Context, in CreateAgentRequest, opts ...CallOption) (*Agent, error) {
	return doAgent(ctx, c, http.MethodPost, "/agents", in, opts)
}

// UpdateAgent changes an agent's settings and, with AgentDefinition, its
// workflow (PUT /agents/{agent_id}).
func (c *Client) UpdateAgent(ctx context.Context, agentID string, in UpdateAgentRequest, opts ...CallOption) (*Agent, error) {
	return doAgent(ctx, c, http.MethodPut, pathf("/agents/%s", agentID), in, opts)
}

// DeleteAgent deletes an agent (DELETE /agents/{agent_id}).
func (c *Client) DeleteAgent(ctx context.Context, agentID string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/agents/%s", agentID), nil, nil, opts...)
}

// DisableAgent pauses an agent. Live agents calling it make this a 409
// (errors.Is ErrConflict) naming them; disable those first.
func (c *Client) DisableAgent(ctx context.Context, agentID string, opts ...CallOption) (*Agent, error) {
	return doAgent(ctx, c, http.MethodPost, pathf("/agents/%s/disable", agentID), nil, opts)
}

// EnableAgent resumes a paused agent.
func (c *Client) EnableAgent(ctx context.Context, agentID string, opts ...CallOption) (*Agent, error) {
	return doAgent(ctx, c, http.MethodPost, pathf("/agents/%s/enable", agentID), nil, opts)
}

func doAgent(ctx context.Context, c *Client, method, path string, in any, opts []CallOption) (*Agent, error) {
	var out Agent
	if err := c.Do(ctx, method, path, in, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// AgentCallers lists the live agents that call this one.
func (c *Client) AgentCallers(ctx context.Context, agentID string, opts ...CallOption) ([]AgentCaller, error) {
	p, err := ListPage[AgentCaller](ctx, c, pathf("/agents/%s/callers", agentID), ListQuery{Paging: OnePage}, opts...)
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// AgentAttachmentReferences returns what files a run of the agent needs.
func (c *Client) AgentAttachmentReferences(ctx context.Context, agentID string, opts ...CallOption) (*AttachmentReferences, error) {
	var out AttachmentReferences
	if err := c.Do(ctx, http.MethodGet, pathf("/agents/%s/attachment-references", agentID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetAgentDefinition returns the workflow and the change id to send back
// with an update.
func (c *Client) GetAgentDefinition(ctx context.Context, agentID string, opts ...CallOption) (*AgentDefinition, error) {
	var out AgentDefinition
	if err := c.Do(ctx, http.MethodGet, pathf("/agents/%s/definition", agentID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateAgentDefinition replaces the workflow if expectedChangeID is still
// current; otherwise the server answers 409 (errors.Is ErrConflict): read
// the definition again and re-apply the change.
func (c *Client) UpdateAgentDefinition(ctx context.Context, agentID, expectedChangeID string, definition json.RawMessage, opts ...CallOption) (*AgentDefinition, error) {
	body := struct {
		ExpectedChangeID string          `json:"expected_change_id"`
		Definition       json.RawMessage `json:"definition"`
	}{expectedChangeID, definition}
	var out AgentDefinition
	if err := c.Do(ctx, http.MethodPut, pathf("/agents/%s/definition", agentID), body, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// ExportAgent streams an agent's export (GET /agents/{agent_id}/export);
// the caller closes it. FileName is the name the server suggests.
func (c *Client) ExportAgent(ctx context.Context, agentID string, opts ...CallOption) (*Download, error) {
	opts = append([]CallOption{WithQuery(url.Values{"download": {"true"}})}, opts...)
	return c.Download(ctx, pathf("/agents/%s/export", agentID), opts...)
}

// ExportAgentTo writes an agent's export to w and returns the bytes written.
func (c *Client) ExportAgentTo(ctx context.Context, agentID string, w io.Writer, opts ...CallOption) (int64, error) {
	d, err := c.ExportAgent(ctx, agentID, opts...)
	if err != nil {
		return 0, err
	}
	defer d.Close()
	return io.Copy(w, d.Body)
}

// ExportAgentFile saves an agent's export to path, written beside it and
// renamed into place so an interrupted export leaves no partial file.
func (c *Client) ExportAgentFile(ctx context.Context, agentID, path string, opts ...CallOption) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".part-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := c.ExportAgentTo(ctx, agentID, tmp, opts...); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// MaxImportSize bounds an import payload read from a stream: it travels
// inside a JSON request body, which the server limits too.
const MaxImportSize = 10 << 20

// ReadImport reads an export payload from r, checking that it is JSON.
func ReadImport(r io.Reader) (json.RawMessage, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxImportSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxImportSize {
		return nil, fmt.Errorf("the payload is larger than %d bytes", MaxImportSize)
	}
	b = bytes.TrimSpace(b)
	if err := checkJSON(b); err != nil {
		return nil, err // a *PayloadError: where the JSON goes wrong
	}
	return b, nil
}

// ImportAgent creates an agent from an export read from r. req.Name is
// required; req.AgentDefinition is replaced by the payload.
func (c *Client) ImportAgent(ctx context.Context, req CreateAgentRequest, r io.Reader, opts ...CallOption) (*Agent, error) {
	payload, err := ReadImport(r)
	if err != nil {
		return nil, err
	}
	req.AgentDefinition = payload
	return c.CreateAgent(ctx, req, opts...)
}

// PreviewImport validates an export read from r without saving anything,
// and lists what the account lacks with replacement candidates.
func (c *Client) PreviewImport(ctx context.Context, r io.Reader, opts ...CallOption) (*ImportPreview, error) {
	payload, err := ReadImport(r)
	if err != nil {
		return nil, err
	}
	body := struct {
		AgentDefinition json.RawMessage `json:"agent_definition"`
	}{payload}
	var out ImportPreview
	if err := c.Do(ctx, http.MethodPost, "/agents/preview-import", body, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// UploadAgentInput streams a file to POST /agents/{agent_id}/upload-input
// (at most 200 MiB). u.Content and u.FileName are required; the answer is
// processing until the text is extracted (see WaitInputUpload).
func (c *Client) UploadAgentInput(ctx context.Context, agentID string, u Upload, opts ...CallOption) (*InputUpload, error) {
	u.Field = "file"
	var out InputUpload
	if err := c.Upload(ctx, pathf("/agents/%s/upload-input", agentID), u, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetInputUpload returns an upload's status.
func (c *Client) GetInputUpload(ctx context.Context, agentID, uploadID string, opts ...CallOption) (*InputUpload, error) {
	var out InputUpload
	if err := c.Do(ctx, http.MethodGet, pathf("/agents/%s/input-uploads/%s", agentID, uploadID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// WaitInputUpload polls an upload until it is ready or failed.
func (c *Client) WaitInputUpload(ctx context.Context, agentID, uploadID string, interval, timeout time.Duration, opts ...CallOption) (*InputUpload, error) {
	return Poll(ctx, PollOptions{Interval: interval, Timeout: timeout},
		func(ctx context.Context) (*InputUpload, error) {
			return c.GetInputUpload(ctx, agentID, uploadID, opts...)
		},
		func(u *InputUpload) bool { return u.Status != UploadProcessing })
}
