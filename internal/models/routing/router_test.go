package routing

import (
	"context"
	"errors"
	"testing"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/llmtest"
	"github.com/agentry/agentry/internal/models/catalog"
)

func TestRouterResolution(t *testing.T) {
	cat := catalog.Builtin()
	r := NewRouter(cat)
	openai := &llmtest.Recorder{Name: "openai"}
	ollama := &llmtest.Recorder{Name: "ollama"}
	offline := &llmtest.Recorder{Name: "offline"}
	r.Register("openai", openai, Serving{CatalogProviders: []string{"openai"}})
	r.Register("ollama", ollama, Serving{CatalogProviders: []string{"meta"}, Dialect: "ollama"})
	r.Register("offline", offline, Serving{CatalogProviders: []string{"agentry"}})

	resp, err := r.Chat(context.Background(), llm.ChatRequest{Model: "openai_gpt_4o", Messages: []llm.Message{llm.User("x")}})
	if err != nil || resp.Model != "openai_gpt_4o" || resp.UpstreamModel != "gpt-4o" || openai.Models()[0] != "gpt-4o" {
		t.Fatalf("openai route: %+v %v %v", resp, err, openai.Models())
	}
	// API names resolve too; dialect picks the server's name.
	if _, err := r.Chat(context.Background(), llm.ChatRequest{Model: "meta_llama_3_1_8b", Messages: []llm.Message{llm.User("x")}}); err != nil || ollama.Models()[0] != "llama3.1:8b" {
		t.Errorf("ollama dialect: %v %v", err, ollama.Models())
	}
	// Empty model → catalog default (the offline model).
	if resp, err := r.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{llm.User("x")}}); err != nil || resp.Model != "agentry_offline" {
		t.Errorf("default: %+v %v", resp, err)
	}
	// Unconfigured provider, disabled and unknown models.
	if _, err := r.Chat(context.Background(), llm.ChatRequest{Model: "anthropic_claude_haiku_4_5"}); !errors.Is(err, llm.ErrProviderNotConfigured) {
		t.Errorf("unconfigured: %v", err)
	}
	if _, err := r.Chat(context.Background(), llm.ChatRequest{Model: "anthropic_claude_3_opus"}); !errors.Is(err, llm.ErrUnknownModel) {
		t.Errorf("disabled: %v", err)
	}
	if _, err := r.Chat(context.Background(), llm.ChatRequest{Model: "nope"}); !errors.Is(err, llm.ErrUnknownModel) {
		t.Errorf("unknown: %v", err)
	}
	if _, err := r.Chat(context.Background(), llm.ChatRequest{Model: "openai_text_embedding_3_small"}); !errors.Is(err, llm.ErrUnsupported) {
		t.Errorf("embedding model used for chat: %v", err)
	}
	// Explicit route and fallback.
	r.SetRoute("anthropic_claude_haiku_4_5", Route{Provider: "ollama", Upstream: "my-haiku-proxy"})
	if _, err := r.Chat(context.Background(), llm.ChatRequest{Model: "anthropic_claude_haiku_4_5"}); err != nil || ollama.Models()[1] != "my-haiku-proxy" {
		t.Errorf("explicit route: %v %v", err, ollama.Models())
	}
	r.SetFallback("offline")
	if resp, err := r.Chat(context.Background(), llm.ChatRequest{Model: "google_gemini_2_5_pro"}); err != nil || resp.Text() != "offline" || resp.Model != "google_gemini_2_5_pro" {
		t.Errorf("fallback: %+v %v", resp, err)
	}
	if !r.Available("google_gemini_2_5_pro") || r.Available("nope") {
		t.Error("Available")
	}
	// Media the model cannot take is refused before any call.
	img := llm.User("what is this?", llm.ImagePart("image/png", []byte{1}))
	if _, err := r.Chat(context.Background(), llm.ChatRequest{Model: "openai_o3_mini", Messages: []llm.Message{img}}); !errors.Is(err, llm.ErrUnsupported) {
		t.Errorf("image to text-only model: %v", err)
	}
	if _, err := r.Chat(context.Background(), llm.ChatRequest{Model: "openai_gpt_4o", Messages: []llm.Message{img}}); err != nil {
		t.Errorf("image to gpt-4o: %v", err)
	}
	pdf := llm.User("read", llm.DocumentPart("a.pdf", "application/pdf", []byte("%PDF"), ""))
	if _, err := r.Stream(context.Background(), llm.ChatRequest{Model: "meta_llama_3_1_8b", Messages: []llm.Message{pdf}}, func(llm.Delta) error { return nil }); !errors.Is(err, llm.ErrUnsupported) {
		t.Errorf("pdf to llama: %v", err)
	}
	// Embeddings: default model and dimension checks.
	er, err := r.Embed(context.Background(), llm.EmbedRequest{Input: []string{"a"}})
	if err != nil || er.Model != "agentry_offline_embed" || len(er.Vectors[0]) != 384 {
		t.Errorf("embed default: %+v %v", er, err)
	}
	if _, err := r.Embed(context.Background(), llm.EmbedRequest{Model: "mistral_embed", Input: []string{"a"}, Dimensions: 12}); !errors.Is(err, llm.ErrUnsupported) {
		t.Errorf("fixed-dimension model accepted 12 dims: %v", err)
	}
}
