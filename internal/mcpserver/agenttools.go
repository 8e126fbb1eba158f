package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	"github.com/agentry/agentry/client"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// agentToolSet remembers which tools are exposed agents, and what each
// was offered as: only a change is applied, since every change notifies
// the client, which may list the tools again in answer.
type agentToolSet struct {
	mu    sync.Mutex
	names map[string]string // tool name → fingerprint (agent, description, schema)
}

// syncAgentTools offers a tool for each agent the account exposes (GET
// /agents/mcp-tools), and withdraws those no longer exposed: each tool's
// name, description and input schema come from the API, and a call runs
// the agent and waits, like run_agent.
func (b builder) syncAgentTools(ctx context.Context) error {
	list, _, err := b.c.ListAgentMCPTools(ctx, 1, maxAgentTools)
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound {
		return nil // a server without the extension: no agent tools
	}
	if err != nil {
		return err
	}
	b.agents.mu.Lock()
	defer b.agents.mu.Unlock()
	now := map[string]string{}
	for _, t := range list {
		if t.ToolName != nil {
			now[*t.ToolName] = fingerprint(t)
		}
	}
	var gone []string
	for name := range b.agents.names {
		if _, ok := now[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		b.s.RemoveTools(gone...)
	}
	previous := b.agents.names
	b.agents.names = now
	for _, t := range list {
		if t.ToolName == nil || previous[*t.ToolName] == now[*t.ToolName] {
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

func fingerprint(t client.AgentMCPTool) string {
	raw, _ := json.Marshal([]any{t.AgentID, t.Description, t.InputSchema})
	return string(raw)
}
