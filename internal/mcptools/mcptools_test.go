package mcptools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// secretValue is the account secret the agent's MCP server wants; the
// test looks for it everywhere a run leaves traces.
const secretValue = "mcp-secret-9f8e7d6c5b4a3210"

// ordersServer is a loopback MCP server built with the SDK: lookup_order
// answers an order's status (and echoes the Authorization header it got,
// as a careless server might), slow_tool outlasts any short timeout.
type ordersServer struct {
	URL    string
	lists  atomic.Int32
	calls  atomic.Int32
	denied atomic.Int32
}

func startOrdersServer(t *testing.T) *ordersServer {
	t.Helper()
	o := &ordersServer{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	type lookupIn struct {
		OrderID string `json:"order_id" jsonschema:"the order's number"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "lookup_order", Description: "Status of an order."},
		func(ctx context.Context, req *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, any, error) {
			o.calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
				Text: "order " + in.OrderID + " shipped on 2026-11-20 (you sent " + req.Extra.Header.Get("Authorization") + ")"}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "slow_tool", Description: "Takes long."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Second):
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil, nil
		})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				o.lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secretValue {
			o.denied.Add(1)
			http.Error(w, "bad token "+r.Header.Get("Authorization"), http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	o.URL = hs.URL
	return o
}

func agentDef(serverURL, auth string, extra string) string {
	return `{"child_steps":[{"id":"ask","step_type":"prompt_call","model":"openai_gpt_4o_mini",
	"prompt_template":"{{input}}","tools":[{"type":"mcp","server_label":"orders","server_url":"` + serverURL + `",
	"headers":{"Authorization":"` + auth + `"}` + extra + `}],
	"child_steps":[{"id":"again","step_type":"prompt_call","model":"openai_gpt_4o_mini","prompt_template":"Summarise: {{input}}",
	"tools":[{"type":"mcp","server_label":"orders","server_url":"` + serverURL + `","headers":{"Authorization":"` + auth + `"}` + extra + `}]}]}]}`
}

// logBuffer captures the process's log lines for the test's duration.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func captureLogs(t *testing.T) *logBuffer {
	buf := &logBuffer{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return buf
}

func createAgent(t *testing.T, s *testserver.Server, def string) string {
	t.Helper()
	r := s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "orders helper", "agent_definition": json.RawMessage(def)})
	if r.Status != http.StatusCreated {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	var a struct {
		ID string `json:"id"`
	}
	r.JSON(t, &a)
	return a.ID
}

func run(t *testing.T, s *testserver.Server, agent, input string) runs.RunResponse {
	t.Helper()
	r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": input})
	if r.Status != http.StatusOK {
		t.Fatalf("run: %d %s", r.Status, r.Body)
	}
	var started struct {
		RunID string `json:"run_id"`
	}
	r.JSON(t, &started)
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := s.Do(t, "GET", "/agents/runs/"+started.RunID+"?include_step_outputs=true", s.Key, nil)
		var snap runs.RunResponse
		r.JSON(t, &snap)
		if runs.RunTerminal(snap.Status) {
			return snap
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %s", started.RunID, snap.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// toolCalls are the run's recorded tool calls, all steps together.
func toolCalls(t *testing.T, r runs.RunResponse) []engine.ToolCall {
	t.Helper()
	var out []engine.ToolCall
	for _, st := range r.Steps {
		var calls []engine.ToolCall
		if len(st.ToolCalls) > 0 {
			if err := json.Unmarshal(st.ToolCalls, &calls); err != nil {
				t.Fatalf("tool_calls of %s: %v", st.AgentStepID, err)
			}
		}
		out = append(out, calls...)
	}
	return out
}

// noSecret fails when the secret's value appears in what.
func noSecret(t *testing.T, where, what string) {
	t.Helper()
	if strings.Contains(what, secretValue) {
		t.Errorf("the secret's value appears in %s", where)
	}
}

func TestPromptCallUsesMCPServerTools(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		logs := captureLogs(t)
		orders := startOrdersServer(t)
		fakes, opt := playgroundtest.Start(t)
		s := testserver.Start(t, d, opt, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		if r := s.Do(t, "PUT", "/secrets/ORDERS_TOKEN", s.Key, map[string]any{"value": secretValue, "hosts": []string{hostOf(orders.URL)}}); r.Status != http.StatusCreated {
			t.Fatalf("secret: %d %s", r.Status, r.Body)
		}
		agent := createAgent(t, s, agentDef(orders.URL, "Bearer {{secrets.ORDERS_TOKEN}}", ""))

		fakes.OpenAI.Enqueue(
			fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "call_1", Name: "orders__lookup_order", Arguments: `{"order_id":"42"}`}}, Usage: fakellm.Usage{Input: 10, Output: 5}},
			fakellm.Reply{Text: "Order 42 has shipped.", Usage: fakellm.Usage{Input: 30, Output: 6}},
			fakellm.Reply{Text: "Shipped.", Usage: fakellm.Usage{Input: 12, Output: 2}},
		)
		done := run(t, s, agent, "Where is order 42?")
		if done.Status != "completed" || done.Output == nil || *done.Output != "Shipped." {
			t.Fatalf("run: %+v", done)
		}
		if orders.calls.Load() != 1 {
			t.Errorf("the MCP tool ran %d times, want 1", orders.calls.Load())
		}
		// Two steps offered the same server: its tools were listed once for the run.
		if orders.lists.Load() != 1 {
			t.Errorf("tools/list requests: %d, want 1 (cached per run)", orders.lists.Load())
		}
		reqs := fakes.OpenAI.Requests()
		if len(reqs) != 3 {
			t.Fatalf("model calls: %d", len(reqs))
		}
		first := string(reqs[0].Body)
		if !strings.Contains(first, `"orders__lookup_order"`) || !strings.Contains(first, `"orders__slow_tool"`) || !strings.Contains(first, "order_id") {
			t.Errorf("the model was not offered the server's tools: %s", first)
		}
		// The tool's result went back to the model, the secret blanked out.
		second := string(reqs[1].Body)
		if !strings.Contains(second, "order 42 shipped on 2026-11-20") || !strings.Contains(second, "[secret]") {
			t.Errorf("the tool result did not reach the model: %s", second)
		}
		for i, r := range reqs {
			noSecret(t, "model request "+string(rune('0'+i)), string(r.Body))
		}
		calls := toolCalls(t, done)
		if len(calls) != 1 || calls[0].Name != "orders__lookup_order" || !calls[0].Succeeded || !strings.Contains(calls[0].Result, "shipped") {
			t.Fatalf("tool calls: %+v", calls)
		}
		raw, _ := json.Marshal(done)
		noSecret(t, "the run", string(raw))

		exp := s.Do(t, "GET", "/agents/"+agent+"/export", s.Key, nil)
		if exp.Status != http.StatusOK || !strings.Contains(string(exp.Body), "{{secrets.ORDERS_TOKEN}}") {
			t.Fatalf("export: %d %s", exp.Status, exp.Body)
		}
		noSecret(t, "the export", string(exp.Body))
		def := s.Do(t, "GET", "/agents/"+agent+"/definition", s.Key, nil)
		noSecret(t, "the definition", string(def.Body))

		evs, err := s.S.Bus.Read(context.Background(), s.AccountID, done.RunID, 0, 1000)
		if err != nil || len(evs) == 0 {
			t.Fatalf("events: %d %v", len(evs), err)
		}
		rawEvs, _ := json.Marshal(evs)
		noSecret(t, "the run's events", string(rawEvs))
		noSecret(t, "the logs", logs.String())
	})
}

func TestMCPToolFailuresAreCleanAndSecretFree(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		logs := captureLogs(t)
		orders := startOrdersServer(t)
		fakes, opt := playgroundtest.Start(t)
		s := testserver.Start(t, d, opt, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		s.Do(t, "PUT", "/secrets/ORDERS_TOKEN", s.Key, map[string]any{"value": secretValue, "hosts": []string{hostOf(orders.URL)}})

		// A call that outlasts timeout_seconds fails as a tool call; the
		// model reads the failure and answers.
		agent := createAgent(t, s, agentDef(orders.URL, "Bearer {{secrets.ORDERS_TOKEN}}", `,"timeout_seconds":1`))
		fakes.OpenAI.Enqueue(
			fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "call_1", Name: "orders__slow_tool", Arguments: `{}`}}},
			fakellm.Reply{Text: "The tool was too slow."},
			fakellm.Reply{Text: "Too slow."},
		)
		start := time.Now()
		done := run(t, s, agent, "try the slow one")
		if done.Status != "completed" {
			t.Fatalf("run: %+v", done)
		}
		if time.Since(start) > 15*time.Second {
			t.Errorf("the timed-out call held the run for %s", time.Since(start))
		}
		tc := toolCalls(t, done)
		if len(tc) != 1 || tc[0].Succeeded || tc[0].Error == nil || !strings.Contains(*tc[0].Error, "timed out after 1s") {
			t.Fatalf("tool call: %+v", tc)
		}

		// A server that refuses the credential: the step fails with an
		// error that does not repeat the header (the server echoes it).
		s.Do(t, "PUT", "/secrets/WRONG_TOKEN", s.Key, map[string]any{"value": secretValue + "-wrong", "hosts": []string{hostOf(orders.URL)}})
		bad := createAgent(t, s, agentDef(orders.URL, "Bearer {{secrets.WRONG_TOKEN}}", ""))
		done = run(t, s, bad, "anything")
		if done.Status != "failed" || orders.denied.Load() == 0 {
			t.Fatalf("run with a refused credential: %+v", done)
		}
		raw, _ := json.Marshal(done)
		if !strings.Contains(string(raw), "MCP server orders") {
			t.Errorf("the failure does not name the server: %s", raw)
		}
		noSecret(t, "the failed run", string(raw))

		// A model that never stops calling: MCP calls count toward the
		// step's tool rounds (8), then the step ends with what it has.
		before := orders.calls.Load()
		fakes.OpenAI.SetDefault(fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "call_n", Name: "orders__lookup_order", Arguments: `{"order_id":"7"}`}}})
		loop := createAgent(t, s, agentDef(orders.URL, "Bearer {{secrets.ORDERS_TOKEN}}", ""))
		done = run(t, s, loop, "again and again")
		if n := len(toolCalls(t, done)); n != 16 || orders.calls.Load()-before != 16 {
			t.Errorf("tool calls past the round limit: recorded %d, made %d, want 8 per step", n, orders.calls.Load()-before)
		}
		fakes.OpenAI.SetDefault(fakellm.Reply{Text: "ok"})

		// A secret the account does not have fails the step by name.
		missing := createAgent(t, s, agentDef(orders.URL, "Bearer {{secrets.NOT_THERE}}", ""))
		done = run(t, s, missing, "anything")
		raw, _ = json.Marshal(done)
		if done.Status != "failed" || !strings.Contains(string(raw), "NOT_THERE") {
			t.Fatalf("run with a missing secret: %s", raw)
		}
		noSecret(t, "the logs", logs.String())
	})
}

func TestMCPServerBehindOutboundGuard(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		orders := startOrdersServer(t)
		fakes, opt := playgroundtest.Start(t)
		s := testserver.Start(t, d, opt) // private addresses refused (the default)
		s.Do(t, "PUT", "/secrets/ORDERS_TOKEN", s.Key, map[string]any{"value": secretValue, "hosts": []string{hostOf(orders.URL)}})
		agent := createAgent(t, s, agentDef(orders.URL, "Bearer {{secrets.ORDERS_TOKEN}}", ""))
		fakes.OpenAI.SetDefault(fakellm.Reply{Text: "unused"})
		done := run(t, s, agent, "x")
		raw, _ := json.Marshal(done)
		if done.Status != "failed" || !strings.Contains(string(raw), "private or loopback") {
			t.Fatalf("a loopback MCP server was reached: %s", raw)
		}
		if orders.lists.Load()+orders.denied.Load() != 0 {
			t.Error("the guard let a request through")
		}
	})
}

func TestDefinitionRefusesLiteralCredentials(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		for _, def := range []string{
			agentDef("https://mcp.example.com/mcp", "Bearer literal-token", ""),
			agentDef("https://mcp.example.com/mcp", "Bearer {{secret.X}}", ""),
			agentDef("https://{{secrets.X}}@mcp.example.com/mcp", "Bearer {{secrets.X}}", ""),
			agentDef("ftp://mcp.example.com/", "Bearer {{secrets.X}}", ""),
		} {
			r := s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "bad", "agent_definition": json.RawMessage(def)})
			if r.Status != http.StatusUnprocessableEntity && r.Status != http.StatusBadRequest {
				t.Errorf("accepted %s: %d %s", def, r.Status, r.Body)
			}
			// The import error echoes the submitted payload (its own
			// input); its messages do not repeat the header value.
			var body struct {
				Errors []struct{ Message string }
			}
			_ = json.Unmarshal(r.Body, &body)
			for _, e := range body.Errors {
				if strings.Contains(e.Message, "literal-token") {
					t.Errorf("the error repeats the header value: %s", e.Message)
				}
			}
		}
	})
}

// hostOf is the host:port of a loopback server's URL.
func hostOf(rawURL string) string {
	return strings.TrimPrefix(strings.TrimPrefix(rawURL, "http://"), "https://")
}

// TestMemberCannotSendOwnersSecretToOwnListener is the probe's attack: an
// owner stores a token for the orders server; a member of the account
// writes an agent whose MCP tool points at the member's own listener with
// "Bearer {{secrets.ORDERS_TOKEN}}", and runs it. The listener receives
// nothing; the run fails naming the secret and the host it is bound to. A
// secret stored before binding existed is sent nowhere.
func TestMemberCannotSendOwnersSecretToOwnListener(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		orders := startOrdersServer(t)
		var mu sync.Mutex
		var got []string
		listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got = append(got, r.Method+" "+r.URL.String()+" "+r.Header.Get("Authorization"))
			mu.Unlock()
			http.Error(w, "nothing here", http.StatusNotFound)
		}))
		defer listener.Close()
		fakes, opt := playgroundtest.Start(t)
		fakes.OpenAI.SetDefault(fakellm.Reply{Text: "done"})
		s := testserver.Start(t, d, opt, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		if r := s.Do(t, "PUT", "/secrets/ORDERS_TOKEN", s.Key, map[string]any{"value": secretValue, "hosts": []string{hostOf(orders.URL)}}); r.Status != http.StatusCreated {
			t.Fatalf("secret: %d %s", r.Status, r.Body)
		}
		member := s.IssueKey(t, s.AccountID, s.UserID, store.RoleMember)
		attack := func(name string) runs.RunResponse {
			t.Helper()
			r := s.Do(t, "POST", "/agents", member, map[string]any{"name": name,
				"agent_definition": json.RawMessage(agentDef(listener.URL, "Bearer {{secrets.ORDERS_TOKEN}}", ""))})
			if r.Status != http.StatusCreated {
				t.Fatalf("the member's agent: %d %s", r.Status, r.Body)
			}
			var a struct {
				ID string `json:"id"`
			}
			r.JSON(t, &a)
			r = s.Do(t, "POST", "/agents/"+a.ID+"/runs", member, map[string]any{"input": "order 42?"})
			if r.Status != http.StatusOK {
				t.Fatalf("the member's run: %d %s", r.Status, r.Body)
			}
			var started struct {
				RunID string `json:"run_id"`
			}
			r.JSON(t, &started)
			deadline := time.Now().Add(30 * time.Second)
			for {
				var snap runs.RunResponse
				s.Do(t, "GET", "/agents/runs/"+started.RunID+"?include_step_outputs=true", member, nil).JSON(t, &snap)
				if runs.RunTerminal(snap.Status) {
					return snap
				}
				if time.Now().After(deadline) {
					t.Fatalf("run still %s", snap.Status)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		done := attack("exfiltrate")
		raw, _ := json.Marshal(done)
		if done.Status != "failed" || !strings.Contains(string(raw), `ORDERS_TOKEN`) || !strings.Contains(string(raw), "bound to "+hostOf(orders.URL)) {
			t.Errorf("the member's run: %s", raw)
		}
		noSecret(t, "the member's run", string(raw))
		mu.Lock()
		if len(got) != 0 {
			t.Errorf("the member's listener received %d requests: %q", len(got), got)
		}
		mu.Unlock()

		// A secret stored before binding existed goes nowhere at all.
		if _, err := s.DB.W.ExecContext(context.Background(), `UPDATE account_secrets SET hosts = NULL WHERE name = 'ORDERS_TOKEN'`); err != nil {
			t.Fatal(err)
		}
		done = attack("exfiltrate unbound")
		raw, _ = json.Marshal(done)
		if done.Status != "failed" || !strings.Contains(string(raw), "bound to no host") {
			t.Errorf("unbound secret: %s", raw)
		}
		mu.Lock()
		if len(got) != 0 {
			t.Errorf("the member's listener received %d requests: %q", len(got), got)
		}
		mu.Unlock()
		if orders.calls.Load()+orders.lists.Load() != 0 {
			t.Errorf("the orders server was used")
		}
	})
}
