package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/agents"
	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/fault"
)

// Workflow versions, an extension (docs/versions.md): every save of a
// changed definition is a version, listed newest first, read, compared
// step by step, and restored by saving it again as the newest.

// AgentVersionResponse is one version of an agent's workflow.
type AgentVersionResponse struct {
	ChangeID      string          `json:"change_id" doc:"The version's change id: what PUT /agents/{agent_id}/definition was answered when it was saved, and what a run started on it records."`
	SavedAt       time.Time       `json:"saved_at"`
	SavedBy       *string         `json:"saved_by" doc:"The user who saved it; null for an API key of no user or an operator."`
	Current       bool            `json:"current" doc:"Whether this is the agent's current workflow."`
	Summary       string          `json:"summary" doc:"One line: what this version changed from the one before it."`
	SchemaVersion string          `json:"schema_version"`
	Definition    json.RawMessage `json:"definition,omitempty" doc:"The workflow (when reading one version)."`
}

// AgentVersionDiffResponse compares two versions.
type AgentVersionDiffResponse struct {
	ChangeID string   `json:"change_id" doc:"The version compared (the newer side)."`
	Against  *string  `json:"against" doc:"The version it is compared with; null when it is the first (compared with an empty workflow)."`
	Summary  string   `json:"summary"`
	Diff     def.Diff `json:"diff"`
}

// RestoreAgentVersionRequest is the body of a restore.
type RestoreAgentVersionRequest struct {
	ExpectedChangeID string `json:"expected_change_id" maxLength:"64" doc:"The agent's current change_id, as for PUT /agents/{agent_id}/definition: 409 if the workflow changed since."`
}

type listVersionsInput struct {
	AgentID string `path:"agent_id" format:"uuid"`
	Page    int    `query:"page" default:"1" minimum:"1" maximum:"1000000"`
	Limit   int    `query:"limit" default:"20" minimum:"1" maximum:"100"`
}

type versionInput struct {
	AgentID  string `path:"agent_id" format:"uuid"`
	ChangeID string `path:"change_id" format:"uuid"`
}

type diffVersionInput struct {
	AgentID  string `path:"agent_id" format:"uuid"`
	ChangeID string `path:"change_id" format:"uuid"`
	Against  string `query:"against" format:"uuid" required:"false" doc:"The change id to compare with; the version saved just before when left out."`
}

type restoreVersionInput struct {
	AgentID  string `path:"agent_id" format:"uuid"`
	ChangeID string `path:"change_id" format:"uuid"`
	Body     RestoreAgentVersionRequest
}

type listVersionsOutput struct{ Body any }

type agentVersionOutput struct{ Body AgentVersionResponse }

type versionDiffOutput struct{ Body AgentVersionDiffResponse }

// Descriptions of the version operations (routes in api.go).
const (
	listVersionsDoc   = "The versions of an agent's workflow, newest (the current one) first: change id, when and by whom it was saved, and a one-line summary of what it changed. Every save that changed the definition made one; none is ever rewritten."
	getVersionDoc     = "One version of an agent's workflow, with its definition. 404 when the agent has no version of this change_id."
	diffVersionDoc    = "Compares a version with another (against, by default the version before it): the steps added, removed and changed, matched by step key (the step id), each changed step with its changed fields before and after."
	restoreVersionDoc = "Saves an old version as the agent's newest: a new version with a new change_id (history is never rewritten), through the same validation as PUT /agents/{agent_id}/definition (422) and its optimistic locking: expected_change_id must be the current change_id (409 otherwise). Restoring a version identical to the current one saves nothing and answers the current version."
)

func versionResponse(v agents.VersionView, withDefinition bool) AgentVersionResponse {
	out := AgentVersionResponse{ChangeID: v.ChangeID, SavedAt: v.SavedAt, Current: v.Current, Summary: v.Summary,
		SchemaVersion: v.SchemaVersion}
	if v.SavedBy != "" {
		by := v.SavedBy
		out.SavedBy = &by
	}
	if withDefinition {
		out.Definition = v.Definition
	}
	return out
}

func (s *Server) listAgentVersions(ctx context.Context, in *listVersionsInput) (*listVersionsOutput, error) {
	vs, total, err := s.agents().ListVersions(ctx, principal(ctx).AccountID, in.AgentID, in.Page, in.Limit)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	items := make([]AgentVersionResponse, len(vs))
	for i, v := range vs {
		items[i] = versionResponse(v, false)
	}
	// A new list: the canonical envelope at every version.
	envelope := func(items []AgentVersionResponse, p Pagination) any {
		return Envelope[AgentVersionResponse]{Data: items, Pagination: p}
	}
	return &listVersionsOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), envelope)}, nil
}

func (s *Server) getAgentVersion(ctx context.Context, in *versionInput) (*agentVersionOutput, error) {
	v, err := s.agents().GetVersion(ctx, principal(ctx).AccountID, in.AgentID, in.ChangeID)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &agentVersionOutput{Body: versionResponse(v, true)}, nil
}

func (s *Server) diffAgentVersion(ctx context.Context, in *diffVersionInput) (*versionDiffOutput, error) {
	d, err := s.agents().DiffVersions(ctx, principal(ctx).AccountID, in.AgentID, in.ChangeID, in.Against)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	out := AgentVersionDiffResponse{ChangeID: d.ChangeID, Summary: d.Diff.Summary(), Diff: d.Diff}
	if d.Against != "" {
		a := d.Against
		out.Against = &a
	}
	return &versionDiffOutput{Body: out}, nil
}

func (s *Server) restoreAgentVersion(ctx context.Context, in *restoreVersionInput) (*agentVersionOutput, error) {
	p := principal(ctx)
	v, err := s.agents().RestoreVersion(ctx, p.AccountID, in.AgentID, p.UserID, in.ChangeID, in.Body.ExpectedChangeID)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &agentVersionOutput{Body: versionResponse(v, true)}, nil
}
