// Package openaicompat is the llm.Provider for every endpoint that speaks
// the OpenAI chat-completions and embeddings protocol: OpenAI itself, and
// Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, Mistral and Gemini's
// compatibility endpoint, selected by base URL. It uses the official SDK
// for the wire format and leaves retries to llm.RetryPolicy (the SDK's own
// retries are switched off) so every provider retries the same way.
package openaicompat

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

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
	cfg    Config
	client openai.Client
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
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	} else {
		// NewClient reads OPENAI_API_KEY by itself; a keyless endpoint
		// (a local Ollama) must not receive the user's OpenAI key.
		opts = append(opts, option.WithHeaderDel("Authorization"))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Provider{cfg: cfg, client: openai.NewClient(opts...)}
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
		out, err := p.client.Chat.Completions.New(ctx, params)
		if err != nil {
			return p.convertError(err)
		}
		resp, err = fromCompletion(out)
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
	params.StreamOptions.IncludeUsage = openai.Bool(true)
	ctx, cancel := llm.WithTimeout(ctx, req.Timeout, p.cfg.Timeout)
	defer cancel()
	return p.cfg.Retry.DoStream(ctx, fn, func(ctx context.Context, emit llm.StreamFunc) (*llm.ChatResponse, error) {
		stream := p.client.Chat.Completions.NewStreaming(ctx, params)
		defer stream.Close()
		acc := newAccumulator(llm.EstimateRequestTokens(req))
		for stream.Next() {
			if err := acc.add(stream.Current(), emit); err != nil {
				return nil, err
			}
		}
		if err := stream.Err(); err != nil {
			return nil, p.convertError(err)
		}
		return acc.finish(emit)
	})
}

// Embed implements llm.Provider.
func (p *Provider) Embed(ctx context.Context, req llm.EmbedRequest) (*llm.EmbedResponse, error) {
	params := openai.EmbeddingNewParams{
		Model: openai.EmbeddingModel(req.Model),
		Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: req.Input},
	}
	if req.Dimensions > 0 {
		params.Dimensions = openai.Int(int64(req.Dimensions))
	}
	ctx, cancel := llm.WithTimeout(ctx, req.Timeout, p.cfg.Timeout)
	defer cancel()
	var resp *llm.EmbedResponse
	err := p.cfg.Retry.Do(ctx, func(ctx context.Context) error {
		out, err := p.client.Embeddings.New(ctx, params)
		if err != nil {
			return p.convertError(err)
		}
		resp = &llm.EmbedResponse{Model: out.Model, Vectors: make([][]float32, len(req.Input)),
			Usage: llm.Usage{InputTokens: int(out.Usage.PromptTokens)}}
		for _, d := range out.Data {
			if d.Index < 0 || int(d.Index) >= len(resp.Vectors) {
				return errors.New(p.cfg.Name + ": embedding index out of range")
			}
			v := make([]float32, len(d.Embedding))
			for i, x := range d.Embedding {
				v[i] = float32(x)
			}
			resp.Vectors[d.Index] = v
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

// convertError maps SDK errors to llm.APIError so retry and the API layer
// see one error type for every provider.
func (p *Provider) convertError(err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		e := &llm.APIError{Provider: p.cfg.Name, StatusCode: apiErr.StatusCode, Type: apiErr.Type, Message: apiErr.Message}
		if apiErr.Code != "" && e.Type == "" {
			e.Type = apiErr.Code
		}
		if e.Message == "" {
			e.Message = strings.TrimSpace(apiErr.RawJSON())
		}
		if e.Message == "" {
			e.Message = http.StatusText(apiErr.StatusCode)
		}
		if apiErr.Response != nil {
			e.RetryAfter = llm.ParseRetryAfter(apiErr.Response.Header, time.Now())
		}
		return e
	}
	return err
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
