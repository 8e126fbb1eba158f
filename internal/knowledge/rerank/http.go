package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/llm"
)

// Kinds of rerank endpoint HTTP speaks.
const (
	// KindOpenAI is the rerank route OpenAI-compatible servers expose
	// beside /v1/chat/completions (vLLM, llama.cpp, Jina, LocalAI…):
	// POST {baseURL}/rerank, baseURL usually ending in /v1.
	KindOpenAI = "openai"
	// KindCohere is POST {baseURL}/v1/rerank in Cohere's shape.
	KindCohere = "cohere"
)

// Limits on what is sent and accepted. Candidate lists are top-k results,
// far below these; the bounds stop a misconfigured caller or a hostile
// endpoint from costing unbounded memory or time.
const (
	MaxDocs           = 1000
	MaxRequestBytes   = 8 << 20
	MaxResponseBytes  = 4 << 20
	DefaultTimeout    = 30 * time.Second
	maxErrorBodyBytes = 64 << 10
)

// ErrTooLarge is returned, before any call, for a request over the limits.
var ErrTooLarge = errors.New("rerank: request too large")

// HTTP returns a reranker calling the endpoint of the given kind
// ("openai" or "cohere"; "openai-compatible" and "jina" are accepted for
// the former). apiKey, when set, is sent as a bearer token. client should
// be the caller's outbound-guarded client; nil means a plain client with
// DefaultTimeout. Every call is also bounded by DefaultTimeout unless the
// context has an earlier deadline.
func HTTP(kind, baseURL, apiKey, model string, client *http.Client) Reranker {
	if client == nil {
		client = &http.Client{Timeout: DefaultTimeout}
	}
	h := &httpReranker{kind: strings.ToLower(strings.TrimSpace(kind)), apiKey: apiKey, model: model, client: client}
	base := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	switch h.kind {
	case KindOpenAI, "openai-compatible", "openai_compatible", "jina":
		h.kind = KindOpenAI
		h.url = base + "/rerank"
	case KindCohere:
		if strings.HasSuffix(base, "/v1") {
			h.url = base + "/rerank"
		} else {
			h.url = base + "/v1/rerank"
		}
	}
	return h
}

type httpReranker struct {
	kind, url, apiKey, model string
	client                   *http.Client
}

type rerankRequest struct {
	Model           string   `json:"model,omitempty"`
	Query           string   `json:"query"`
	Documents       []string `json:"documents"`
	TopN            int      `json:"top_n"`
	ReturnDocuments bool     `json:"return_documents"`
}

func (h *httpReranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if h.url == "" {
		return nil, fmt.Errorf("rerank: unknown endpoint kind %q (want %q or %q)", h.kind, KindOpenAI, KindCohere)
	}
	if len(docs) == 0 {
		return []float64{}, nil
	}
	if len(docs) > MaxDocs {
		return nil, fmt.Errorf("%w: %d documents, at most %d", ErrTooLarge, len(docs), MaxDocs)
	}
	body, err := json.Marshal(rerankRequest{Model: h.model, Query: query, Documents: docs, TopN: len(docs)})
	if err != nil {
		return nil, fmt.Errorf("rerank: encode request: %w", err)
	}
	if len(body) > MaxRequestBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(body), MaxRequestBytes)
	}
	// Bounded on its own, whatever the caller's deadline.
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if h.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+h.apiKey)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("rerank: %s endpoint: %w", h.kind, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes))
		return nil, &llm.APIError{
			Provider:   "rerank (" + h.kind + ")",
			StatusCode: resp.StatusCode,
			Message:    errorMessage(raw),
			RetryAfter: retryAfter(resp.Header.Get("Retry-After")),
		}
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("rerank: read response: %w", err)
	}
	if len(raw) > MaxResponseBytes {
		return nil, fmt.Errorf("rerank: response larger than %d bytes", MaxResponseBytes)
	}
	return ParseResponse(raw, len(docs))
}

// ParseResponse reads a rerank answer for n documents. It accepts the
// result list under "results" (Cohere, Jina, vLLM) or "data", and the score
// as "relevance_score" or "score". Documents the endpoint left unscored
// rank after every scored one.
func ParseResponse(raw []byte, n int) ([]float64, error) {
	var body struct {
		Results []result `json:"results"`
		Data    []result `json:"data"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("rerank: malformed response: %w", err)
	}
	rs := body.Results
	if rs == nil {
		rs = body.Data
	}
	if rs == nil {
		return nil, errors.New(`rerank: response has no "results"`)
	}
	scores := make([]float64, n)
	scored := make([]bool, n)
	lowest := 0.0
	for i, r := range rs {
		if r.Index == nil {
			return nil, fmt.Errorf("rerank: result %d has no index", i)
		}
		idx := *r.Index
		if idx < 0 || idx >= n {
			return nil, fmt.Errorf("rerank: result %d has index %d outside the %d documents", i, idx, n)
		}
		if scored[idx] {
			return nil, fmt.Errorf("rerank: document %d scored twice", idx)
		}
		s := r.RelevanceScore
		if s == nil {
			s = r.Score
		}
		if s == nil {
			return nil, fmt.Errorf("rerank: result %d has no score", i)
		}
		scores[idx], scored[idx] = *s, true
		if i == 0 || *s < lowest {
			lowest = *s
		}
	}
	for i := range scores {
		if !scored[i] {
			scores[i] = lowest - 1
		}
	}
	return scores, nil
}

type result struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"`
}

// errorMessage pulls a human-readable message out of the common error
// shapes ({"error":{"message"}}, {"error":"…"}, {"message"}, {"detail"}),
// falling back to the start of the body.
func errorMessage(raw []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(raw, &e) == nil {
		var nested struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(e.Error, &nested) == nil && nested.Message != "":
			return nested.Message
		case json.Unmarshal(e.Error, &s) == nil && s != "":
			return s
		case e.Message != "":
			return e.Message
		case json.Unmarshal(e.Detail, &s) == nil && s != "":
			return s
		}
	}
	msg := strings.TrimSpace(string(raw))
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

func retryAfter(v string) time.Duration {
	var secs int
	if _, err := fmt.Sscanf(v, "%d", &secs); err == nil && secs > 0 && secs < 3600 {
		return time.Duration(secs) * time.Second
	}
	return 0
}
