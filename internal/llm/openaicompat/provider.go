// Package openaicompat is the llm.Provider for every endpoint that speaks
// the OpenAI chat-completions and embeddings protocol: OpenAI itself, and
// Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, Mistral and Gemini's
// compatibility endpoint, selected by base URL. It speaks the wire format
// itself (wire.go) and leaves retries to llm.RetryPolicy, so every provider
// retries the same way.
package openaicompat

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/agentry/agentry/internal/llm"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures one endpoint.
type Config struct {
	// Name labels errors and logs ("openai", "ollama"…).
	Name    string
	BaseURL string
	// APIKey may be empty for local servers (Ollama, vLLM without auth).
	APIKey  string
	Headers map[string]string
	// Timeout is the default per-call timeout (retries included); zero
	// means 10 minutes, long enough for slow reasoning models.
	Timeout time.Duration
	Retry   llm.RetryPolicy
	// HTTPClient overrides the transport (tests, proxies).
	HTTPClient *http.Client
}

// DefaultTimeout applies when neither the request nor Config sets one.
const DefaultTimeout = 10 * time.Minute

// Provider talks to one OpenAI-compatible endpoint.
type Provider struct {
	cfg  Config
	http *http.Client
}

var _ llm.Provider = (*Provider)(nil)

// New returns a provider for cfg.
func New(cfg Config) *Provider {
	if cfg.Name == "" {
		cfg.Name = "openai"
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Retry.MaxAttempts == 0 {
		cfg.Retry = llm.DefaultRetryPolicy
	}
	// A keyless endpoint (a local Ollama) gets no Authorization header:
	// the key is only ever the one configured for it.
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Provider{cfg: cfg, http: hc}
}

// Chat implements llm.Provider.
func (p *Provider) Chat(ctx context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	params, err := buildParams(req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := llm.WithTimeout(ctx, req.Timeout, p.cfg.Timeout)
	defer cancel()
	var resp *llm.ChatResponse
	err = p.cfg.Retry.Do(ctx, func(ctx context.Context) error {
		r, err := p.post(ctx, "/chat/completions", params, false)
		if err != nil {
			return err
		}
		var out chatCompletion
		if err := decode(r, &out); err != nil {
			return err
		}
		resp, err = fromCompletion(&out)
		return err
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req llm.ChatRequest, fn llm.StreamFunc) (*llm.ChatResponse, error) {
	params, err := buildParams(req)
	if err != nil {
		return nil, err
	}
	params.Stream, params.StreamOptions = true, &streamOptions{IncludeUsage: true}
	ctx, cancel := llm.WithTimeout(ctx, req.Timeout, p.cfg.Timeout)
	defer cancel()
	return p.cfg.Retry.DoStream(ctx, fn, func(ctx context.Context, emit llm.StreamFunc) (*llm.ChatResponse, error) {
		r, err := p.post(ctx, "/chat/completions", params, true)
		if err != nil {
			return nil, err
		}
		defer r.Body.Close()
		acc := newAccumulator(llm.EstimateRequestTokens(req))
		if err := p.chunks(r.Body, func(c chatChunk) error { return acc.add(c, emit) }); err != nil {
			return nil, err
		}
		return acc.finish(emit)
	})
}

// Embed implements llm.Provider.
func (p *Provider) Embed(ctx context.Context, req llm.EmbedRequest) (*llm.EmbedResponse, error) {
	params := embeddingRequest{Model: req.Model, Input: req.Input}
	if req.Dimensions > 0 {
		params.Dimensions = &req.Dimensions
	}
	ctx, cancel := llm.WithTimeout(ctx, req.Timeout, p.cfg.Timeout)
	defer cancel()
	var resp *llm.EmbedResponse
	err := p.cfg.Retry.Do(ctx, func(ctx context.Context) error {
		r, err := p.post(ctx, "/embeddings", params, false)
		if err != nil {
			return err
		}
		var out embeddingResponse
		if err := decode(r, &out); err != nil {
			return err
		}
		resp = &llm.EmbedResponse{Model: out.Model, Vectors: make([][]float32, len(req.Input)),
			Usage: llm.Usage{InputTokens: int(out.Usage.PromptTokens)}}
		for _, d := range out.Data {
			if d.Index < 0 || d.Index >= len(resp.Vectors) {
				return errors.New(p.cfg.Name + ": embedding index out of range")
			}
			resp.Vectors[d.Index] = d.Embedding
		}
		for i, v := range resp.Vectors {
			if v == nil {
				return errors.New(p.cfg.Name + ": missing embedding for input " + itoa(i))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
