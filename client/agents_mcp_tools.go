package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// AgentMCPTool is how an agent is exposed as a tool of the account's MCP
// server (an Agentry extension).
type AgentMCPTool struct {
	AgentID     string         `json:"agent_id"`
	Enabled     bool           `json:"enabled"`
	ToolName    *string        `json:"tool_name"`
	Description *string        `json:"description"`
	InputSchema map[string]any `json:"input_schema"`
	UpdatedAt   *string        `json:"updated_at"`
}

// AgentMCPToolRequest exposes an agent (Enabled) or stops exposing it.
// ToolName defaults to agent_<name>, Description to the agent's.
type AgentMCPToolRequest struct {
	Enabled     bool    `json:"enabled"`
	ToolName    *string `json:"tool_name,omitempty"`
	Description *string `json:"description,omitempty"`
}

// GetAgentMCPTool answers how an agent is exposed (GET /agents/{agent_id}/mcp-tool).
func (c *Client) GetAgentMCPTool(ctx context.Context, agentID string, opts ...CallOption) (*AgentMCPTool, error) {
	var out AgentMCPTool
	return &out, c.Do(ctx, http.MethodGet, pathf("/agents/%s/mcp-tool", agentID), nil, &out, opts...)
}

// SetAgentMCPTool exposes an agent as an MCP tool, or stops (PUT /agents/{agent_id}/mcp-tool).
func (c *Client) SetAgentMCPTool(ctx context.Context, agentID string, req AgentMCPToolRequest, opts ...CallOption) (*AgentMCPTool, error) {
	var out AgentMCPTool
	return &out, c.Do(ctx, http.MethodPut, pathf("/agents/%s/mcp-tool", agentID), req, &out, opts...)
}

// ListAgentMCPTools lists a page of the account's exposed agents, paused
// ones left out (GET /agents/mcp-tools); page and limit 0 take the defaults.
func (c *Client) ListAgentMCPTools(ctx context.Context, page, limit int, opts ...CallOption) ([]AgentMCPTool, int, error) {
	q := url.Values{}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out struct {
		Data       []AgentMCPTool `json:"data"`
		Pagination struct {
			Total int `json:"total"`
		} `json:"pagination"`
	}
	opts = append(opts, WithQuery(q))
	if err := c.Do(ctx, http.MethodGet, "/agents/mcp-tools", nil, &out, opts...); err != nil {
		return nil, 0, err
	}
	return out.Data, out.Pagination.Total, nil
}
