// Package anthropic is the llm.Provider for Anthropic's Messages API. It
// speaks the wire format itself (wire.go, call.go) and leaves retries to
// llm.RetryPolicy, so every provider retries the same way. It reads no
// environment: the key and base URL come from Config (which llmconfig
// fills from the providers file or ANTHROPIC_API_KEY), so configuration
// has one source.
package anthropic

import (
	"context"
	"net/http"
	"time"

	"github.com/agentry/agentry/internal/llm"
)

// DefaultBaseURL is Anthropic's API origin.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens is sent when a request sets none: the Messages API
// requires max_tokens on every call.
const DefaultMaxTokens = 4096

// DefaultTimeout applies when neither the request nor Config sets one.
const DefaultTimeout = 10 * time.Minute

// Config configures the endpoint.
type Config struct {
	Name       string
	BaseURL    string
	APIKey     string
	Headers    map[string]string
	Timeout    time.Duration
	Retry      llm.RetryPolicy
	HTTPClient *http.Client
}

// Provider talks to the Anthropic Messages API.
type Provider struct {
	cfg    Config
	http   *http.Client
	limits limits
}

var _ llm.Provider = (*Provider)(nil)

// New returns a provider for cfg.
func New(cfg Config) *Provider {
	if cfg.Name == "" {
		cfg.Name = "anthropic"
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
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Provider{cfg: cfg, http: hc, limits: defaultLimits}
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
		r, err := p.post(ctx, params)
		if err != nil {
			return err
		}
		msg, err := p.decodeMessage(r)
		if err != nil {
			return err
		}
		resp = fromMessage(msg, req.ResponseFormat.Type)
		return nil
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
	params.Stream = true
	ctx, cancel := llm.WithTimeout(ctx, req.Timeout, p.cfg.Timeout)
	defer cancel()
	return p.cfg.Retry.DoStream(ctx, fn, func(ctx context.Context, emit llm.StreamFunc) (*llm.ChatResponse, error) {
		r, err := p.post(ctx, params)
		if err != nil {
			return nil, err
		}
		defer r.Body.Close()
		acc := newAccumulator()
		if err := p.events(r.Body, func(ev streamEvent) error { return acc.add(ev, emit) }); err != nil {
			return nil, err
		}
		return acc.finish(emit, req.ResponseFormat.Type)
	})
}

// Embed implements llm.Provider: Anthropic has no embeddings endpoint.
func (p *Provider) Embed(context.Context, llm.EmbedRequest) (*llm.EmbedResponse, error) {
	return nil, llm.ErrUnsupported
}
