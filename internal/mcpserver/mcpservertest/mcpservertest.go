// Package mcpservertest drives an MCP session through Agentry's tools, the
// same checks for every transport (HTTP in internal/mcpserver, stdio in
// cmd/agentry).
package mcpservertest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress collects the progress notifications a client receives.
type Progress struct {
	mu  sync.Mutex
	msg []string
}

func (p *Progress) Add(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	p.msg = append(p.msg, req.Params.Message)
	p.mu.Unlock()
}

func (p *Progress) All() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.msg)
}

// Call runs a tool and decodes its JSON answer; a tool error fails the test.
func Call(t *testing.T, s *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res := CallRaw(t, s, name, args, nil)
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, Text(res))
	}
	if out != nil {
		if err := json.Unmarshal([]byte(Text(res)), out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, Text(res))
		}
	}
}

// CallRaw runs a tool and returns its result as it is.
func CallRaw(t *testing.T, s *mcp.ClientSession, name string, args map[string]any, meta mcp.Meta) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	if meta != nil {
		p.Meta = meta
	}
	res, err := s.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func Text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func ToolNames(t *testing.T, s *mcp.ClientSession) []string {
	t.Helper()
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

const GreetDefinition = `{"child_steps":[{"id":"greet","step_type":"text","text":"Hello {{input}}",
	"child_steps":[{"id":"shout","step_type":"text","text":"{{input}}!"}]}]}`

// Exercise drives a connected session through the tools: the same checks
// run over HTTP here and over stdio in cmd/agentry.
func Exercise(t *testing.T, s *mcp.ClientSession, p *Progress) (agentID string) {
	t.Helper()
	names := ToolNames(t, s)
	for _, want := range []string{"list_agents", "get_agent", "create_agent", "run_agent", "get_agent_run", "cancel_agent_run",
		"search_agent_traces", "get_agent_attachment_references", "search_knowledge_base", "search_resources"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	var agent struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	Call(t, s, "create_agent", map[string]any{"name": "greeter", "agent_definition": json.RawMessage(GreetDefinition)}, &agent)
	if agent.ID == "" || agent.Name != "greeter" {
		t.Fatalf("created: %+v", agent)
	}
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	Call(t, s, "list_agents", map[string]any{"limit": 10}, &list)
	if len(list.Data) != 1 || list.Data[0].ID != agent.ID {
		t.Errorf("list_agents: %+v", list)
	}
	var resources struct {
		Results []struct {
			EntityType string `json:"entity_type"`
			ID         string `json:"id"`
		} `json:"results"`
	}
	Call(t, s, "search_resources", map[string]any{"q": "greet"}, &resources)
	if len(resources.Results) != 1 || resources.Results[0].ID != agent.ID || resources.Results[0].EntityType != "agent" {
		t.Errorf("search_resources: %+v", resources)
	}

	res := CallRaw(t, s, "run_agent", map[string]any{"agent_id": agent.ID, "input": "Ada"}, mcp.Meta{"progressToken": "run-1"})
	if res.IsError {
		t.Fatalf("run_agent: %s", Text(res))
	}
	var run struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
		Output string `json:"output"`
	}
	_ = json.Unmarshal([]byte(Text(res)), &run)
	if run.Status != "completed" || run.Output != "Hello Ada!" {
		t.Fatalf("run_agent: %s", Text(res))
	}
	if p != nil {
		// Notifications may trail the result by a moment.
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) && !hasEvent(p.All(), "done") {
			time.Sleep(20 * time.Millisecond)
		}
		got := p.All()
		for _, want := range []string{"init", "step_started", "step_completed", "done"} {
			if !hasEvent(got, want) {
				t.Errorf("no %s event among the progress notifications %q", want, got)
			}
		}
	}

	var got struct {
		Status string `json:"status"`
		Steps  []struct {
			AgentStepID string `json:"agent_step_id"`
			Output      string `json:"output"`
		} `json:"steps"`
	}
	Call(t, s, "get_agent_run", map[string]any{"run_id": run.RunID, "include_step_outputs": true}, &got)
	if got.Status != "completed" || len(got.Steps) != 2 || got.Steps[0].Output != "Hello Ada" {
		t.Errorf("get_agent_run: %+v", got)
	}
	var refs map[string]any
	Call(t, s, "get_agent_attachment_references", map[string]any{"agent_id": agent.ID}, &refs)
	if _, ok := refs["requires_uploads"]; !ok {
		t.Errorf("attachment references: %v", refs)
	}
	var found struct {
		Total int `json:"total"`
	}
	Call(t, s, "search_agent_traces", map[string]any{"query": "Hello Ada"}, &found)

	// Errors carry the API's message.
	res = CallRaw(t, s, "get_agent", map[string]any{"agent_id": "01900000-0000-7000-8000-000000000000"}, nil)
	if !res.IsError || !strings.Contains(Text(res), "404") {
		t.Errorf("get_agent of nothing: %s", Text(res))
	}
	res = CallRaw(t, s, "cancel_agent_run", map[string]any{"run_id": run.RunID}, nil)
	if !res.IsError || !strings.Contains(Text(res), "409") {
		t.Errorf("cancel of a finished run: %s", Text(res))
	}
	return agent.ID
}

func hasEvent(msgs []string, typ string) bool {
	for _, m := range msgs {
		if strings.HasPrefix(m, typ+" ") {
			return true
		}
	}
	return false
}
