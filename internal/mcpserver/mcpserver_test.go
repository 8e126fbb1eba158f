package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/mcpserver/mcpservertest"
	"github.com/agentry/agentry/internal/server"
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

func connect(t *testing.T, url string, headers http.Header, p *mcpservertest.Progress) (*mcp.ClientSession, error) {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if p != nil {
		opts.ProgressNotificationHandler = p.Add
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: headerTransport{headers}}, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { _ = s.Close() })
	}
	return s, err
}

func TestMCPOverHTTP(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		p := &mcpservertest.Progress{}
		sess, err := connect(t, s.URL+"/mcp", http.Header{"X-API-Key": {s.Key}}, p)
		if err != nil {
			t.Fatal(err)
		}
		agent := mcpservertest.Exercise(t, sess, p)

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

		// The agent exposed as a tool of its own: a new session lists it
		// with the API's schema, and calling it runs the agent.
		r := s.Do(t, "PUT", "/agents/"+agent+"/mcp-tool", s.Key, map[string]any{"enabled": true})
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"tool_name":"agent_greeter"`) {
			t.Fatalf("expose: %d %s", r.Status, r.Body)
		}
		sess2, err := connect(t, s.URL+"/mcp", http.Header{"X-API-Key": {s.Key}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tools, err := sess2.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var agentTool *mcp.Tool
		for _, tool := range tools.Tools {
			if tool.Name == "agent_greeter" {
				agentTool = tool
			}
		}
		if agentTool == nil {
			t.Fatalf("the exposed agent is not a tool: %v", tools.Tools)
		}
		if raw, _ := json.Marshal(agentTool.InputSchema); !strings.Contains(string(raw), `"required":["input"]`) {
			t.Errorf("agent tool schema: %s", raw)
		}
		res := mcpservertest.CallRaw(t, sess2, "agent_greeter", map[string]any{"input": "Grace"}, nil)
		if res.IsError || !strings.Contains(mcpservertest.Text(res), `"output":"Hello Grace!"`) {
			t.Errorf("agent tool: %s", mcpservertest.Text(res))
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
		mcpservertest.Call(t, os, "list_agents", nil, &list)
		if len(list.Data) != 0 {
			t.Errorf("another account lists %v", list.Data)
		}
		for _, tool := range []string{"get_agent", "get_agent_attachment_references", "run_agent"} {
			res := mcpservertest.CallRaw(t, os, tool, map[string]any{"agent_id": agent}, nil)
			if !res.IsError || !strings.Contains(mcpservertest.Text(res), "404") {
				t.Errorf("%s of another account's agent: %s", tool, mcpservertest.Text(res))
			}
		}
		names := mcpservertest.ToolNames(t, os)
		if slices.Contains(names, "agent_greeter") {
			t.Errorf("another account's session lists the first account's agent tool: %v", names)
		}
		if res, err := os.CallTool(context.Background(), &mcp.CallToolParams{Name: "agent_greeter", Arguments: map[string]any{"input": "x"}}); err == nil && !res.IsError {
			t.Errorf("another account called the first account's agent tool: %s", mcpservertest.Text(res))
		}
		for _, path := range []string{"/agents/" + agent + "/mcp-tool"} {
			if r := s.Do(t, "GET", path, other.Key, nil); r.Status != http.StatusNotFound {
				t.Errorf("GET %s by another account: %d", path, r.Status)
			}
			if r := s.Do(t, "PUT", path, other.Key, map[string]any{"enabled": true}); r.Status != http.StatusNotFound {
				t.Errorf("PUT %s by another account: %d", path, r.Status)
			}
		}
		if r := s.Do(t, "GET", "/agents/mcp-tools", other.Key, nil); r.Status != http.StatusOK || strings.Contains(string(r.Body), agent) {
			t.Errorf("another account's list: %d %s", r.Status, r.Body)
		}
		// X-Account-Id of an account the key does not belong to is ignored
		// for API keys, as by the API: still nothing of the first account.
		xs, err := connect(t, s.URL+"/mcp", http.Header{"X-API-Key": {other.Key}, "X-Account-Id": {s.AccountID}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		mcpservertest.Call(t, xs, "list_agents", nil, &list)
		if len(list.Data) != 0 {
			t.Errorf("X-Account-Id let another key list %v", list.Data)
		}
	})
}

func TestAgentMCPToolSettings(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		create := func(name, trigger string) string {
			body := map[string]any{"name": name, "agent_definition": json.RawMessage(`{"child_steps":[{"id":"a","step_type":"text","text":"x"}]}`)}
			if trigger != "" {
				body["trigger_type"] = trigger
			}
			r := s.Do(t, "POST", "/agents", s.Key, body)
			if r.Status != http.StatusCreated {
				t.Fatalf("create: %d %s", r.Status, r.Body)
			}
			var a struct{ ID string }
			r.JSON(t, &a)
			return a.ID
		}
		a, b := create("Weekly Report!", ""), create("other", "")
		r := s.Do(t, "GET", "/agents/"+a+"/mcp-tool", s.Key, nil)
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"enabled":false`) {
			t.Fatalf("get, not exposed: %d %s", r.Status, r.Body)
		}
		r = s.Do(t, "PUT", "/agents/"+a+"/mcp-tool", s.Key, map[string]any{"enabled": true})
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"tool_name":"agent_weekly_report"`) {
			t.Fatalf("expose: %d %s", r.Status, r.Body)
		}
		for _, c := range []struct {
			body   map[string]any
			status int
		}{
			{map[string]any{"enabled": true, "tool_name": "agent_weekly_report"}, http.StatusConflict},
			{map[string]any{"enabled": true, "tool_name": "run_agent"}, http.StatusUnprocessableEntity},
			{map[string]any{"enabled": true, "tool_name": "1bad name"}, http.StatusUnprocessableEntity},
			{map[string]any{"enabled": true, "description": strings.Repeat("x", 2000)}, http.StatusUnprocessableEntity},
			{map[string]any{"enabled": "yes"}, http.StatusUnprocessableEntity},
		} {
			if r := s.Do(t, "PUT", "/agents/"+b+"/mcp-tool", s.Key, c.body); r.Status != c.status {
				t.Errorf("PUT %v: %d %s", c.body, r.Status, r.Body)
			}
		}
		r = s.Do(t, "GET", "/agents/mcp-tools", s.Key, nil)
		var list struct {
			Data []struct {
				AgentID string `json:"agent_id"`
			} `json:"data"`
			Pagination struct{ Total int } `json:"pagination"`
		}
		r.JSON(t, &list)
		if len(list.Data) != 1 || list.Data[0].AgentID != a || list.Pagination.Total != 1 {
			t.Errorf("list: %s", r.Body)
		}
		// A paused agent is not offered; hiding it removes it.
		s.Do(t, "POST", "/agents/"+a+"/disable", s.Key, map[string]any{})
		if r := s.Do(t, "GET", "/agents/mcp-tools", s.Key, nil); strings.Contains(string(r.Body), a) {
			t.Errorf("a paused agent is listed: %s", r.Body)
		}
		s.Do(t, "POST", "/agents/"+a+"/enable", s.Key, nil)
		r = s.Do(t, "PUT", "/agents/"+a+"/mcp-tool", s.Key, map[string]any{"enabled": false})
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"enabled":false`) {
			t.Errorf("hide: %d %s", r.Status, r.Body)
		}
		if r := s.Do(t, "GET", "/agents/"+"01900000-0000-7000-8000-000000000000"+"/mcp-tool", s.Key, nil); r.Status != http.StatusNotFound {
			t.Errorf("unknown agent: %d", r.Status)
		}
	})
}

// Requests to /mcp without usable credentials count against the client
// address's failed sign-ins like the API's own: past the allowance, 429.
func TestMCPCountsFailedSignIns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.AuthFailureRate, c.AuthFailureBurst = 0.001, 3 })
		codes := []int{}
		for range 5 {
			resp, err := http.Post(s.URL+"/mcp", "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			codes = append(codes, resp.StatusCode)
		}
		if codes[0] != http.StatusUnauthorized || codes[4] != http.StatusTooManyRequests {
			t.Fatalf("bare POSTs to /mcp answered %v, want 401 then 429", codes)
		}
		// The API's own sign-ins from that address are refused too.
		r := s.Do(t, "GET", "/me", "agk_wrong", nil)
		if r.Status != http.StatusTooManyRequests {
			t.Fatalf("the API after failed MCP sign-ins: %d", r.Status)
		}
	})
}
