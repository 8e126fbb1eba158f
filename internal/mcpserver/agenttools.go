package mcpserver

import (
	"context"
	"errors"
	"net/http"

	"github.com/agentry/agentry/client"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addAgentTools adds a tool for each agent the account exposes (GET
// /agents/mcp-tools): its name, description and input schema come from
// the API, and a call runs the agent and waits, like run_agent.
func (b builder) addAgentTools(ctx context.Context) error {
	list, _, err := b.c.ListAgentMCPTools(ctx, 1, maxAgentTools)
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound {
		return nil // a server without the extension: no agent tools
	}
	if err != nil {
		return err
	}
	for _, t := range list {
		if t.ToolName == nil {
			continue
		}
		agentID := t.AgentID
		desc := ""
		if t.Description != nil {
			desc = *t.Description
		}
		schema := t.InputSchema
		if schema == nil {
			schema = map[string]any{"type": "object"}
		}
		b.s.AddTool(&mcp.Tool{Name: *t.ToolName, Description: desc, InputSchema: schema},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var in client.AgentRunRequest
				if raw := req.Params.Arguments; len(raw) > 0 && string(raw) != "null" {
					var args struct {
						Input    string         `json:"input"`
						Metadata map[string]any `json:"metadata"`
					}
					if err := decodeRaw(raw, &args); err != nil {
						return toolError(err), nil
					}
					in.Input, in.Metadata = args.Input, args.Metadata
				}
				run, err := runAndReport(ctx, b.c, req, agentID, in)
				if err != nil {
					return toolError(err), nil
				}
				return toolResult(run)
			})
	}
	return nil
}
