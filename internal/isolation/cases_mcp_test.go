package isolation

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Agents as MCP tools (an extension): B neither reads nor changes how A's
// agents are exposed, and lists none of them.
func init() {
	register(
		Case{Op: "GET /agents/{agent_id}/mcp-tool", Name: "B reads how A's agent is exposed", Setup: mcpToolOfA,
			Expect: NotFound(), Control: Status(http.StatusOK)},
		Case{Op: "PUT /agents/{agent_id}/mcp-tool", Name: "B hides A's agent", Setup: mcpToolOfA,
			Body: map[string]any{"enabled": false},
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				if got := c.AsA(t, http.MethodGet, "/agents/{agent_id}/mcp-tool", nil); !strings.Contains(string(got.Body), `"enabled":true`) {
					t.Errorf("B's attempt changed A's exposure: %s", got.Body)
				}
			},
			NoControl: true},
		Case{Op: "GET /agents/mcp-tools", Name: "B lists none of A's exposed agents", Setup: mcpToolOfA,
			Expect: Status(http.StatusOK, EmptyList("data")), Control: Status(http.StatusOK, NonEmptyList("data"))},
	)
}

// mcpToolOfA is A's agent, exposed as the tool a_secret_tool.
func mcpToolOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	v := agOfA(t, c)
	if r := c.AsA(t, http.MethodPut, "/agents/"+v["agent_id"]+"/mcp-tool", map[string]any{"enabled": true, "tool_name": "a_secret_tool"}); r.Status != http.StatusOK {
		t.Fatalf("expose: %d %s", r.Status, r.Body)
	}
	return v
}

type mcpHeaders http.Header

func (h mcpHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range h {
		r.Header[k] = vs
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPSurfaceIsolation is the MCP endpoint's table: B's MCP session, with
// B's key alone and with A's account in X-Account-Id, sees none of A's
// agents as tools, and every tool naming one of A's resources fails as the
// API's 404 does.
func TestMCPSurfaceIsolation(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c := &Ctx{Server: ts, A: ts.NewTenant(t, "a"), B: ts.NewTenant(t, "b")}
		v := mcpToolOfA(t, c)
		run := c.AsA(t, http.MethodPost, "/agents/"+v["agent_id"]+"/runs", map[string]any{"input": "zeppelin of A"})
		var started struct {
			RunID string `json:"run_id"`
		}
		run.JSON(t, &started)
		kbID := knOfA(t, c)["knowledge_base_id"]

		connect := func(t *testing.T, h http.Header) *mcp.ClientSession {
			cl := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "1"}, nil)
			s, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp",
				HTTPClient: &http.Client{Transport: mcpHeaders(h)}, MaxRetries: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		}
		// The control: A's own session offers A's agent.
		a := connect(t, http.Header{"X-Api-Key": {c.A.Key}})
		if !slices.Contains(toolNames(t, a), "a_secret_tool") {
			t.Fatal("A's session lacks A's agent tool: the cases below would prove nothing")
		}
		for _, variant := range []struct {
			name string
			h    http.Header
		}{
			{"B's key", http.Header{"X-Api-Key": {c.B.Key}}},
			{"B's key with X-Account-Id of A", http.Header{"X-Api-Key": {c.B.Key}, "X-Account-Id": {c.A.AccountID}}},
		} {
			t.Run(variant.name, func(t *testing.T) {
				b := connect(t, variant.h)
				if names := toolNames(t, b); slices.Contains(names, "a_secret_tool") {
					t.Errorf("B's session offers A's agent: %v", names)
				}
				if res, err := b.CallTool(context.Background(), &mcp.CallToolParams{Name: "a_secret_tool", Arguments: map[string]any{"input": "x"}}); err == nil && !res.IsError {
					t.Error("B ran A's agent tool")
				}
				for tool, args := range map[string]map[string]any{
					"get_agent":                       {"agent_id": v["agent_id"]},
					"get_agent_attachment_references": {"agent_id": v["agent_id"]},
					"run_agent":                       {"agent_id": v["agent_id"], "input": "x"},
					"get_agent_run":                   {"run_id": started.RunID},
					"cancel_agent_run":                {"run_id": started.RunID},
					"search_knowledge_base":           {"knowledge_base_id": kbID, "query": "zeppelin"},
				} {
					res, err := b.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
					if err != nil || !res.IsError || !strings.Contains(mcpText(res), "404") {
						t.Errorf("%s on A's resource: %v %s", tool, err, mcpText(res))
					}
				}
				for tool, args := range map[string]map[string]any{
					"list_agents":         {},
					"search_agent_traces": {"query": "zeppelin of A"},
				} {
					res, err := b.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
					if err != nil || res.IsError || strings.Contains(mcpText(res), v["agent_id"]) || strings.Contains(mcpText(res), "zeppelin") {
						t.Errorf("%s shows A's data: %v %s", tool, err, mcpText(res))
					}
				}
			})
		}
	})
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

func mcpText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
