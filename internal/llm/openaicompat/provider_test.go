package openaicompat

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/fakellm"
)

// fastRetry keeps retry tests quick while still exercising backoff.
var fastRetry = llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxRetryAfter: 5 * time.Second}

func newProvider(t *testing.T, s *fakellm.Server) *Provider {
	t.Helper()
	return New(Config{Name: "fake", BaseURL: s.URL, APIKey: "sk-test", Retry: fastRetry, Timeout: 5 * time.Second})
}

func TestChatRoundTrip(t *testing.T) {
	s := fakellm.NewOpenAI(t)
	s.Enqueue(fakellm.Reply{Text: "Hello there", Model: "gpt-4o-2024-08-06", Usage: fakellm.Usage{Input: 12, Output: 3, Cached: 4}})
	p := newProvider(t, s)
	temp := 0.2
	resp, err := p.Chat(context.Background(), llm.ChatRequest{Model: "gpt-4o", MaxTokens: 50, Temperature: &temp,
		Stop:     []string{"END"},
		Messages: []llm.Message{llm.System("Be brief."), llm.User("Hi", llm.ImagePart("image/png", []byte{1, 2, 3}))}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "Hello there" || resp.FinishReason != llm.FinishStop || resp.UpstreamModel != "gpt-4o-2024-08-06" {
		t.Errorf("resp = %+v", resp)
	}
	if resp.Usage != (llm.Usage{InputTokens: 12, OutputTokens: 3, CachedInputTokens: 4}) {
		t.Errorf("usage = %+v", resp.Usage)
	}
	req := s.Requests()[0]
	if req.Path != "/v1/chat/completions" || req.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("request %s %v", req.Path, req.Header)
	}
	body := req.JSON()
	if body["model"] != "gpt-4o" || body["max_completion_tokens"] != 50.0 || body["temperature"] != 0.2 {
		t.Errorf("body %s", req.Body)
	}
	msgs := body["messages"].([]any)
	if msgs[0].(map[string]any)["role"] != "system" {
		t.Errorf("system message: %v", msgs[0])
	}
	parts := msgs[1].(map[string]any)["content"].([]any)
	img := parts[1].(map[string]any)["image_url"].(map[string]any)["url"].(string)
	if !strings.HasPrefix(img, "data:image/png;base64,AQID") {
		t.Errorf("image part %v", parts[1])
	}
}

func TestToolCallsAndResults(t *testing.T) {
	s := fakellm.NewOpenAI(t)
	s.Enqueue(fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Oslo"}`}},
		Usage: fakellm.Usage{Input: 20, Output: 8}},
		fakellm.Reply{Text: "It is 3 degrees in Oslo.", Usage: fakellm.Usage{Input: 40, Output: 9}})
	p := newProvider(t, s)
	tool := llm.Tool{Name: "get_weather", Description: "weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}
	res, err := llm.RunToolLoop(context.Background(), p, llm.ChatRequest{Model: "gpt-4o", Tools: []llm.Tool{tool},
		Messages: []llm.Message{llm.User("Weather in Oslo?")}},
		func(ctx context.Context, c llm.ToolCall) (string, error) {
			if c.Name != "get_weather" || string(c.Arguments) != `{"city":"Oslo"}` {
				t.Errorf("call = %+v", c)
			}
			return `{"temp_c":3}`, nil
		}, llm.ToolLoopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Response.Text() != "It is 3 degrees in Oslo." || res.Usage.InputTokens != 60 || res.Usage.OutputTokens != 17 || len(res.Calls) != 1 {
		t.Errorf("loop result %+v", res)
	}
	second := s.Requests()[1].JSON()
	msgs := second["messages"].([]any)
	asst := msgs[1].(map[string]any)
	toolMsg := msgs[2].(map[string]any)
	if asst["tool_calls"] == nil || toolMsg["role"] != "tool" || toolMsg["tool_call_id"] != "call_1" || toolMsg["content"] != `{"temp_c":3}` {
		t.Errorf("second request messages: %v", msgs)
	}
	if tools := second["tools"].([]any); tools[0].(map[string]any)["function"].(map[string]any)["name"] != "get_weather" {
		t.Errorf("tools: %v", tools)
	}
}

func TestJSONModes(t *testing.T) {
	s := fakellm.NewOpenAI(t)
	s.SetDefault(fakellm.Reply{Text: `{"a":1}`, Usage: fakellm.Usage{Input: 1, Output: 1}})
	p := newProvider(t, s)
	_, err := p.Chat(context.Background(), llm.ChatRequest{Model: "m", ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONObject},
		Messages: []llm.Message{llm.User("json please")}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), llm.ChatRequest{Model: "m", ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema,
		Name: "thing", Strict: true, Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}}}`)},
		Messages: []llm.Message{llm.User("json please")}})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Requests()
	if rf := r[0].JSON()["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("json mode: %v", rf)
	}
	rf := r[1].JSON()["response_format"].(map[string]any)
	js := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "thing" || js["strict"] != true || js["schema"].(map[string]any)["type"] != "object" {
		t.Errorf("json schema: %v", rf)
	}
	if _, err := p.Chat(context.Background(), llm.ChatRequest{Model: "m", ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema, Schema: json.RawMessage(`[`)},
		Messages: []llm.Message{llm.User("x")}}); err == nil {
		t.Error("bad schema accepted")
	}
}

func TestStreamTextToolsAndUsage(t *testing.T) {
	s := fakellm.NewOpenAI(t)
	s.Enqueue(fakellm.Reply{Text: "one two three four", ToolCalls: []fakellm.ToolCall{{ID: "c9", Name: "lookup", Arguments: `{"q":"refund policy"}`}},
		Usage: fakellm.Usage{Input: 30, Output: 12, Cached: 10}})
	p := newProvider(t, s)
	var text, args strings.Builder
	var deltas []llm.Delta
	resp, err := p.Stream(context.Background(), llm.ChatRequest{Model: "m", Messages: []llm.Message{llm.User("go")}}, func(d llm.Delta) error {
		deltas = append(deltas, d)
		text.WriteString(d.Text)
		if d.ToolCall != nil {
			args.WriteString(d.ToolCall.ArgumentsDelta)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != "one two three four" || resp.Text() != text.String() {
		t.Errorf("text %q / %q", text.String(), resp.Text())
	}
	if args.String() != `{"q":"refund policy"}` || len(resp.ToolCalls()) != 1 || resp.ToolCalls()[0].ID != "c9" || resp.FinishReason != llm.FinishToolCalls {
		t.Errorf("tool calls %+v args %q", resp.ToolCalls(), args.String())
	}
	last := deltas[len(deltas)-1]
	if last.Usage == nil || *last.Usage != (llm.Usage{InputTokens: 30, OutputTokens: 12, CachedInputTokens: 10}) || resp.Usage != *last.Usage {
		t.Errorf("usage delta %+v resp %+v", last.Usage, resp.Usage)
	}
	if body := s.Requests()[0].JSON(); body["stream"] != true || body["stream_options"].(map[string]any)["include_usage"] != true {
		t.Errorf("stream request %v", body)
	}
}

func TestErrorBodies(t *testing.T) {
	s := fakellm.NewOpenAI(t)
	s.Enqueue(fakellm.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "messages must not be empty"})
	p := newProvider(t, s)
	_, err := p.Chat(context.Background(), llm.ChatRequest{Model: "m", Messages: []llm.Message{llm.User("x")}})
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Type != "invalid_request_error" || apiErr.Message != "messages must not be empty" {
		t.Fatalf("err = %#v", err)
	}
	if len(s.Requests()) != 1 {
		t.Errorf("a 400 was retried %d times", len(s.Requests())-1)
	}
}

func TestRetryAfterThenSuccess(t *testing.T) {
	s := fakellm.NewOpenAI(t)
	s.Enqueue(fakellm.Reply{Status: 429, ErrorType: "rate_limit_exceeded", ErrorMessage: "slow down", RetryAfter: "1"},
		fakellm.Reply{Status: 503, ErrorMessage: "overloaded"},
		fakellm.Reply{Text: "finally", Usage: fakellm.Usage{Input: 1, Output: 1}})
	p := newProvider(t, s)
	start := time.Now()
	resp, err := p.Chat(context.Background(), llm.ChatRequest{Model: "m", Messages: []llm.Message{llm.User("x")}})
	if err != nil || resp.Text() != "finally" {
		t.Fatalf("resp %v err %v", resp, err)
	}
	if el := time.Since(start); el < time.Second {
		t.Errorf("Retry-After: 1 not honoured, retried after %v", el)
	}
	if n := len(s.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	// Streams retry too while nothing has been delivered.
	s.Enqueue(fakellm.Reply{Status: 429, RetryAfter: "0"}, fakellm.Reply{Text: "streamed ok"})
	var got strings.Builder
	if _, err := p.Stream(context.Background(), llm.ChatRequest{Model: "m", Messages: []llm.Message{llm.User("x")}},
		func(d llm.Delta) error { got.WriteString(d.Text); return nil }); err != nil || got.String() != "streamed ok" {
		t.Errorf("stream retry: %q %v", got.String(), err)
	}
}

func TestRetryAfterTooLongFailsFast(t *testing.T) {
	s := fakellm.NewOpenAI(t)
	s.Enqueue(fakellm.Reply{Status: 429, RetryAfter: "3600", ErrorMessage: "quota"})
	p := newProvider(t, s)
	start := time.Now()
	_, err := p.Chat(context.Background(), llm.ChatRequest{Model: "m", Messages: []llm.Message{llm.User("x")}})
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter != time.Hour || time.Since(start) > time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

func TestStalledServerTimesOutAndCancels(t *testing.T) {
	s := fakellm.NewOpenAI(t)
	s.SetDefault(fakellm.Reply{Delay: time.Hour})
	p := newProvider(t, s)
	start := time.Now()
	_, err := p.Chat(context.Background(), llm.ChatRequest{Model: "m", Timeout: 150 * time.Millisecond, Messages: []llm.Message{llm.User("x")}})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("timeout: err %v after %v", err, time.Since(start))
	}
	// A stream that stalls mid-way is cut by cancellation.
	s.SetDefault(fakellm.Reply{Text: "a b c d e f", StallAfter: 2})
	ctx, cancel := context.WithCancel(context.Background())
	var got strings.Builder
	_, err = p.Stream(ctx, llm.ChatRequest{Model: "m", Messages: []llm.Message{llm.User("x")}}, func(d llm.Delta) error {
		got.WriteString(d.Text)
		if got.String() == "a b " {
			go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || got.String() != "a b " {
		t.Errorf("stream cancel: err %v, got %q", err, got.String())
	}
	if n := len(s.Requests()); n > 2 {
		t.Errorf("a stream that had delivered text was retried (%d requests)", n)
	}
}

func TestEmbeddings(t *testing.T) {
	s := fakellm.NewOpenAI(t)
	s.Enqueue(fakellm.Reply{Embeddings: [][]float32{{0.1, 0.2}, {0.3, 0.4}}, Usage: fakellm.Usage{Input: 7}})
	p := newProvider(t, s)
	resp, err := p.Embed(context.Background(), llm.EmbedRequest{Model: "text-embedding-3-small", Input: []string{"a", "b"}, Dimensions: 2})
	if err != nil || len(resp.Vectors) != 2 || resp.Vectors[1][1] != 0.4 || resp.Usage.InputTokens != 7 {
		t.Fatalf("%+v %v", resp, err)
	}
	if b := s.Requests()[0].JSON(); b["dimensions"] != 2.0 || s.Requests()[0].Path != "/v1/embeddings" {
		t.Errorf("embed request %v", b)
	}
}

func TestKeylessEndpointGetsNoKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-should-not-leak")
	s := fakellm.NewOpenAI(t)
	p := New(Config{Name: "ollama", BaseURL: s.URL, Retry: fastRetry})
	if _, err := p.Chat(context.Background(), llm.ChatRequest{Model: "llama3.1:8b", Messages: []llm.Message{llm.User("x")}}); err != nil {
		t.Fatal(err)
	}
	if h := s.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("keyless endpoint received Authorization %q", h)
	}
}
