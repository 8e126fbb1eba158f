package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/anthropic"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/llm/offline"
)

// memJournal is an in-memory journal with the semantics the store gives.
type memJournal struct {
	mu         sync.Mutex
	records    []engine.StepRecord
	completed  map[string]engine.StepRecord
	superseded int
	events     []engine.Event
}

func newJournal() *memJournal { return &memJournal{completed: map[string]engine.StepRecord{}} }

func (j *memJournal) Completed(context.Context) (map[string]engine.StepRecord, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := map[string]engine.StepRecord{}
	for k, v := range j.completed {
		out[k] = v
	}
	return out, nil
}

func (j *memJournal) StepStarted(_ context.Context, r engine.StepRecord) error { return nil }

func (j *memJournal) StepFinished(_ context.Context, r engine.StepRecord) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.records = append(j.records, r)
	if r.Status == engine.StatusCompleted {
		j.completed[r.Key] = r
	}
	return nil
}

func (j *memJournal) Supersede(_ context.Context, keys []string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, k := range keys {
		delete(j.completed, k)
	}
	j.superseded++
	return nil
}

func (j *memJournal) Emit(_ context.Context, evs ...engine.Event) error {
	j.mu.Lock()
	j.events = append(j.events, evs...)
	j.mu.Unlock()
	return nil
}

func (j *memJournal) eventsOf(typ string) []engine.Event {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []engine.Event
	for _, e := range j.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

type host struct {
	model    llm.Provider
	calls    func(agentID, input string) (string, error)
	decision *bool
	secrets  map[string]string
	// secretHosts are the hosts every secret is bound to.
	secretHosts []string
}

func (h *host) Secret(_ context.Context, name string) (engine.Secret, error) {
	v, ok := h.secrets[name]
	if !ok {
		return engine.Secret{}, errors.New("the account has no secret " + strconv.Quote(name))
	}
	return engine.Secret{Name: name, Value: v, Hosts: h.secretHosts}, nil
}

func (h *host) Model() llm.Provider                 { return h.model }
func (h *host) DefaultModel() string                { return "agentry_offline" }
func (h *host) Price(_ string, u llm.Usage) float64 { return float64(u.Total()) / 1000 }
func (h *host) CallAgent(_ context.Context, _ *engine.Run, id, in string, _ bool) (string, error) {
	return h.calls(id, in)
}
func (h *host) AwaitHuman(context.Context, *engine.Run, string, string, string, map[string]any) (bool, string, error) {
	if h.decision == nil {
		return false, "", engine.ErrParked
	}
	return *h.decision, "", nil
}

func parse(t *testing.T, js string) *definition.Definition {
	t.Helper()
	d, probs, err := definition.ParseDefinition([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if errs := probs.Errors(); len(errs) > 0 {
		t.Fatalf("definition: %v", errs)
	}
	return d
}

func run(t *testing.T, e *engine.Engine, def, input string, j *memJournal, h *host) (engine.Outcome, error) {
	t.Helper()
	if h == nil {
		h = &host{model: offline.New()}
	}
	r := &engine.Run{ID: "run-1", AccountID: "acct", AgentID: "agent-1", Input: input, Metadata: map[string]any{"lang": "fr", "user": map[string]any{"tier": "gold"}}}
	return e.Execute(context.Background(), parse(t, def), r, j, h)
}

func TestChainAndTemplates(t *testing.T) {
	e := engine.New(engine.Config{})
	out, err := run(t, e, `{"child_steps":[
		{"id":"greet","step_type":"text","text":"Hello {{input}} ({{metadata.lang}}, {{metadata.user.tier}})","child_steps":[
			{"id":"shout","step_type":"regex_replace","rules":[{"pattern":"(\\w+)o","replacement":"\\1O"}],"child_steps":[
				{"id":"show","step_type":"display_result","template":"{{input}} / was {{step.greet.output}} / {{metadata.missing | default: \"n/a\"}}"}]}]}]}`,
		"world", newJournal(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "HellO wOrld (fr, gOld) / was Hello world (fr, gold) / n/a"
	if out.Output != want {
		t.Fatalf("output %q, want %q", out.Output, want)
	}
	_, err = run(t, e, `{"child_steps":[{"id":"a","step_type":"text","text":"{{metadata.nope}}"}]}`, "x", newJournal(), nil)
	if !errors.Is(err, engine.ErrMissingReference) || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("missing reference: %v", err)
	}
}

func TestBranchesJoinAndSwitch(t *testing.T) {
	e := engine.New(engine.Config{})
	out, err := run(t, e, `{"child_steps":[
		{"id":"a","step_type":"text","text":"A:{{input}}"},
		{"id":"b","step_type":"text","text":"B:{{input}}"},
		{"id":"j","step_type":"join","format":"json_array"}]}`, "x", newJournal(), nil)
	if err != nil || out.Output != `["A:x","B:x"]` || out.ContentType != "application/json" {
		t.Fatalf("join: %q %v", out.Output, err)
	}
	def := `{"child_steps":[{"id":"sw","step_type":"switch","discriminator":"{{input}}","cases":[
		{"match":"red","steps":[{"id":"r","step_type":"text","text":"stop"}]},
		{"match":["green","blue"],"steps":[{"id":"g","step_type":"text","text":"go"}]}],
		"else_steps":[{"id":"other","step_type":"text","text":"unknown"}],
		"child_steps":[{"id":"show","step_type":"display_result","template":"-> {{input}}"}]}]}`
	for in, want := range map[string]string{"red": "-> stop", "blue": "-> go", "pink": "-> unknown"} {
		out, err := run(t, e, def, in, newJournal(), nil)
		if err != nil || out.Output != want {
			t.Errorf("switch %s: %q %v", in, out.Output, err)
		}
	}
	ifelse := `{"child_steps":[{"id":"ie","step_type":"if_else","conditions":[{"json_path":"$.score","operator":"gte","value":0.5}],
		"then_steps":[{"id":"hi","step_type":"text","text":"high"}],
		"child_steps":[{"id":"show","step_type":"display_result"}]}]}`
	if out, _ := run(t, e, ifelse, `{"score":0.9}`, newJournal(), nil); out.Output != "high" {
		t.Errorf("if_else then: %q", out.Output)
	}
	if out, _ := run(t, e, ifelse, `{"score":0.1}`, newJournal(), nil); out.Output != `{"score":0.1}` {
		t.Errorf("if_else without else passes input on: %q", out.Output)
	}
	gate := `{"child_steps":[{"id":"g","step_type":"gate","conditions":{"combinator":"or","rules":[{"operator":"contains","value":"urgent"},{"operator":"matches","value":"^P[0-1]"}]},
		"child_steps":[{"id":"show","step_type":"display_result","template":"escalate"}]}]}`
	if out, _ := run(t, e, gate, "P0 outage", newJournal(), nil); out.Output != "escalate" {
		t.Errorf("gate open: %q", out.Output)
	}
	if out, _ := run(t, e, gate, "P3 question", newJournal(), nil); out.Output == "escalate" {
		t.Errorf("gate closed still ran children")
	}
}

func TestForEach(t *testing.T) {
	e := engine.New(engine.Config{})
	j := newJournal()
	out, err := run(t, e, `{"child_steps":[{"id":"loop","step_type":"for_each","items_path":"$.xs","concurrency":3,
		"body":[{"id":"sq","step_type":"text","text":"<{{input}}>"}]}]}`, `{"xs":[1,2,3,4,5]}`, j, nil)
	if err != nil || out.Output != `["<1>","<2>","<3>","<4>","<5>"]` {
		t.Fatalf("%q %v", out.Output, err)
	}
	keys := map[string]bool{}
	for _, r := range j.records {
		keys[r.Key] = true
	}
	if !keys["loop[0]/sq"] || !keys["loop[4]/sq"] {
		t.Errorf("body steps not journaled per item: %v", keys)
	}
}

// counting wraps a handler to count executions.
func counting(h engine.Handler, n *atomic.Int32) engine.Handler {
	return engine.HandlerFunc(func(ctx context.Context, x *engine.Exec) (engine.Result, error) {
		n.Add(1)
		return h.Execute(ctx, x)
	})
}

func TestResumeSkipsCompletedSteps(t *testing.T) {
	e := engine.New(engine.Config{})
	var texts atomic.Int32
	h, _ := e.Registry.Handler(definition.StepText)
	e.Registry.Register(definition.StepText, counting(h, &texts))
	def := `{"child_steps":[{"id":"one","step_type":"text","text":"1","child_steps":[{"id":"two","step_type":"text","text":"{{input}}2","child_steps":[
		{"id":"three","step_type":"text","text":"{{step.one.output}}{{input}}3"}]}]}]}`
	j := newJournal()
	// The first two steps completed before a crash.
	j.completed["one"] = engine.StepRecord{Key: "one", StepID: "one", Status: engine.StatusCompleted, Output: "1"}
	j.completed["two"] = engine.StepRecord{Key: "two", StepID: "two", Status: engine.StatusCompleted, Input: "1", Output: "12"}
	out, err := run(t, e, def, "", j, nil)
	if err != nil || out.Output != "1123" {
		t.Fatalf("%q %v", out.Output, err)
	}
	if texts.Load() != 1 {
		t.Errorf("%d text steps ran; only the third should have", texts.Load())
	}
}

func TestRetry(t *testing.T) {
	e := engine.New(engine.Config{})
	j := newJournal()
	_, err := run(t, e, `{"child_steps":[{"id":"draft","step_type":"text","text":"draft","child_steps":[
		{"id":"check","step_type":"gate","conditions":[{"operator":"contains","value":"draft"}],"child_steps":[
			{"id":"again","step_type":"retry","target_step_id":"draft","max_retries":2}]}]}]}`, "", j, nil)
	var se *engine.StepError
	if !errors.As(err, &se) || se.StepID != "draft" || !strings.Contains(err.Error(), "retried 2 times") {
		t.Fatalf("bounded retry: %v", err)
	}
	runs := 0
	for _, r := range j.records {
		if r.StepID == "draft" {
			runs++
		}
	}
	if runs != 3 || j.superseded != 2 {
		t.Errorf("draft ran %d times, %d supersessions; want 3 and 2", runs, j.superseded)
	}
}

func TestPromptCallOffline(t *testing.T) {
	e := engine.New(engine.Config{})
	out, err := run(t, e, `{"child_steps":[{"id":"ask","step_type":"prompt_call","model":"agentry_offline",
		"system_template":"Answer from the context.","prompt_template":"{{input}}\n\nThe Eiffel Tower is in Paris. Bananas are yellow. Rivers flow to the sea.",
		"child_steps":[{"id":"show","step_type":"display_result"}]}]}`, "Where is the Eiffel Tower?", newJournal(), nil)
	if err != nil || !strings.Contains(out.Output, "Paris") {
		t.Fatalf("%q %v", out.Output, err)
	}
	if out.Credits <= 0 {
		t.Errorf("no credits charged: %v", out.Credits)
	}
}

func TestStreamingTokens(t *testing.T) {
	e := engine.New(engine.Config{})
	j := newJournal()
	h := &host{model: offline.New()}
	d := parse(t, `{"child_steps":[{"id":"ask","step_type":"prompt_call","prompt_template":"Summarise: Rivers flow to the sea. Rain fills the rivers again.",
		"child_steps":[{"id":"stream","step_type":"streaming_result"}]}]}`)
	out, err := e.Execute(context.Background(), d, &engine.Run{ID: "r", AccountID: "a", Priority: true}, j, h)
	if err != nil {
		t.Fatal(err)
	}
	var streamed strings.Builder
	for _, ev := range j.eventsOf("stream_token") {
		streamed.WriteString(ev.Data["token"].(string))
	}
	if streamed.String() != out.Output || out.Output == "" {
		t.Fatalf("streamed %q, output %q", streamed.String(), out.Output)
	}
	if len(j.eventsOf("stream_end")) != 1 {
		t.Error("no stream_end")
	}
	// Without priority the run completes with no token events.
	j2 := newJournal()
	if _, err := e.Execute(context.Background(), d, &engine.Run{ID: "r2", AccountID: "a"}, j2, h); err != nil || len(j2.eventsOf("stream_token")) != 0 {
		t.Errorf("non-priority run streamed: %v", err)
	}
}

// scripted is a provider that asks for a tool once, then answers with what
// the tool returned — a two-round tool conversation.
type scripted struct{ rounds atomic.Int32 }

func (s *scripted) Chat(_ context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	if s.rounds.Add(1) == 1 {
		return &llm.ChatResponse{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "current_datetime", Arguments: json.RawMessage(`{}`)}}},
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}, nil
	}
	last := req.Messages[len(req.Messages)-1]
	return &llm.ChatResponse{Message: llm.Assistant("It is " + last.Text()), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 20, OutputTokens: 5}}, nil
}
func (s *scripted) Stream(ctx context.Context, req llm.ChatRequest, fn llm.StreamFunc) (*llm.ChatResponse, error) {
	return s.Chat(ctx, req)
}
func (s *scripted) Embed(context.Context, llm.EmbedRequest) (*llm.EmbedResponse, error) {
	return nil, llm.ErrUnsupported
}

func TestToolCalls(t *testing.T) {
	e := engine.New(engine.Config{})
	j := newJournal()
	out, err := run(t, e, `{"child_steps":[{"id":"ask","step_type":"prompt_call","prompt_template":"What time is it?","tools":["current_datetime"]}]}`,
		"", j, &host{model: &scripted{}})
	if err != nil || !strings.HasPrefix(out.Output, "It is 20") {
		t.Fatalf("%q %v", out.Output, err)
	}
	rec := j.records[len(j.records)-1]
	if len(rec.ToolCalls) != 1 || rec.ToolCalls[0].Name != "current_datetime" || rec.ToolCalls[0].Result == "" || !rec.ToolCalls[0].Succeeded {
		t.Errorf("tool calls not recorded: %+v", rec.ToolCalls)
	}
	if _, err := run(t, e, `{"child_steps":[{"id":"ask","step_type":"prompt_call","prompt_template":"x","tools":["no_such_tool"]}]}`, "", newJournal(), nil); err == nil {
		t.Error("unknown tool accepted")
	}
}

// Tools belong to an engine: one registered on an engine serves its runs
// and no other engine's.
func TestToolsArePerEngine(t *testing.T) {
	withTool := engine.New(engine.Config{})
	withTool.Tools.Register(engine.Tool{Name: "echo_answer", Parameters: json.RawMessage(`{"type":"object"}`),
		Run: func(context.Context, *engine.Exec, map[string]any, json.RawMessage) (string, error) { return "42", nil }})
	if _, ok := withTool.Tools.Tool("current_datetime"); !ok {
		t.Fatal("engine.New did not register current_datetime")
	}
	def := `{"child_steps":[{"id":"ask","step_type":"prompt_call","prompt_template":"x","tools":["echo_answer"]}]}`
	if _, err := run(t, engine.New(engine.Config{}), def, "", newJournal(), nil); err == nil || !strings.Contains(err.Error(), "echo_answer") {
		t.Fatalf("another engine offered the tool: %v", err)
	}
	if _, ok := engine.New(engine.Config{}).Tools.Tool("echo_answer"); ok {
		t.Fatal("a tool registered on one engine is visible to a new one")
	}
}

func TestWebhookGuardAndIdempotency(t *testing.T) {
	var got http.Header
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	def := `{"child_steps":[{"id":"hook","step_type":"webhook_call","url":"` + srv.URL + `/in","body":"{\"msg\":\"{{input}}\"}","headers":{"X-Lang":"{{metadata.lang}}"}}]}`
	e := engine.New(engine.Config{})
	if _, err := run(t, e, def, "hi", newJournal(), nil); !errors.Is(err, engine.ErrForbiddenAddress) {
		t.Fatalf("loopback webhook not refused: %v", err)
	}
	e = engine.New(engine.Config{AllowPrivateWebhooks: true})
	out, err := run(t, e, def, "hi", newJournal(), nil)
	if err != nil || out.Output != `{"ok":true}` {
		t.Fatalf("%q %v", out.Output, err)
	}
	if got.Get("Idempotency-Key") != "run-1:hook" || got.Get("X-Lang") != "fr" || body != `{"msg":"hi"}` {
		t.Errorf("headers %v body %q", got, body)
	}
}

func TestExtractContent(t *testing.T) {
	e := engine.New(engine.Config{})
	cases := []struct{ def, in, want string }{
		{`{"id":"x","step_type":"extract_content","format":"json","path":"$.items[*].title","multiple":true}`, `{"items":[{"title":"a"},{"title":"b"}]}`, `["a","b"]`},
		{`{"id":"x","step_type":"extract_content","format":"html","path":"div.price span"}`, `<html><div class="price"><span> 42 € </span></div></html>`, `42 €`},
		{`{"id":"x","step_type":"extract_content","format":"xml","path":"//book[@lang='en']/title"}`, `<lib><book lang="fr"><title>Le</title></book><book lang="en"><title>The</title></book></lib>`, `The`},
		{`{"id":"x","step_type":"extract_content","format":"json","path":"$.nope","default_value":"none"}`, `{}`, `none`},
	}
	for _, c := range cases {
		out, err := run(t, e, `{"child_steps":[`+c.def+`]}`, c.in, newJournal(), nil)
		if err != nil || out.Output != c.want {
			t.Errorf("%s: %q %v", c.def, out.Output, err)
		}
	}
}

func TestCallAgentAndHuman(t *testing.T) {
	e := engine.New(engine.Config{})
	h := &host{model: offline.New(), calls: func(id, in string) (string, error) { return "sub(" + id + "):" + in, nil }}
	out, err := run(t, e, `{"child_steps":[{"id":"c","step_type":"call_agent","agent_id":"agent-2","input":"{{input}}!"}]}`, "go", newJournal(), h)
	if err != nil || out.Output != "sub(agent-2):go!" {
		t.Fatalf("%q %v", out.Output, err)
	}
	d := parse(t, `{"child_steps":[{"id":"c","step_type":"call_agent","agent_id":"agent-0"}]}`)
	_, err = e.Execute(context.Background(), d, &engine.Run{ID: "r", AccountID: "a", AgentID: "agent-1", CallChain: []string{"agent-0"}}, newJournal(), h)
	if err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle not refused: %v", err)
	}
	review := `{"child_steps":[{"id":"hitl","step_type":"human_in_the_loop","instructions":"ok?","child_steps":[{"id":"show","step_type":"display_result","template":"approved {{input}}"}]}]}`
	if _, err := run(t, e, review, "doc", newJournal(), h); !errors.Is(err, engine.ErrParked) {
		t.Fatalf("undecided review must park: %v", err)
	}
	yes := true
	h.decision = &yes
	if out, err := run(t, e, review, "doc", newJournal(), h); err != nil || out.Output != "approved doc" {
		t.Errorf("approved: %q %v", out.Output, err)
	}
}

func TestMissingStepTypes(t *testing.T) {
	e := engine.New(engine.Config{})
	d := parse(t, `{"child_steps":[{"id":"r","step_type":"retrieval","knowledge_base_id":"01234567-89ab-7def-8123-456789abcdef","query":"{{input}}"}]}`)
	if m := e.Registry.Missing(d); len(m) != 1 || m[0] != "retrieval" {
		t.Fatalf("missing %v", m)
	}
	if _, err := e.Execute(context.Background(), d, &engine.Run{ID: "r"}, newJournal(), &host{}); err == nil || !strings.Contains(err.Error(), "retrieval") {
		t.Errorf("unregistered type not refused: %v", err)
	}
}

// A prompt_call with thinking asks the model to reason, and across tool
// rounds hands its signed reasoning back the way Anthropic requires.
func TestPromptCallThinkingAcrossToolRounds(t *testing.T) {
	s := fakellm.NewAnthropic(t)
	s.Enqueue(
		fakellm.Reply{Thinking: "Check the clock.", ThinkingSignature: "sig-1",
			ToolCalls: []fakellm.ToolCall{{ID: "toolu_1", Name: "current_datetime", Arguments: `{}`}}},
		fakellm.Reply{Text: "It is late."})
	model := anthropic.New(anthropic.Config{BaseURL: s.URL, APIKey: "k", Timeout: 5 * time.Second})
	out, err := run(t, engine.New(engine.Config{}), `{"child_steps":[{"id":"ask","step_type":"prompt_call","model":"claude","thinking":"high",
		"prompt_template":"What time is it?","tools":["current_datetime"]}]}`, "", newJournal(), &host{model: model})
	if err != nil || out.Output != "It is late." {
		t.Fatalf("%q %v", out.Output, err)
	}
	reqs := s.Requests()
	if th := reqs[0].JSON()["thinking"].(map[string]any); th["type"] != "enabled" || th["budget_tokens"] != 16000.0 {
		t.Errorf("thinking asked as %v", th)
	}
	turn := reqs[1].JSON()["messages"].([]any)[1].(map[string]any)
	if b := turn["content"].([]any)[0].(map[string]any); turn["role"] != "assistant" || b["type"] != "thinking" || b["signature"] != "sig-1" {
		t.Errorf("assistant turn sent back as %v", turn)
	}
}
