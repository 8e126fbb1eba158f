package telemetry_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/telemetry/otlptest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// traceTo points the servers started after it at receiver r (protocol
// http/protobuf or grpc), sampling every trace, exporting every 10 ms.
func traceTo(t *testing.T, r *otlptest.Receiver, protocol string) {
	t.Helper()
	switch protocol {
	case "grpc":
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+r.GRPCAddr)
	default:
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.HTTPURL)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
	t.Setenv("OTEL_TRACES_SAMPLER", "always_on")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "10")
	t.Setenv("OTEL_SERVICE_NAME", "agentry-test")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test")
	t.Setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "")
}

// fakeModel serves chat completions on loopback as the openai provider.
func fakeModel(t *testing.T) *fakellm.Server {
	fake := fakellm.NewOpenAI(t)
	t.Setenv("OPENAI_BASE_URL", fake.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	return fake
}

func wantStatus(t *testing.T, r testserver.Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
}

// knowledgeBase makes a knowledge base over one indexed text.
func knowledgeBase(t *testing.T, s *testserver.Server, text string) string {
	t.Helper()
	r := s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Notes", "source_type": "file_uploads"})
	wantStatus(t, r, http.StatusCreated)
	var src map[string]any
	r.JSON(t, &src)
	sid := src["id"].(string)
	r = s.Do(t, "POST", "/sources/"+sid, s.Key, map[string]any{"text": text, "content_type": "text/markdown", "title": "Otters"})
	wantStatus(t, r, http.StatusOK)
	var up map[string]any
	r.JSON(t, &up)
	content := up["source_connection_content_version_id"].(string)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var c map[string]any
		s.Do(t, "GET", "/contents/"+content, s.Key, nil).JSON(t, &c)
		if c["content_status"] == "indexed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("content not indexed: %v", c)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r = s.Do(t, "POST", "/knowledge_bases", s.Key, map[string]any{"name": "KB", "source_ids": []string{sid}})
	wantStatus(t, r, http.StatusCreated)
	var kb map[string]any
	r.JSON(t, &kb)
	return kb["id"].(string)
}

// startRun starts a run over HTTP with the given headers and returns its id.
func startRun(t *testing.T, s *testserver.Server, agentID, input string, headers ...string) string {
	t.Helper()
	r := s.Do(t, "POST", "/agents/"+agentID+"/runs", s.Key, map[string]any{"input": input}, headers...)
	wantStatus(t, r, http.StatusOK)
	var out map[string]any
	r.JSON(t, &out)
	return out["run_id"].(string)
}

func waitRun(t *testing.T, s *testserver.Server, runID string) runs.RunResponse {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var snap runs.RunResponse
		r := s.Do(t, "GET", "/agents/runs/"+runID, s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &snap)
		if runs.RunTerminal(snap.Status) || snap.Status == runs.RunWaitingHuman {
			return snap
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %s", runID, snap.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// callerSpan is the span id of the caller's traceparent; each test
// makes a trace id of its own (newTraceID), as callers do.
const callerSpan = "00f067aa0ba902b7"

func newTraceID(t *testing.T) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// TestRunTrace runs an agent with a retrieval, a model call and a tool
// call, started by a request that carries a traceparent, and checks the
// whole trace as a real OTLP receiver got it: one trace, the caller's;
// the request's span under the caller's; the run's invoke_agent span
// under the request's, with its ids; each step under the run; the
// retrieval, the model calls and the tool call under their steps, with
// the GenAI attributes; the model's HTTP requests carrying traceparent;
// no message content (not opted in); the run's trace_id in its snapshot.
// Over HTTP/protobuf on SQLite, over gRPC on PostgreSQL.
func TestRunTrace(t *testing.T) {
	recv := otlptest.Start(t)
	fake := fakeModel(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		protocol := "http/protobuf"
		if d == store.Postgres {
			protocol = "grpc"
		}
		traceTo(t, recv, protocol)
		s := testserver.Start(t, d, func(c *server.Config) { c.NodeName = "replica-a" })
		kb := knowledgeBase(t, s, "# Sea otters\n\nSea otters hold hands while they sleep so they do not drift apart.")
		agent := s.StoreAgent(t, s.AccountID, "Otter helper", `{"child_steps":[
			{"id":"find","step_type":"retrieval","knowledge_base_id":"`+kb+`","query":"{{input}}","top_k":3,"child_steps":[
				{"id":"answer","step_type":"prompt_call","model":"openai_gpt_4o_mini","prompt_template":"Passages: {{input}}","tools":["current_datetime"]}]}]}`,
			"dynamic_input")
		fake.Enqueue(
			fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "call_1", Name: "current_datetime", Arguments: `{}`}}, Usage: fakellm.Usage{Input: 40, Output: 5}},
			fakellm.Reply{Text: "They hold hands.", Usage: fakellm.Usage{Input: 60, Output: 7}})
		before := len(fake.Requests())
		callerTrace := newTraceID(t)
		traceparent := "traceparent: 00-" + callerTrace + "-" + callerSpan + "-01"
		runID := startRun(t, s, agent, "why do otters hold hands", traceparent)
		snap := waitRun(t, s, runID)
		if snap.Status != runs.RunCompleted {
			t.Fatalf("run %s: %v", snap.Status, snap.Output)
		}
		if snap.TraceID != callerTrace {
			t.Fatalf("snapshot trace_id %q, want the caller's %s", snap.TraceID, callerTrace)
		}

		var run otlptest.Span
		spans := recv.WaitTrace(t, callerTrace, 20*time.Second, func(ss []otlptest.Span) bool {
			for _, s := range ss {
				if s.Attrs["agentry.run.id"] == runID && strings.HasPrefix(s.Name, "invoke_agent") {
					run = s
				}
			}
			return run.SpanID != "" && len(otlptest.Named(ss, "job agent_run")) > 0 && len(otlptest.Named(ss, "chat openai_gpt_4o_mini")) >= 2
		})
		// Only this run's spans: the receiver is shared by both databases.
		mine := func(ss []otlptest.Span) []otlptest.Span {
			var out []otlptest.Span
			for _, s := range ss {
				if s.Resource["service.instance.id"] == "replica-a" && !s.Start.Before(run.Start.Add(-time.Second)) {
					out = append(out, s)
				}
			}
			return out
		}
		spans = mine(spans)
		req := otlptest.One(t, spans, "POST /agents/{agent_id}/runs")
		if req.ParentID != callerSpan || req.Kind != 2 /* server */ || req.Attrs["http.response.status_code"] != int64(200) {
			t.Errorf("request span: parent %s kind %v attrs %v", req.ParentID, req.Kind, req.Attrs)
		}
		if run.Name != "invoke_agent Otter helper" || run.ParentID != req.SpanID {
			t.Errorf("run span %q under %s, want under the request %s", run.Name, run.ParentID, req.SpanID)
		}
		for k, v := range map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": agent, "gen_ai.agent.name": "Otter helper",
			"agentry.account.id": s.AccountID, "agentry.run.trigger": "dynamic_input", "agentry.run.status": "completed"} {
			if run.Attrs[k] != v {
				t.Errorf("run span %s = %v, want %v", k, run.Attrs[k], v)
			}
		}
		if run.Resource["service.name"] != "agentry-test" || run.Resource["deployment.environment"] != "test" {
			t.Errorf("resource: %v", run.Resource)
		}
		job := otlptest.One(t, spans, "job agent_run")
		if job.ParentID != run.SpanID {
			t.Errorf("the run's job is under %s, not the run %s", job.ParentID, run.SpanID)
		}
		find, answer := otlptest.One(t, spans, "step find"), otlptest.One(t, spans, "step answer")
		for _, st := range []otlptest.Span{find, answer} {
			if st.ParentID != run.SpanID || st.Attrs["agentry.step.status"] != "completed" || st.Attrs["agentry.step.attempt"] != int64(1) {
				t.Errorf("step %s: parent %s attrs %v", st.Name, st.ParentID, st.Attrs)
			}
		}
		if find.Attrs["agentry.step.type"] != "retrieval" || answer.Attrs["agentry.step.type"] != "prompt_call" {
			t.Errorf("step types: %v / %v", find.Attrs, answer.Attrs)
		}
		ret := otlptest.One(t, spans, "retrieval "+kb)
		if ret.ParentID != find.SpanID || ret.Attrs["gen_ai.data_source.id"] != kb || ret.Attrs["gen_ai.request.top_k"] != int64(3) ||
			ret.Attrs["agentry.retrieval.hits"].(int64) < 1 {
			t.Errorf("retrieval span: parent %s attrs %v", ret.ParentID, ret.Attrs)
		}
		chats := otlptest.Named(spans, "chat openai_gpt_4o_mini")
		if len(chats) != 2 {
			t.Fatalf("%d chat spans", len(chats))
		}
		var in, out int64
		for _, c := range chats {
			if c.ParentID != answer.SpanID || c.Kind != 3 /* client */ || c.Attrs["gen_ai.provider.name"] != "openai" ||
				c.Attrs["gen_ai.request.model"] != "openai_gpt_4o_mini" || c.Attrs["gen_ai.operation.name"] != "chat" {
				t.Errorf("chat span: parent %s attrs %v", c.ParentID, c.Attrs)
			}
			in += c.Attrs["gen_ai.usage.input_tokens"].(int64)
			out += c.Attrs["gen_ai.usage.output_tokens"].(int64)
			if _, ok := c.Attrs["agentry.credits"]; !ok {
				t.Errorf("chat span without credits: %v", c.Attrs)
			}
			if _, ok := c.Attrs["gen_ai.input.messages"]; ok {
				t.Errorf("message content captured without OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: %v", c.Attrs)
			}
			if _, ok := c.Attrs["gen_ai.output.messages"]; ok {
				t.Errorf("completion captured without opting in")
			}
			// The provider's HTTP request, under the chat span.
			if hs := otlptest.ChildrenOf(spans, c); len(hs) != 1 || hs[0].Name != "POST" || hs[0].Attrs["server.address"] != "127.0.0.1" {
				t.Errorf("chat span's HTTP request: %+v", hs)
			}
		}
		if in != 100 || out != 12 {
			t.Errorf("tokens %d in, %d out; want 100, 12", in, out)
		}
		reasons := map[any]bool{}
		for _, c := range chats {
			if fr, ok := c.Attrs["gen_ai.response.finish_reasons"].([]any); ok && len(fr) == 1 {
				reasons[fr[0]] = true
			}
		}
		if !reasons["tool_calls"] || !reasons["stop"] {
			t.Errorf("finish reasons: %v", reasons)
		}
		tool := otlptest.One(t, spans, "execute_tool current_datetime")
		if tool.ParentID != answer.SpanID || tool.Attrs["gen_ai.tool.call.id"] != "call_1" || tool.Attrs["gen_ai.tool.type"] != "function" {
			t.Errorf("tool span: parent %s attrs %v", tool.ParentID, tool.Attrs)
		}
		if _, ok := tool.Attrs["gen_ai.tool.call.result"]; ok {
			t.Errorf("tool result captured without opting in")
		}
		// The model calls carried the trace to the provider.
		for _, r := range fake.Requests()[before:] {
			tp := r.Header.Get("Traceparent")
			if !strings.HasPrefix(tp, "00-"+callerTrace+"-") {
				t.Errorf("model request traceparent %q, want one in trace %s", tp, callerTrace)
			}
		}
		// Nothing in any span of the run quotes the input or the passages.
		for _, sp := range spans {
			b, _ := json.Marshal(sp.Attrs)
			if strings.Contains(string(b), "otters hold hands") || strings.Contains(string(b), "drift apart") {
				t.Errorf("span %s carries message content: %s", sp.Name, b)
			}
		}
	})
}

// secretValue is the account secret an MCP server of the content test
// wants; it must appear in no span, content captured or not.
const secretValue = "mcp-secret-never-traced-5e4d3c2b1a"

// startMCPServer runs a loopback MCP server with one tool, lookup_order,
// that echoes the Authorization header it got (as a careless server
// might), and records the traceparent of every request.
func startMCPServer(t *testing.T) (url string, traceparents func() []string) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	type lookupIn struct {
		OrderID string `json:"order_id"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "lookup_order", Description: "Status of an order."},
		func(ctx context.Context, req *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
				Text: "order " + in.OrderID + " shipped (you sent " + req.Extra.Header.Get("Authorization") + ")"}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var mu sync.Mutex
	var seen []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Traceparent"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+secretValue {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestMessageContentOptIn: with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true
// a chat span carries the prompt and the completion, and a tool span (an
// MCP server's tool) its arguments and result; the account secret the MCP
// server is called with appears in no span; the MCP requests carry the
// run's traceparent.
func TestMessageContentOptIn(t *testing.T) {
	recv := otlptest.Start(t)
	fake := fakeModel(t)
	mcpURL, mcpTraceparents := startMCPServer(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		traceTo(t, recv, "http/protobuf")
		t.Setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		mcpHost, err := url.Parse(mcpURL)
		if err != nil {
			t.Fatal(err)
		}
		if r := s.Do(t, "PUT", "/secrets/ORDERS_TOKEN", s.Key, map[string]any{"value": secretValue, "hosts": []string{mcpHost.Host}}); r.Status != http.StatusCreated {
			t.Fatalf("put secret: %d %s", r.Status, r.Body)
		}
		agent := s.StoreAgent(t, s.AccountID, "Orders", `{"child_steps":[
			{"id":"answer","step_type":"prompt_call","model":"openai_gpt_4o_mini","prompt_template":"Say: {{input}}",
			 "tools":[{"type":"mcp","server_label":"orders","server_url":"`+mcpURL+`","headers":{"Authorization":"Bearer {{secrets.ORDERS_TOKEN}}"}}]}]}`,
			"dynamic_input")
		fake.Enqueue(
			fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "call_7", Name: "orders__lookup_order", Arguments: `{"order_id":"42"}`}}, Usage: fakellm.Usage{Input: 4, Output: 2}},
			fakellm.Reply{Text: "purple elephants", Usage: fakellm.Usage{Input: 5, Output: 2}})
		seenBefore := len(mcpTraceparents())
		runID := startRun(t, s, agent, "purple elephants please")
		snap := waitRun(t, s, runID)
		if snap.Status != runs.RunCompleted || snap.TraceID == "" {
			t.Fatalf("run %s, trace %q", snap.Status, snap.TraceID)
		}
		spans := recv.WaitTrace(t, snap.TraceID, 20*time.Second, func(ss []otlptest.Span) bool {
			return len(otlptest.Named(ss, "chat openai_gpt_4o_mini")) == 2 && len(otlptest.Named(ss, "execute_tool orders__lookup_order")) == 1
		})
		var sawPrompt, sawAnswer bool
		for _, c := range otlptest.Named(spans, "chat openai_gpt_4o_mini") {
			if in, _ := c.Attrs["gen_ai.input.messages"].(string); strings.Contains(in, "Say: purple elephants please") {
				sawPrompt = true
			}
			if out, _ := c.Attrs["gen_ai.output.messages"].(string); strings.Contains(out, "purple elephants") {
				sawAnswer = true
			}
		}
		if !sawPrompt || !sawAnswer {
			t.Errorf("prompt captured %v, completion captured %v", sawPrompt, sawAnswer)
		}
		tool := otlptest.One(t, spans, "execute_tool orders__lookup_order")
		res, _ := tool.Attrs["gen_ai.tool.call.result"].(string)
		if tool.Attrs["gen_ai.tool.call.arguments"] != `{"order_id":"42"}` || !strings.Contains(res, "order 42 shipped") || tool.Attrs["gen_ai.tool.type"] != "extension" {
			t.Errorf("tool span: %v", tool.Attrs)
		}
		// The MCP server's HTTP requests are the tool span's children and
		// carried the trace.
		if len(otlptest.ChildrenOf(spans, tool)) == 0 {
			t.Errorf("no HTTP span under the MCP tool call")
		}
		tps := mcpTraceparents()[seenBefore:]
		if len(tps) == 0 {
			t.Fatal("the MCP server got no request")
		}
		for _, tp := range tps {
			if !strings.HasPrefix(tp, "00-"+snap.TraceID+"-") {
				t.Errorf("MCP request traceparent %q, want one in trace %s", tp, snap.TraceID)
			}
		}
		for _, sp := range recv.Spans() {
			b, _ := json.Marshal(sp.Attrs)
			if strings.Contains(string(b), secretValue) {
				t.Errorf("span %s carries the secret: %s", sp.Name, b)
			}
		}
	})
}

// TestBlockedOutputNotInTraces: with message content captured, a step
// whose output a governance policy checks carries no prompt or completion
// text, so an output the policy blocks reaches no span.
func TestBlockedOutputNotInTraces(t *testing.T) {
	recv := otlptest.Start(t)
	fake := fakeModel(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		traceTo(t, recv, "http/protobuf")
		t.Setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
		s := testserver.Start(t, d)
		if r := s.Do(t, "POST", "/governance/policies", s.Key, map[string]any{"name": "No elephants", "config": map[string]any{
			"action": "block", "stages": []string{"output"}, "rules": []any{map[string]any{"type": "regex", "patterns": []string{"(?i)elephant"}}}}}); r.Status != http.StatusCreated {
			t.Fatalf("policy: %d %s", r.Status, r.Body)
		}
		agent := s.StoreAgent(t, s.AccountID, "Zoo", `{"child_steps":[
			{"id":"answer","step_type":"prompt_call","model":"openai_gpt_4o_mini","prompt_template":"Say: {{input}}"}]}`, "dynamic_input")
		fake.Enqueue(fakellm.Reply{Text: "grey elephants roam", Usage: fakellm.Usage{Input: 4, Output: 3}})
		snap := waitRun(t, s, startRun(t, s, agent, "what roams"))
		if snap.Status != runs.RunFailed || snap.TraceID == "" {
			t.Fatalf("run %s, trace %q", snap.Status, snap.TraceID)
		}
		spans := recv.WaitTrace(t, snap.TraceID, 20*time.Second, func(ss []otlptest.Span) bool {
			return len(otlptest.Named(ss, "chat openai_gpt_4o_mini")) == 1 && len(otlptest.Named(ss, "policy_check output")) == 1
		})
		for _, sp := range spans {
			b, _ := json.Marshal(sp.Attrs)
			if strings.Contains(string(b), "elephants roam") {
				t.Errorf("span %s carries the blocked output: %s", sp.Name, b)
			}
		}
	})
}
