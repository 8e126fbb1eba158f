package anthropic

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

var fastRetry = llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxRetryAfter: 5 * time.Second}

func newProvider(s *fakellm.Server) *Provider {
	return New(Config{BaseURL: s.URL, APIKey: "sk-ant-test", Retry: fastRetry, Timeout: 5 * time.Second})
}

func TestChatRoundTrip(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-env-must-not-be-used")
	s := fakellm.NewAnthropic(t)
	s.Enqueue(fakellm.Reply{Text: "Bonjour", Model: "claude-sonnet-4-5-20250929", Usage: fakellm.Usage{Input: 100, Output: 7, Cached: 60, CacheWrite: 10}})
	p := newProvider(s)
	resp, err := p.Chat(context.Background(), llm.ChatRequest{Model: "claude-sonnet-4-5-20250929", MaxTokens: 64,
		Messages: []llm.Message{llm.System("Answer in French."), llm.System("Be brief."),
			llm.User("Hello", llm.ImagePart("image/png", []byte{1, 2}), llm.DocumentPart("a.pdf", "application/pdf", []byte("%PDF"), ""))}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "Bonjour" || resp.FinishReason != llm.FinishStop {
		t.Errorf("resp %+v", resp)
	}
	// Input counts every prompt token, cached and cache-written ones included.
	if resp.Usage != (llm.Usage{InputTokens: 100, OutputTokens: 7, CachedInputTokens: 60, CacheWriteTokens: 10}) {
		t.Errorf("usage %+v", resp.Usage)
	}
	req := s.Requests()[0]
	if req.Path != "/v1/messages" || req.Header.Get("X-Api-Key") != "sk-ant-test" || req.Header.Get("Anthropic-Version") == "" {
		t.Errorf("request %s %v", req.Path, req.Header)
	}
	body := req.JSON()
	sys := body["system"].([]any)[0].(map[string]any)["text"]
	if sys != "Answer in French.\n\nBe brief." || body["max_tokens"] != 64.0 {
		t.Errorf("system/max_tokens: %s", req.Body)
	}
	content := body["messages"].([]any)[0].(map[string]any)["content"].([]any)
	if content[1].(map[string]any)["type"] != "image" || content[2].(map[string]any)["type"] != "document" {
		t.Errorf("content blocks: %v", content)
	}
}

func TestToolLoopOverTheWire(t *testing.T) {
	s := fakellm.NewAnthropic(t)
	s.Enqueue(
		fakellm.Reply{ToolCalls: []fakellm.ToolCall{{ID: "toolu_1", Name: "lookup", Arguments: `{"q":"a"}`}, {ID: "toolu_2", Name: "lookup", Arguments: `{"q":"b"}`}},
			Usage: fakellm.Usage{Input: 10, Output: 5}},
		fakellm.Reply{Text: "done", Usage: fakellm.Usage{Input: 30, Output: 2}})
	p := newProvider(s)
	tool := llm.Tool{Name: "lookup", Description: "look up", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`)}
	res, err := llm.RunToolLoop(context.Background(), p, llm.ChatRequest{Model: "claude", Tools: []llm.Tool{tool},
		ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceRequired}, Messages: []llm.Message{llm.User("look both up")}},
		func(ctx context.Context, c llm.ToolCall) (string, error) {
			if strings.Contains(string(c.Arguments), `"b"`) {
				return "", errors.New("not found")
			}
			return "found a", nil
		}, llm.ToolLoopOptions{})
	if err != nil || res.Response.Text() != "done" || len(res.Calls) != 2 || res.Calls[1].Succeeded {
		t.Fatalf("res %+v err %v", res, err)
	}
	first := s.Requests()[0].JSON()
	tools := first["tools"].([]any)[0].(map[string]any)
	schema := tools["input_schema"].(map[string]any)
	if schema["type"] != "object" || schema["additionalProperties"] != false || schema["required"].([]any)[0] != "q" {
		t.Errorf("tool schema %v", schema)
	}
	if first["tool_choice"].(map[string]any)["type"] != "any" {
		t.Errorf("tool choice %v", first["tool_choice"])
	}
	// Both tool results travel in one user turn after the assistant turn.
	msgs := s.Requests()[1].JSON()["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("%d turns: %v", len(msgs), msgs)
	}
	results := msgs[2].(map[string]any)["content"].([]any)
	r2 := results[1].(map[string]any)
	if len(results) != 2 || r2["type"] != "tool_result" || r2["tool_use_id"] != "toolu_2" || r2["is_error"] != true {
		t.Errorf("tool results %v", results)
	}
}

func TestStreamTextToolsUsage(t *testing.T) {
	s := fakellm.NewAnthropic(t)
	s.Enqueue(fakellm.Reply{Text: "alpha beta gamma", ToolCalls: []fakellm.ToolCall{{ID: "toolu_9", Name: "f", Arguments: `{"x":[1,2,3]}`}},
		Usage: fakellm.Usage{Input: 50, Output: 20, Cached: 40}})
	p := newProvider(s)
	var text, args strings.Builder
	var last llm.Delta
	resp, err := p.Stream(context.Background(), llm.ChatRequest{Model: "claude", Messages: []llm.Message{llm.User("go")}}, func(d llm.Delta) error {
		text.WriteString(d.Text)
		if d.ToolCall != nil {
			args.WriteString(d.ToolCall.ArgumentsDelta)
		}
		last = d
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != "alpha beta gamma" || resp.Text() != "alpha beta gamma" || args.String() != `{"x":[1,2,3]}` {
		t.Errorf("text %q args %q", text.String(), args.String())
	}
	if c := resp.ToolCalls(); len(c) != 1 || c[0].ID != "toolu_9" || string(c[0].Arguments) != `{"x":[1,2,3]}` || resp.FinishReason != llm.FinishToolCalls {
		t.Errorf("calls %+v", c)
	}
	if last.Usage == nil || *last.Usage != (llm.Usage{InputTokens: 50, OutputTokens: 20, CachedInputTokens: 40}) {
		t.Errorf("usage %+v", last.Usage)
	}
}

func TestJSONModes(t *testing.T) {
	s := fakellm.NewAnthropic(t)
	s.Enqueue(fakellm.Reply{Text: "Here you go:\n```json\n{\"a\": 1}\n```"}, fakellm.Reply{Text: `{"a":2}`})
	p := newProvider(s)
	resp, err := p.Chat(context.Background(), llm.ChatRequest{Model: "c", ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONObject},
		Messages: []llm.Message{llm.User("json")}})
	if err != nil || resp.Text() != `{"a": 1}` {
		t.Errorf("json object extraction: %q %v", resp.Text(), err)
	}
	if sys := s.Requests()[0].JSON()["system"].([]any)[0].(map[string]any)["text"].(string); !strings.Contains(sys, "JSON object") {
		t.Errorf("json instruction missing: %q", sys)
	}
	_, err = p.Chat(context.Background(), llm.ChatRequest{Model: "c", ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema,
		Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}`)},
		Messages: []llm.Message{llm.User("json")}})
	if err != nil {
		t.Fatal(err)
	}
	oc := s.Requests()[1].JSON()["output_config"].(map[string]any)["format"].(map[string]any)
	if oc["type"] != "json_schema" || oc["schema"].(map[string]any)["required"].([]any)[0] != "a" {
		t.Errorf("output_config %v", oc)
	}
}

func TestErrorsRetriesAndTimeouts(t *testing.T) {
	s := fakellm.NewAnthropic(t)
	s.Enqueue(fakellm.Reply{Status: 529, ErrorType: "overloaded_error", ErrorMessage: "Overloaded", RetryAfter: "1"},
		fakellm.Reply{Text: "ok"})
	p := newProvider(s)
	start := time.Now()
	resp, err := p.Chat(context.Background(), llm.ChatRequest{Model: "c", Messages: []llm.Message{llm.User("x")}})
	if err != nil || resp.Text() != "ok" || time.Since(start) < time.Second {
		t.Fatalf("529 then ok: %v %v after %v", resp, err, time.Since(start))
	}
	s.Enqueue(fakellm.Reply{Status: 401, ErrorType: "authentication_error", ErrorMessage: "invalid x-api-key"})
	_, err = p.Chat(context.Background(), llm.ChatRequest{Model: "c", Messages: []llm.Message{llm.User("x")}})
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Type != "authentication_error" || apiErr.Message != "invalid x-api-key" {
		t.Errorf("401: %#v", err)
	}
	if n := len(s.Requests()); n != 3 {
		t.Errorf("%d requests; the 401 must not be retried", n)
	}
	s.SetDefault(fakellm.Reply{Text: "one two three", StallAfter: 1})
	start = time.Now()
	var got string
	_, err = p.Stream(context.Background(), llm.ChatRequest{Model: "c", Timeout: 200 * time.Millisecond, Messages: []llm.Message{llm.User("x")}},
		func(d llm.Delta) error { got += d.Text; return nil })
	if !errors.Is(err, context.DeadlineExceeded) || got != "one " || time.Since(start) > 2*time.Second {
		t.Errorf("stalled stream: err %v got %q after %v", err, got, time.Since(start))
	}
}

func TestEmbedUnsupported(t *testing.T) {
	if _, err := New(Config{}).Embed(context.Background(), llm.EmbedRequest{}); !errors.Is(err, llm.ErrUnsupported) {
		t.Error(err)
	}
}

// With extended thinking on, the API refuses tool results whose assistant
// turn lost its signed thinking: the loop must send the blocks back exactly,
// whether the first round was a plain call or a stream.
func TestThinkingBlocksReplayedInToolLoop(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		s := fakellm.NewAnthropic(t)
		s.Enqueue(
			fakellm.Reply{Thinking: "I should look it up first.", ThinkingSignature: "sig-abc==", RedactedThinking: "enc-xyz",
				ToolCalls: []fakellm.ToolCall{{ID: "toolu_1", Name: "lookup", Arguments: `{"q":"a"}`}}},
			fakellm.Reply{Text: "done"})
		p := newProvider(s)
		req := llm.ChatRequest{Model: "claude", Thinking: &llm.Thinking{BudgetTokens: 2000},
			Tools:    []llm.Tool{{Name: "lookup", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}},
			Messages: []llm.Message{llm.User("look it up")}}
		var first *llm.ChatResponse
		var err error
		if streamed {
			var reasoning strings.Builder
			first, err = p.Stream(context.Background(), req, func(d llm.Delta) error { reasoning.WriteString(d.Reasoning); return nil })
			if reasoning.String() != "I should look it up first." {
				t.Errorf("streamed reasoning %q", reasoning.String())
			}
		} else {
			first, err = p.Chat(context.Background(), req)
		}
		if err != nil {
			t.Fatal(err)
		}
		want := []llm.ThinkingBlock{{Text: "I should look it up first.", Signature: "sig-abc=="}, {Redacted: "enc-xyz"}}
		if got := first.Message.Thinking; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("streamed=%v: thinking blocks %+v", streamed, got)
		}
		if first.Reasoning != "I should look it up first." {
			t.Errorf("reasoning %q", first.Reasoning)
		}
		req.Messages = append(req.Messages, first.Message, llm.ToolResult(first.ToolCalls()[0], "found", false))
		if _, err := p.Chat(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		msgs := s.Requests()[1].JSON()["messages"].([]any)
		blocks := msgs[1].(map[string]any)["content"].([]any)
		if len(blocks) != 3 {
			t.Fatalf("streamed=%v: assistant turn sent back as %v", streamed, blocks)
		}
		b0, b1, b2 := blocks[0].(map[string]any), blocks[1].(map[string]any), blocks[2].(map[string]any)
		if b0["type"] != "thinking" || b0["thinking"] != "I should look it up first." || b0["signature"] != "sig-abc==" ||
			b1["type"] != "redacted_thinking" || b1["data"] != "enc-xyz" || b2["type"] != "tool_use" {
			t.Errorf("streamed=%v: assistant turn sent back as %v", streamed, blocks)
		}
	}
}
