// Package anthropic is the llm.Provider for Anthropic's Messages API,
// built on the official SDK. The SDK's retries are switched off in favour
// of llm.RetryPolicy, and its environment defaults are ignored: the key
// and base URL come from Config (which llmconfig fills from the providers
// file or ANTHROPIC_API_KEY), so configuration has one source.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

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
	client sdk.Client
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
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0),
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Provider{cfg: cfg, client: sdk.NewClient(opts...)}
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
		msg, err := p.client.Messages.New(ctx, params)
		if err != nil {
			return p.convertError(err)
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
	ctx, cancel := llm.WithTimeout(ctx, req.Timeout, p.cfg.Timeout)
	defer cancel()
	return p.cfg.Retry.DoStream(ctx, fn, func(ctx context.Context, emit llm.StreamFunc) (*llm.ChatResponse, error) {
		stream := p.client.Messages.NewStreaming(ctx, params)
		defer stream.Close()
		acc := newAccumulator()
		for stream.Next() {
			if err := acc.add(stream.Current(), emit); err != nil {
				return nil, err
			}
		}
		if err := stream.Err(); err != nil {
			return nil, p.convertError(err)
		}
		return acc.finish(emit, req.ResponseFormat.Type)
	})
}

// Embed implements llm.Provider: Anthropic has no embeddings endpoint.
func (p *Provider) Embed(context.Context, llm.EmbedRequest) (*llm.EmbedResponse, error) {
	return nil, llm.ErrUnsupported
}

// convertError maps SDK errors to llm.APIError.
func (p *Provider) convertError(err error) error {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return err
	}
	e := &llm.APIError{Provider: p.cfg.Name, StatusCode: apiErr.StatusCode, Type: string(apiErr.Type())}
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(apiErr.RawJSON()), &body) == nil && body.Error.Message != "" {
		e.Message = body.Error.Message
	} else {
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
