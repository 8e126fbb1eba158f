package api

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/mcpexpose"
)

// AgentMCPToolResponse is how an agent is exposed as a tool of the MCP
// server (an extension).
type AgentMCPToolResponse struct {
	AgentID     string         `json:"agent_id"`
	Enabled     bool           `json:"enabled" doc:"Whether the agent is a tool of the account's MCP server."`
	ToolName    *string        `json:"tool_name" nullable:"true" doc:"The tool's name; null when not exposed."`
	Description *string        `json:"description" nullable:"true" doc:"The tool's description (the agent's own unless set)."`
	InputSchema map[string]any `json:"input_schema" nullable:"true" doc:"The tool's input: input (required for dynamic_input agents) and metadata."`
	UpdatedAt   *string        `json:"updated_at" nullable:"true"`
}

// PutAgentMCPToolRequest exposes an agent, or stops exposing it.
type PutAgentMCPToolRequest struct {
	Enabled     bool    `json:"enabled" doc:"true exposes the agent as a tool; false stops."`
	ToolName    *string `json:"tool_name,omitempty" nullable:"true" maxLength:"64" doc:"Defaults to agent_<the agent's name>."`
	Description *string `json:"description,omitempty" nullable:"true" maxLength:"1024" doc:"Defaults to the agent's description."`
}

// AgentMCPToolListResponse lists the exposed agents.
type AgentMCPToolListResponse struct {
	Data       []AgentMCPToolResponse `json:"data"`
	Pagination Pagination             `json:"pagination"`
}

type agentMCPToolOutput struct{ Body AgentMCPToolResponse }

type putAgentMCPToolInput struct {
	AgentID string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	Body    PutAgentMCPToolRequest
}

type listAgentMCPToolsInput struct {
	Page  int `query:"page" default:"1" minimum:"1" maximum:"1000000"`
	Limit int `query:"limit" default:"50" minimum:"1" maximum:"100"`
}

type listAgentMCPToolsOutput struct{ Body AgentMCPToolListResponse }

const agentMCPToolDoc = `Which agents are tools of the account's MCP server (/mcp and agentry mcp): each exposed agent is
a tool that runs it and waits for its output. Only agents with a dynamic_input or template_input trigger can be exposed;
paused agents are not listed. Tool names are unique in the account.`

func mcpToolResponse(st mcpexpose.Setting) AgentMCPToolResponse {
	r := AgentMCPToolResponse{AgentID: st.AgentID, Enabled: st.Enabled}
	if st.Enabled {
		r.ToolName, r.Description, r.InputSchema = &st.ToolName, &st.Description, st.InputSchema
	}
	if st.UpdatedAt != nil {
		u := st.UpdatedAt.UTC().Format(time.RFC3339)
		r.UpdatedAt = &u
	}
	return r
}

func (s *Server) getAgentMCPTool(ctx context.Context, in *agentIDPath) (*agentMCPToolOutput, error) {
	st, err := s.deps.MCPExpose.Get(ctx, principal(ctx).AccountID, in.AgentID)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &agentMCPToolOutput{Body: mcpToolResponse(st)}, nil
}

func (s *Server) putAgentMCPTool(ctx context.Context, in *putAgentMCPToolInput) (*agentMCPToolOutput, error) {
	st, err := s.deps.MCPExpose.Put(ctx, principal(ctx).AccountID, in.AgentID, in.Body.Enabled, in.Body.ToolName, in.Body.Description)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &agentMCPToolOutput{Body: mcpToolResponse(st)}, nil
}

func (s *Server) listAgentMCPTools(ctx context.Context, in *listAgentMCPToolsInput) (*listAgentMCPToolsOutput, error) {
	list, total, err := s.deps.MCPExpose.List(ctx, principal(ctx).AccountID, in.Page, in.Limit)
	if err != nil {
		return nil, err
	}
	items := make([]AgentMCPToolResponse, len(list))
	for i, st := range list {
		items[i] = mcpToolResponse(st)
	}
	return &listAgentMCPToolsOutput{Body: AgentMCPToolListResponse{Data: items, Pagination: PageOf(in.Page, in.Limit, total)}}, nil
}
