package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
)

// Workflow versions (an Agentry extension; the Agent Platform API has no
// such operations): every save of a changed definition is a version, named
// by its change id. Versions are listed newest first, read, compared step
// by step, and restored by saving an old one again as the newest.

// AgentVersion is one version of an agent's workflow. Definition is set
// when reading one version (GetAgentVersion, RestoreAgentVersion).
type AgentVersion struct {
	ChangeID      string          `json:"change_id"`
	SavedAt       string          `json:"saved_at"`
	SavedBy       *string         `json:"saved_by"` // user id; nil for an API key of no user or an operator
	Current       bool            `json:"current"`
	Summary       string          `json:"summary"` // one line: what it changed from the version before
	SchemaVersion string          `json:"schema_version"`
	Definition    json.RawMessage `json:"definition,omitempty"`
}

// AgentVersionDiff compares a version (ChangeID) with another (Against;
// nil when ChangeID is the first version, compared with an empty workflow).
type AgentVersionDiff struct {
	ChangeID string       `json:"change_id"`
	Against  *string      `json:"against"`
	Summary  string       `json:"summary"`
	Diff     WorkflowDiff `json:"diff"`
}

// WorkflowDiff is what changed between two workflows, steps matched by key.
type WorkflowDiff struct {
	Added    []StepRef           `json:"added"`
	Removed  []StepRef           `json:"removed"`
	Changed  []StepChange        `json:"changed"`
	Workflow []WorkflowFieldDiff `json:"workflow"` // the workflow's own fields (name, description, tags)
}

// StepRef names a step of a workflow.
type StepRef struct {
	StepKey  string `json:"step_key"`
	StepType string `json:"step_type"`
}

// StepChange is a step in both versions whose fields differ.
type StepChange struct {
	StepKey  string              `json:"step_key"`
	StepType string              `json:"step_type"`
	Fields   []WorkflowFieldDiff `json:"fields"`
}

// WorkflowFieldDiff is one field before and after (JSON null where absent).
type WorkflowFieldDiff struct {
	Field  string          `json:"field"`
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
}

// VersionListOptions page GET /agents/{agent_id}/versions.
type VersionListOptions struct {
	Page  int // 1-based; 1 when zero
	Limit int // 1–100; the server's 20 when zero
}

const maxVersionPage = 100

// ListAgentVersions returns one page of an agent's workflow versions,
// newest (the current one) first (GET /agents/{agent_id}/versions).
func (c *Client) ListAgentVersions(ctx context.Context, agentID string, o VersionListOptions, opts ...CallOption) (*Page[AgentVersion], error) {
	return ListPage[AgentVersion](ctx, c, pathf("/agents/%s/versions", agentID), ListQuery{Page: o.Page, Limit: min(o.Limit, maxVersionPage)}, opts...)
}

// AgentVersions iterates over all of an agent's versions, newest first.
func (c *Client) AgentVersions(ctx context.Context, agentID string, opts ...CallOption) iter.Seq2[AgentVersion, error] {
	return ListAll[AgentVersion](ctx, c, pathf("/agents/%s/versions", agentID), ListQuery{Limit: maxVersionPage}, opts...)
}

// GetAgentVersion returns one version with its definition
// (GET /agents/{agent_id}/versions/{change_id}).
func (c *Client) GetAgentVersion(ctx context.Context, agentID, changeID string, opts ...CallOption) (*AgentVersion, error) {
	var out AgentVersion
	if err := c.Do(ctx, http.MethodGet, pathf("/agents/%s/versions/%s", agentID, changeID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// DiffAgentVersions compares the version of changeID with that of against
// ("" for the version saved before it)
// (GET /agents/{agent_id}/versions/{change_id}/diff).
func (c *Client) DiffAgentVersions(ctx context.Context, agentID, changeID, against string, opts ...CallOption) (*AgentVersionDiff, error) {
	if against != "" {
		opts = append([]CallOption{WithQuery(url.Values{"against": {against}})}, opts...)
	}
	var out AgentVersionDiff
	if err := c.Do(ctx, http.MethodGet, pathf("/agents/%s/versions/%s/diff", agentID, changeID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// RestoreAgentVersion saves an old version as the agent's newest and
// returns it (with its new change id). expectedChangeID is the current
// change id, as for UpdateAgentDefinition: a 409 (errors.Is ErrConflict)
// means the workflow changed since; a definition that no longer validates
// is a 422 (POST /agents/{agent_id}/versions/{change_id}/restore).
func (c *Client) RestoreAgentVersion(ctx context.Context, agentID, changeID, expectedChangeID string, opts ...CallOption) (*AgentVersion, error) {
	body := struct {
		ExpectedChangeID string `json:"expected_change_id"`
	}{expectedChangeID}
	var out AgentVersion
	if err := c.Do(ctx, http.MethodPost, pathf("/agents/%s/versions/%s/restore", agentID, changeID), body, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}
