package api

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentry/agentry/internal/agents"
	def "github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/fault"
)

// The workflow of an agent: its definition with optimistic locking, its
// export, and its attachment contract.

type definitionOutput struct{ Body AgentDefinitionResponse }

func definitionResponse(v agents.DefinitionView) AgentDefinitionResponse {
	out := AgentDefinitionResponse{ChangeID: v.ChangeID, Definition: v.Definition, SchemaVersion: v.SchemaVersion}
	for _, w := range v.Warnings {
		out.Warnings = append(out.Warnings, w.WarningMap())
	}
	return out
}

func (s *Server) getAgentDefinition(ctx context.Context, in *agentIDPath) (*definitionOutput, error) {
	v, err := s.agents().GetDefinition(ctx, principal(ctx).AccountID, in.AgentID)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &definitionOutput{Body: definitionResponse(v)}, nil
}

type putDefinitionInput struct {
	AgentID string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	Body    UpdateAgentDefinitionRequest
}

func (s *Server) putAgentDefinition(ctx context.Context, in *putDefinitionInput) (*definitionOutput, error) {
	p := principal(ctx)
	v, err := s.agents().PutDefinition(ctx, agents.PutDefinitionInput{AccountID: p.AccountID, AgentID: in.AgentID, UserID: p.UserID,
		ExpectedChangeID: in.Body.ExpectedChangeID, Definition: in.Body.Definition})
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &definitionOutput{Body: definitionResponse(v)}, nil
}

type exportInput struct {
	AgentID  string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	Download bool   `query:"download" default:"true" doc:"Return as file download"`
}

type exportOutput struct {
	ContentDisposition *string `header:"Content-Disposition"`
	Body               json.RawMessage
}

func (s *Server) exportAgent(ctx context.Context, in *exportInput) (*exportOutput, error) {
	e, err := s.agents().Export(ctx, principal(ctx).AccountID, in.AgentID)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	body, err := exportJSON(e)
	if err != nil {
		return nil, err
	}
	out := &exportOutput{Body: body}
	if in.Download {
		cd := fmt.Sprintf(`attachment; filename="%s.agent.json"`, fileSlug(e.Agent.Name))
		out.ContentDisposition = &cd
	}
	return out, nil
}

// exportJSON writes the export. The contract's AgentExportResponse does
// not declare `solutions`, yet imports read it: it is written when the
// agent belongs to solutions (dropping it would lose the links on a round
// trip) and left out, rather than null, when it does not.
func exportJSON(e *def.Export) (json.RawMessage, error) {
	b, err := json.Marshal(e)
	if err != nil || e.Solutions != nil {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "solutions")
	return json.Marshal(m)
}

var notSlug = regexp.MustCompile(`[^a-z0-9]+`)

// fileSlug makes an agent name a safe download file name.
func fileSlug(name string) string {
	s := strings.Trim(notSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(s) > 80 {
		s = strings.TrimRight(s[:80], "-")
	}
	if s == "" {
		return "agent"
	}
	return s
}

type attachmentRefsOutput struct{ Body def.AttachmentContract }

func (s *Server) getAgentAttachmentReferences(ctx context.Context, in *agentIDPath) (*attachmentRefsOutput, error) {
	c, err := s.agents().AttachmentReferences(ctx, principal(ctx).AccountID, in.AgentID)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &attachmentRefsOutput{Body: c}, nil
}

// Pausing: disable, enable and the callers that block a pause.

func (s *Server) disableAgent(ctx context.Context, in *agentIDPath) (*agentOutput, error) {
	p := principal(ctx)
	a, err := s.agents().Disable(ctx, p.AccountID, in.AgentID, p.UserID)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &agentOutput{Body: agentSummary(a, nil)}, nil
}

func (s *Server) enableAgent(ctx context.Context, in *agentIDPath) (*agentOutput, error) {
	p := principal(ctx)
	a, err := s.agents().Enable(ctx, p.AccountID, in.AgentID, p.UserID)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &agentOutput{Body: agentSummary(a, nil)}, nil
}

type callersOutput struct{ Body any }

// getAgentCallers lists every caller at once (the list is not paginated):
// a bare array, or at the strict version the envelope holding one page.
func (s *Server) getAgentCallers(ctx context.Context, in *agentIDPath) (*callersOutput, error) {
	c, err := s.agents().Callers(ctx, principal(ctx).AccountID, in.AgentID)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &callersOutput{Body: List(ctx, c, PageOf(1, max(len(c), 1), len(c)), func(items []agents.Caller, _ Pagination) any {
		return items
	})}, nil
}
