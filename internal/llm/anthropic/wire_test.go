package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/fakellm"
)

// The wire format against servers on loopback that answer exactly the
// bytes each test writes: what fakellm does not send (pings, error events,
// odd framing, cut or oversized bodies).

// wireServer serves each request with the next handler (the last repeats)
// and counts requests.
type wireServer struct {
	*httptest.Server
	mu       sync.Mutex
	handlers []http.HandlerFunc
	n        atomic.Int32
	bodies   []map[string]any
	headers  []http.Header
}

func newWireServer(t *testing.T, handlers ...http.HandlerFunc) *wireServer {
	s := &wireServer{handlers: handlers}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		i := int(s.n.Add(1)) - 1
		s.handlers[min(i, len(s.handlers)-1)](w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *wireServer) requests() int { return int(s.n.Load()) }

func sse(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			_, _ = io.WriteString(w, e)
			w.(http.Flusher).Flush()
		}
	}
}

func jsonAnswer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

const okMessage = `{"id":"msg_1","type":"message","role":"assistant","model":"m-1","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`

func event(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

var (
	evStart = event("message_start", `{"type":"message_start","message":{"model":"m-1","content":[],"usage":{"input_tokens":7,"output_tokens":1}}}`)
	evStop  = event("message_stop", `{"type":"message_stop"}`)
)

func evText(s string) string {
	return event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+quote(s)+`}}`)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func wireProvider(url string) *Provider {
	return New(Config{BaseURL: url, APIKey: "sk-wire", Retry: fastRetry, Timeout: 5 * time.Second})
}

var userX = llm.ChatRequest{Model: "m", Messages: []llm.Message{llm.User("x")}}

func TestWireHeadersPathAndBody(t *testing.T) {
	s := newWireServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/proxy/v1/messages" {
			http.Error(w, "wrong "+r.Method+" "+r.URL.Path, 404)
			return
		}
		jsonAnswer(200, okMessage)(w, r)
	}, sse(evStart, evText("hi"), evStop))
	p := New(Config{BaseURL: s.URL + "/proxy/", APIKey: "sk-wire", Retry: fastRetry, Timeout: 5 * time.Second,
		Headers: map[string]string{"anthropic-beta": "x-1", "anthropic-version": "2099-01-01"}})
	if _, err := p.Chat(context.Background(), userX); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(context.Background(), userX, func(llm.Delta) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for i, h := range s.headers {
		// Configured headers override the provider's own.
		if h.Get("X-Api-Key") != "sk-wire" || h.Get("Anthropic-Version") != "2099-01-01" || h.Get("Anthropic-Beta") != "x-1" ||
			h.Get("Content-Type") != "application/json" || h.Get("Authorization") != "" {
			t.Errorf("request %d headers %v", i, h)
		}
	}
	if _, ok := s.bodies[0]["stream"]; ok || s.bodies[1]["stream"] != true {
		t.Errorf("stream flags %v / %v", s.bodies[0]["stream"], s.bodies[1]["stream"])
	}
	if s.headers[1].Get("Accept") != "text/event-stream" {
		t.Errorf("stream accept %q", s.headers[1].Get("Accept"))
	}
	// Without configured headers, the version is the provider's; without a
	// key, no key header at all.
	s2 := newWireServer(t, jsonAnswer(200, okMessage))
	if _, err := New(Config{BaseURL: s2.URL, Retry: fastRetry}).Chat(context.Background(), userX); err != nil {
		t.Fatal(err)
	}
	if h := s2.headers[0]; h.Get("Anthropic-Version") != apiVersion || len(h.Values("X-Api-Key")) != 0 {
		t.Errorf("headers %v", h)
	}
}

// A tool's parameters become input_schema, which the API requires even
// when the tool takes none.
func TestWireToolSchemas(t *testing.T) {
	s := newWireServer(t, jsonAnswer(200, okMessage))
	req := userX
	req.Tools = []llm.Tool{{Name: "now"}, {Name: "find", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"$defs":{"d":{}}}`)}}
	if _, err := wireProvider(s.URL).Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	tools := s.bodies[0]["tools"].([]any)
	now, find := tools[0].(map[string]any), tools[1].(map[string]any)
	if got, _ := json.Marshal(now["input_schema"]); string(got) != `{"type":"object"}` {
		t.Errorf("parameterless tool schema %s", got)
	}
	if got, _ := json.Marshal(find["input_schema"]); string(got) != `{"$defs":{"d":{}},"properties":{"q":{"type":"string"}},"required":["q"],"type":"object"}` {
		t.Errorf("tool schema %s", got)
	}
	if _, ok := s.bodies[0]["tool_choice"]; ok {
		t.Errorf("auto tool choice is the default and is not sent: %v", s.bodies[0]["tool_choice"])
	}
}

// Tool-call arguments travel as the JSON they are, without a round trip
// through float64 that would round large integers.
func TestWireToolArgumentsKeepTheirNumbers(t *testing.T) {
	s := newWireServer(t, jsonAnswer(200, okMessage))
	req := userX
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "t1", Name: "f", Arguments: json.RawMessage(`{"id": 9007199254740993}`)}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "t1", Parts: []llm.Part{llm.TextPart("ok")}})
	p := wireProvider(s.URL)
	if _, err := p.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	params, _ := buildParams(req)
	body, _ := params.MarshalJSON()
	if !strings.Contains(string(body), `"input":{"id":9007199254740993}`) {
		t.Errorf("body %s", body)
	}
}

func TestWireStreamFraming(t *testing.T) {
	// Pings, comments, an event split over two data lines, CRLF line ends,
	// "data:" without a space, and usage and stop reason in message_delta.
	s := newWireServer(t, sse(
		": keep-alive comment\n\n",
		evStart,
		event("ping", `{"type":"ping"}`),
		"event: content_block_start\r\ndata: {\"type\":\"content_block_start\",\"index\":0,\r\ndata: \"content_block\":{\"type\":\"text\",\"text\":\"\"}}\r\n\r\n",
		evText("Hel"),
		"event: content_block_delta\ndata:{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"lo\"}}\n\n",
		event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`),
		event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`),
		event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"1}"}}`),
		event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":12,"cache_read_input_tokens":5}}`),
		evStop,
		evText("after the stop: ignored"),
	))
	var text strings.Builder
	resp, err := wireProvider(s.URL).Stream(context.Background(), userX, func(d llm.Delta) error { text.WriteString(d.Text); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != "Hello" || resp.Text() != "Hello" || resp.Model != "m-1" || resp.FinishReason != llm.FinishToolCalls {
		t.Errorf("text %q resp %+v", text.String(), resp)
	}
	if c := resp.ToolCalls(); len(c) != 1 || c[0].ID != "toolu_1" || string(c[0].Arguments) != `{"a":1}` {
		t.Errorf("tool calls %+v", c)
	}
	if resp.Usage != (llm.Usage{InputTokens: 12, OutputTokens: 12, CachedInputTokens: 5}) {
		t.Errorf("usage %+v", resp.Usage)
	}
}

// An error event mid-stream ends the call with the server's message.
func TestWireStreamErrorEvent(t *testing.T) {
	s := newWireServer(t, sse(evStart, evText("par"),
		event("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)))
	var got string
	_, err := wireProvider(s.URL).Stream(context.Background(), userX, func(d llm.Delta) error { got += d.Text; return nil })
	if err == nil || !strings.Contains(err.Error(), "overloaded_error: Overloaded") || got != "par" {
		t.Fatalf("err %v got %q", err, got)
	}
	if s.requests() != 1 {
		t.Errorf("%d requests: text was relayed, so no retry", s.requests())
	}
}

// A stream that ends without message_stop is not a whole answer: retried
// while nothing was relayed, an error once something was.
func TestWireStreamTruncated(t *testing.T) {
	s := newWireServer(t, sse(evStart), sse(evStart, evText("ok"), evStop))
	resp, err := wireProvider(s.URL).Stream(context.Background(), userX, func(llm.Delta) error { return nil })
	if err != nil || resp.Text() != "ok" || s.requests() != 2 {
		t.Fatalf("resp %v err %v after %d requests", resp, err, s.requests())
	}
	s = newWireServer(t, sse(evStart, evText("half")))
	_, err = wireProvider(s.URL).Stream(context.Background(), userX, func(llm.Delta) error { return nil })
	if !errors.Is(err, io.ErrUnexpectedEOF) || s.requests() != 1 {
		t.Fatalf("err %v after %d requests", err, s.requests())
	}
}

// A plain answer cut short (fewer bytes than its Content-Length) is a
// transport failure and is retried.
func TestWireTruncatedBodyRetried(t *testing.T) {
	s := newWireServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(okMessage)))
		_, _ = io.WriteString(w, okMessage[:20])
	}, jsonAnswer(200, okMessage))
	resp, err := wireProvider(s.URL).Chat(context.Background(), userX)
	if err != nil || resp.Text() != "hi" || s.requests() != 2 {
		t.Fatalf("resp %v err %v after %d requests", resp, err, s.requests())
	}
}

// Every read is bounded: the answer, one stream line, a whole stream, and
// the error body (of which only the start becomes the message).
func TestWireSizeCaps(t *testing.T) {
	big := `{"type":"message","model":"m","content":[{"type":"text","text":"` + strings.Repeat("a", 4096) + `"}]}`
	s := newWireServer(t, jsonAnswer(200, big))
	p := wireProvider(s.URL)
	p.limits.response = 1024
	_, err := p.Chat(context.Background(), userX)
	if err == nil || !strings.Contains(err.Error(), "larger than 1024 bytes") || s.requests() != 1 {
		t.Errorf("oversized answer: %v after %d requests", err, s.requests())
	}

	s = newWireServer(t, sse(evStart, evText(strings.Repeat("b", 4096)), evStop))
	p = wireProvider(s.URL)
	p.limits.streamLine = 1024
	_, err = p.Stream(context.Background(), userX, func(llm.Delta) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "longer than 1024 bytes") || s.requests() != 1 {
		t.Errorf("oversized line: %v after %d requests", err, s.requests())
	}

	many := []string{evStart}
	for i := 0; i < 100; i++ {
		many = append(many, evText("chunk "))
	}
	s = newWireServer(t, sse(append(many, evStop)...))
	p = wireProvider(s.URL)
	p.limits.stream = 2048
	var got int
	_, err = p.Stream(context.Background(), userX, func(d llm.Delta) error { got += len(d.Text); return nil })
	if err == nil || !strings.Contains(err.Error(), "stream larger than 2048 bytes") || got == 0 || got > 2048 {
		t.Errorf("oversized stream: %v after %d bytes of text", err, got)
	}
	// The same stream under a limit it fits is whole.
	p.limits.stream = 1 << 20
	if _, err := p.Stream(context.Background(), userX, func(llm.Delta) error { return nil }); err != nil {
		t.Errorf("stream within the limit: %v", err)
	}

	s = newWireServer(t, jsonAnswer(400, strings.Repeat("x", 200<<10)))
	_, err = wireProvider(s.URL).Chat(context.Background(), userX)
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || len(apiErr.Message) != int(defaultLimits.errorBody) {
		t.Errorf("oversized error body: %T status %v, message of %d bytes", err, apiErr != nil && apiErr.StatusCode == 400, len(apiErr.Message))
	}
}

// Error answers become llm.APIError: type and message from the JSON
// envelope, else the body's text, else the status text.
func TestWireErrors(t *testing.T) {
	for _, c := range []struct {
		status            int
		body              string
		wantType, wantMsg string
	}{
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}`, "invalid_request_error", "max_tokens: too large"},
		{403, "forbidden by proxy\n", "", "forbidden by proxy"},
		{404, "", "", "Not Found"},
		{413, `{"type":"error","error":{"type":"request_too_large"}}`, "request_too_large", `{"type":"error","error":{"type":"request_too_large"}}`},
	} {
		s := newWireServer(t, jsonAnswer(c.status, c.body))
		_, err := wireProvider(s.URL).Chat(context.Background(), userX)
		var apiErr *llm.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != c.status || apiErr.Type != c.wantType || apiErr.Message != c.wantMsg || apiErr.Provider != "anthropic" {
			t.Errorf("%d: %#v", c.status, err)
		}
		if s.requests() != 1 {
			t.Errorf("%d: %d requests; client errors are not retried", c.status, s.requests())
		}
	}
}

// A 429 is retried after the wait the server asks for (Retry-After in
// seconds, or retry-after-ms); a wait beyond the policy's cap fails fast
// with the wait reported.
func TestWireRateLimitRetryAfter(t *testing.T) {
	limited := func(h, v string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(h, v)
			jsonAnswer(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`)(w, r)
		}
	}
	s := newWireServer(t, limited("Retry-After", "1"), jsonAnswer(200, okMessage))
	start := time.Now()
	resp, err := wireProvider(s.URL).Chat(context.Background(), userX)
	if err != nil || resp.Text() != "hi" || s.requests() != 2 || time.Since(start) < time.Second {
		t.Fatalf("429 then ok: %v %v, %d requests after %v", resp, err, s.requests(), time.Since(start))
	}

	s = newWireServer(t, limited("Retry-After-Ms", "300"), sse(evStart, evText("ok"), evStop))
	start = time.Now()
	resp, err = wireProvider(s.URL).Stream(context.Background(), userX, func(llm.Delta) error { return nil })
	if err != nil || resp.Text() != "ok" || s.requests() != 2 || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("streamed 429 then ok: %v %v, %d requests after %v", resp, err, s.requests(), time.Since(start))
	}

	s = newWireServer(t, limited("Retry-After", "3600"))
	start = time.Now()
	_, err = wireProvider(s.URL).Chat(context.Background(), userX)
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Type != "rate_limit_error" || apiErr.RetryAfter != time.Hour ||
		s.requests() != 1 || time.Since(start) > time.Second {
		t.Errorf("long Retry-After: %#v, %d requests after %v", err, s.requests(), time.Since(start))
	}
}

// A server that does not answer in time is cut off by the call's timeout.
func TestWireTimeout(t *testing.T) {
	s := fakellm.NewAnthropic(t)
	s.SetDefault(fakellm.Reply{Text: "late", Delay: 5 * time.Second})
	start := time.Now()
	_, err := newProvider(s).Chat(context.Background(), llm.ChatRequest{Model: "m", Timeout: 200 * time.Millisecond, Messages: []llm.Message{llm.User("x")}})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

// Garbage where JSON belongs is an error, not a partial answer.
func TestWireMalformedAnswers(t *testing.T) {
	s := newWireServer(t, jsonAnswer(200, `{"content": [`))
	if _, err := wireProvider(s.URL).Chat(context.Background(), userX); err == nil || !strings.Contains(err.Error(), "decode response") {
		t.Errorf("plain: %v", err)
	}
	s = newWireServer(t, sse(evStart, event("content_block_delta", `{"type":`)))
	if _, err := wireProvider(s.URL).Stream(context.Background(), userX, func(llm.Delta) error { return nil }); err == nil || !strings.Contains(err.Error(), "decode stream event") {
		t.Errorf("stream: %v", err)
	}
}
