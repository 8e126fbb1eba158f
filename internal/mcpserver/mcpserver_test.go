package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerTransport sends fixed headers (the caller's credentials) with
// every request of an MCP client.
type headerTransport struct{ h http.Header }

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.h {
		r.Header[k] = vs
	}
	return http.DefaultTransport.RoundTrip(r)
}

// progress collects the progress notifications a client receives.
type progress struct {
	mu  sync.Mutex
	msg []string
}

func (p *progress) add(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	p.msg = append(p.msg, req.Params.Message)
	p.mu.Unlock()
}

func (p *progress) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.msg)
}

func connect(t *testing.T, url string, headers http.Header, p *progress) (*mcp.ClientSession, error) {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if p != nil {
		opts.ProgressNotificationHandler = p.add
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: headerTransport{headers}}, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { _ = s.Close() })
	}
	return s, err
}

// call runs a tool and decodes its JSON answer; a tool error fails the test.
func call(t *testing.T, s *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res := callRaw(t, s, name, args, nil)
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, text(res))
	}
	if out != nil {
		if err := json.Unmarshal([]byte(text(res)), out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, text(res))
		}
	}
}

func callRaw(t *testing.T, s *mcp.ClientSession, name string, args map[string]any, meta mcp.Meta) *mcp.CallToolResult {
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

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func toolNames(t *testing.T, s *mcp.ClientSession) []string {
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

const greetDef = `{"child_steps":[{"id":"greet","step_type":"text","text":"Hello {{input}}",
	"child_steps":[{"id":"shout","step_type":"text","text":"{{input}}!"}]}]}`

// Exercise drives a connected session through the tools: the same checks
// run over HTTP here and over stdio in cmd/agentry.
func Exercise(t *testing.T, s *mcp.ClientSession, p *progress) (agentID string) {
	t.Helper()
	names := toolNames(t, s)
	for _, want := range []string{"list_agents", "get_agent", "create_agent", "run_agent", "get_agent_run", "cancel_agent_run",
		"search_agent_traces", "get_agent_attachment_references", "search_knowledge_base"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	var agent struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	call(t, s, "create_agent", map[string]any{"name": "greeter", "agent_definition": json.RawMessage(greetDef)}, &agent)
	if agent.ID == "" || agent.Name != "greeter" {
		t.Fatalf("created: %+v", agent)
	}
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	call(t, s, "list_agents", map[string]any{"limit": 10}, &list)
	if len(list.Data) != 1 || list.Data[0].ID != agent.ID {
		t.Errorf("list_agents: %+v", list)
	}

	res := callRaw(t, s, "run_agent", map[string]any{"agent_id": agent.ID, "input": "Ada"}, mcp.Meta{"progressToken": "run-1"})
	if res.IsError {
		t.Fatalf("run_agent: %s", text(res))
	}
	var run struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
		Output string `json:"output"`
	}
	_ = json.Unmarshal([]byte(text(res)), &run)
	if run.Status != "completed" || run.Output != "Hello Ada!" {
		t.Fatalf("run_agent: %s", text(res))
	}
	if p != nil {
		// Notifications may trail the result by a moment.
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) && !hasEvent(p.all(), "done") {
			time.Sleep(20 * time.Millisecond)
		}
		got := p.all()
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
	call(t, s, "get_agent_run", map[string]any{"run_id": run.RunID, "include_step_outputs": true}, &got)
	if got.Status != "completed" || len(got.Steps) != 2 || got.Steps[0].Output != "Hello Ada" {
		t.Errorf("get_agent_run: %+v", got)
	}
	var refs map[string]any
	call(t, s, "get_agent_attachment_references", map[string]any{"agent_id": agent.ID}, &refs)
	if _, ok := refs["requires_uploads"]; !ok {
		t.Errorf("attachment references: %v", refs)
	}
	var found struct {
		Total int `json:"total"`
	}
	call(t, s, "search_agent_traces", map[string]any{"query": "Hello Ada"}, &found)

	// Errors carry the API's message.
	res = callRaw(t, s, "get_agent", map[string]any{"agent_id": "01900000-0000-7000-8000-000000000000"}, nil)
	if !res.IsError || !strings.Contains(text(res), "404") {
		t.Errorf("get_agent of nothing: %s", text(res))
	}
	res = callRaw(t, s, "cancel_agent_run", map[string]any{"run_id": run.RunID}, nil)
	if !res.IsError || !strings.Contains(text(res), "409") {
		t.Errorf("cancel of a finished run: %s", text(res))
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

func TestMCPOverHTTP(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		p := &progress{}
		sess, err := connect(t, s.URL+"/mcp", http.Header{"X-API-Key": {s.Key}}, p)
		if err != nil {
			t.Fatal(err)
		}
		agent := Exercise(t, sess, p)

		// Without credentials, or with a wrong key, the API's 401.
		if _, err := connect(t, s.URL+"/mcp", http.Header{}, nil); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("no credentials: %v", err)
		}
		if _, err := connect(t, s.URL+"/mcp", http.Header{"X-API-Key": {"agk_wrong"}}, nil); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Errorf("wrong key: %v", err)
		}
		resp, err := http.Post(s.URL+"/mcp", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("bare POST: %d", resp.StatusCode)
		}

		// Another account sees nothing of the first's.
		other := s.NewTenant(t, "other")
		os, err := connect(t, s.URL+"/mcp", http.Header{"X-API-Key": {other.Key}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Data []struct{ ID string } `json:"data"`
		}
		call(t, os, "list_agents", nil, &list)
		if len(list.Data) != 0 {
			t.Errorf("another account lists %v", list.Data)
		}
		for _, tool := range []string{"get_agent", "get_agent_attachment_references", "run_agent"} {
			res := callRaw(t, os, tool, map[string]any{"agent_id": agent}, nil)
			if !res.IsError || !strings.Contains(text(res), "404") {
				t.Errorf("%s of another account's agent: %s", tool, text(res))
			}
		}
		// X-Account-Id of an account the key does not belong to is ignored
		// for API keys, as by the API: still nothing of the first account.
		xs, err := connect(t, s.URL+"/mcp", http.Header{"X-API-Key": {other.Key}, "X-Account-Id": {s.AccountID}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		call(t, xs, "list_agents", nil, &list)
		if len(list.Data) != 0 {
			t.Errorf("X-Account-Id let another key list %v", list.Data)
		}
	})
}
