package llm

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/models/catalog"
)

// recorder is a Provider that records what it was asked and answers with
// fixed usage.
type recorder struct {
	mu     sync.Mutex
	name   string
	models []string
	usage  Usage
	err    error
	deltas []Delta
}

func (r *recorder) Chat(_ context.Context, req ChatRequest) (*ChatResponse, error) {
	r.mu.Lock()
	r.models = append(r.models, req.Model)
	r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	return &ChatResponse{Model: req.Model, Message: Assistant(r.name), Usage: r.usage, FinishReason: FinishStop}, nil
}

func (r *recorder) Stream(ctx context.Context, req ChatRequest, fn StreamFunc) (*ChatResponse, error) {
	for _, d := range r.deltas {
		if err := fn(d); err != nil {
			return nil, err
		}
	}
	return r.Chat(ctx, req)
}

func (r *recorder) Embed(_ context.Context, req EmbedRequest) (*EmbedResponse, error) {
	r.mu.Lock()
	r.models = append(r.models, req.Model)
	r.mu.Unlock()
	vs := make([][]float32, len(req.Input))
	for i := range vs {
		vs[i] = make([]float32, req.Dimensions)
	}
	return &EmbedResponse{Model: req.Model, Vectors: vs, Usage: r.usage}, nil
}

func TestRouterResolution(t *testing.T) {
	cat := catalog.Builtin()
	r := NewRouter(cat)
	openai := &recorder{name: "openai"}
	ollama := &recorder{name: "ollama"}
	offline := &recorder{name: "offline"}
	r.Register("openai", openai, Serving{CatalogProviders: []string{"openai"}})
	r.Register("ollama", ollama, Serving{CatalogProviders: []string{"meta"}, Dialect: "ollama"})
	r.Register("offline", offline, Serving{CatalogProviders: []string{"agentry"}})

	resp, err := r.Chat(context.Background(), ChatRequest{Model: "openai_gpt_4o", Messages: []Message{User("x")}})
	if err != nil || resp.Model != "openai_gpt_4o" || resp.UpstreamModel != "gpt-4o" || openai.models[0] != "gpt-4o" {
		t.Fatalf("openai route: %+v %v %v", resp, err, openai.models)
	}
	// API names resolve too; dialect picks the server's name.
	if _, err := r.Chat(context.Background(), ChatRequest{Model: "meta_llama_3_1_8b", Messages: []Message{User("x")}}); err != nil || ollama.models[0] != "llama3.1:8b" {
		t.Errorf("ollama dialect: %v %v", err, ollama.models)
	}
	// Empty model → catalog default (the offline model).
	if resp, err := r.Chat(context.Background(), ChatRequest{Messages: []Message{User("x")}}); err != nil || resp.Model != "agentry_offline" {
		t.Errorf("default: %+v %v", resp, err)
	}
	// Unconfigured provider, disabled and unknown models.
	if _, err := r.Chat(context.Background(), ChatRequest{Model: "anthropic_claude_haiku_4_5"}); !errors.Is(err, ErrProviderNotConfigured) {
		t.Errorf("unconfigured: %v", err)
	}
	if _, err := r.Chat(context.Background(), ChatRequest{Model: "anthropic_claude_3_opus"}); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("disabled: %v", err)
	}
	if _, err := r.Chat(context.Background(), ChatRequest{Model: "nope"}); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := r.Chat(context.Background(), ChatRequest{Model: "openai_text_embedding_3_small"}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("embedding model used for chat: %v", err)
	}
	// Explicit route and fallback.
	r.SetRoute("anthropic_claude_haiku_4_5", Route{Provider: "ollama", Upstream: "my-haiku-proxy"})
	if _, err := r.Chat(context.Background(), ChatRequest{Model: "anthropic_claude_haiku_4_5"}); err != nil || ollama.models[1] != "my-haiku-proxy" {
		t.Errorf("explicit route: %v %v", err, ollama.models)
	}
	r.SetFallback("offline")
	if resp, err := r.Chat(context.Background(), ChatRequest{Model: "google_gemini_2_5_pro"}); err != nil || resp.Text() != "offline" || resp.Model != "google_gemini_2_5_pro" {
		t.Errorf("fallback: %+v %v", resp, err)
	}
	if !r.Available("google_gemini_2_5_pro") || r.Available("nope") {
		t.Error("Available")
	}
	// Media the model cannot take is refused before any call.
	img := User("what is this?", ImagePart("image/png", []byte{1}))
	if _, err := r.Chat(context.Background(), ChatRequest{Model: "openai_o3_mini", Messages: []Message{img}}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("image to text-only model: %v", err)
	}
	if _, err := r.Chat(context.Background(), ChatRequest{Model: "openai_gpt_4o", Messages: []Message{img}}); err != nil {
		t.Errorf("image to gpt-4o: %v", err)
	}
	pdf := User("read", DocumentPart("a.pdf", "application/pdf", []byte("%PDF"), ""))
	if _, err := r.Stream(context.Background(), ChatRequest{Model: "meta_llama_3_1_8b", Messages: []Message{pdf}}, func(Delta) error { return nil }); !errors.Is(err, ErrUnsupported) {
		t.Errorf("pdf to llama: %v", err)
	}
	// Embeddings: default model and dimension checks.
	er, err := r.Embed(context.Background(), EmbedRequest{Input: []string{"a"}})
	if err != nil || er.Model != "agentry_offline_embed" || len(er.Vectors[0]) != 384 {
		t.Errorf("embed default: %+v %v", er, err)
	}
	if _, err := r.Embed(context.Background(), EmbedRequest{Model: "mistral_embed", Input: []string{"a"}, Dimensions: 12}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("fixed-dimension model accepted 12 dims: %v", err)
	}
}

func TestToolLoopRoundLimit(t *testing.T) {
	p := &loopy{}
	res, err := RunToolLoop(context.Background(), p, ChatRequest{Tools: []Tool{{Name: "t"}}, Messages: []Message{User("go")}},
		func(context.Context, ToolCall) (string, error) { return "again", nil }, ToolLoopOptions{MaxRounds: 2})
	if !errors.Is(err, ErrToolRoundsExceeded) || res.Rounds != 3 || len(res.Calls) != 2 {
		t.Errorf("err %v rounds %d calls %d", err, res.Rounds, len(res.Calls))
	}
	if p.lastChoice != ToolChoiceNone {
		t.Error("final round did not disable tools")
	}
	if res.Calls[1].Round != 1 || res.Calls[1].Sequence != 1 || res.Usage.InputTokens != 3 {
		t.Errorf("records %+v usage %+v", res.Calls, res.Usage)
	}
}

// loopy always asks for a tool.
type loopy struct{ lastChoice ToolChoiceMode }

func (l *loopy) Chat(_ context.Context, req ChatRequest) (*ChatResponse, error) {
	l.lastChoice = req.ToolChoice.Mode
	return &ChatResponse{Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Name: "t", Arguments: []byte("{}")}}},
		Usage: Usage{InputTokens: 1}}, nil
}
func (l *loopy) Stream(ctx context.Context, req ChatRequest, _ StreamFunc) (*ChatResponse, error) {
	return l.Chat(ctx, req)
}
func (l *loopy) Embed(context.Context, EmbedRequest) (*EmbedResponse, error) {
	return nil, ErrUnsupported
}
