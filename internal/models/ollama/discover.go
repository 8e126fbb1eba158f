// Package ollama finds a local Ollama without configuration: it asks the
// server for its installed models (GET /api/tags) with a short timeout,
// adds them to the catalog as ollama/<name> at price 0, and serves them
// through Ollama's OpenAI-compatible endpoint (/v1). When no Ollama runs
// the question fails at once (a refused loopback connection) or within
// the timeout, and nothing else waits for it.
package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/openaicompat"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/routing"
)

// Provider is the catalog and routing provider name of discovered models.
const Provider = "ollama"

// DefaultAddr is where Ollama listens unless OLLAMA_HOST says otherwise.
const DefaultAddr = "http://127.0.0.1:11434"

// Off turns discovery off where a base URL is expected.
const Off = "off"

// Defaults of a Discoverer.
const (
	DefaultTimeout = 500 * time.Millisecond
	DefaultTTL     = time.Minute
	// maxModels bounds what one answer may add to the catalog.
	maxModels = 500
	// maxTagsBytes bounds the /api/tags answer read.
	maxTagsBytes = 4 << 20
)

// BaseURL turns an OLLAMA_HOST value ("", "host", "host:port",
// "http://host:port") into the server's base URL, the way Ollama's own
// client reads the variable.
func BaseURL(host string) (string, error) {
	host = strings.TrimSpace(host)
	if host == "" {
		return DefaultAddr, nil
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	u, err := url.Parse(host)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("ollama address %q is not a host[:port] or http(s) URL", host)
	}
	h := u.Hostname()
	if h == "" {
		h = "127.0.0.1"
	}
	port := u.Port()
	if port == "" {
		port = "11434"
	}
	return u.Scheme + "://" + net.JoinHostPort(h, port) + strings.TrimRight(u.Path, "/"), nil
}

// Discoverer keeps the catalog's ollama/* models in step with the models
// installed on one Ollama server.
type Discoverer struct {
	base    string
	cat     *catalog.Catalog
	http    *http.Client
	timeout time.Duration
	ttl     time.Duration
	now     func() time.Time

	mu      sync.Mutex // one question at a time
	checked time.Time  // when the server was last asked
	names   []string   // installed chat models at that time
}

// New returns a Discoverer for the Ollama at base (see BaseURL) and
// registers it with r as provider "ollama", serving catalog provider
// "ollama" through base/v1. It asks nothing until Refresh.
func New(base string, cat *catalog.Catalog, r *routing.Router) *Discoverer {
	d := &Discoverer{base: strings.TrimRight(base, "/"), cat: cat, timeout: DefaultTimeout, ttl: DefaultTTL,
		now: time.Now, http: &http.Client{}}
	r.Register(Provider, openaicompat.New(openaicompat.Config{Name: Provider, BaseURL: d.base + "/v1",
		Retry: llm.DefaultRetryPolicy}), routing.Serving{CatalogProviders: []string{Provider}})
	return d
}

// BaseURL is the server asked.
func (d *Discoverer) BaseURL() string { return d.base }

// Models returns the catalog ids of the chat models found by the last
// question.
func (d *Discoverer) Models() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]string, len(d.names))
	for i, n := range d.names {
		out[i] = Provider + "/" + n
	}
	return out
}

// Refresh asks the server for its installed models now. An unreachable
// server empties the list (its models can no longer be called).
func (d *Discoverer) Refresh(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.refreshLocked(ctx)
}

// RefreshIfStale asks again when the last answer is older than the TTL
// (a minute), so GET /models shows a model pulled since start.
func (d *Discoverer) RefreshIfStale(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.checked.IsZero() && d.now().Sub(d.checked) < d.ttl {
		return
	}
	if err := d.refreshLocked(ctx); err != nil {
		slog.Debug("ollama discovery", "url", d.base, "err", err)
	}
}

func (d *Discoverer) refreshLocked(ctx context.Context) error {
	d.checked = d.now()
	names, err := d.tags(ctx)
	if err != nil {
		names = nil
	}
	models := make([]catalog.Model, 0, len(names))
	for _, n := range names {
		models = append(models, model(n))
	}
	if serr := d.cat.SetDiscovered(Provider, models); serr != nil {
		return serr
	}
	d.names = names
	return err
}

type tagsResponse struct {
	Models []struct {
		Name    string `json:"name"`
		Details struct {
			Family   string   `json:"family"`
			Families []string `json:"families"`
		} `json:"details"`
	} `json:"models"`
}

// tags asks GET /api/tags and returns the chat models' names.
func (d *Discoverer) tags(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/api/tags", nil)
	if err != nil {
		return nil, err
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /api/tags: HTTP %d", resp.StatusCode)
	}
	var tr tagsResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxTagsBytes)).Decode(&tr); err != nil {
		return nil, fmt.Errorf("GET /api/tags: %w", err)
	}
	var names []string
	seen := map[string]bool{}
	for _, m := range tr.Models {
		n := strings.ToLower(strings.TrimSpace(m.Name))
		if n == "" || seen[n] || !validName(n) || embedding(n, m.Details.Family, m.Details.Families) {
			continue
		}
		seen[n] = true
		names = append(names, n)
		if len(names) == maxModels {
			break
		}
	}
	if len(names) == 0 && len(tr.Models) > 0 {
		return nil, errors.New("GET /api/tags: no chat model among the installed models")
	}
	return names, nil
}

// validName keeps names to what Ollama itself allows (letters, digits,
// and . _ - : /), at most 200 characters.
func validName(n string) bool {
	if len(n) > 200 {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("._-:/", r)) {
			return false
		}
	}
	return true
}

// embedding recognises embedding models, which cannot answer prompts:
// their names say so (nomic-embed-text, mxbai-embed-large) or their
// family is a BERT encoder.
func embedding(name, family string, families []string) bool {
	if strings.Contains(name, "embed") {
		return true
	}
	for _, f := range append([]string{family}, families...) {
		if strings.Contains(strings.ToLower(f), "bert") {
			return true
		}
	}
	return false
}

// model is the catalog entry of an installed model. Ollama does not say
// a model's limits or abilities in /api/tags; the entry assumes tool use
// and JSON output, which Ollama's endpoint accepts and models without them
// refuse with a clear error.
func model(name string) catalog.Model {
	zero := 0.0
	return catalog.Model{ID: Provider + "/" + name, APIName: name, Name: name + " (Ollama)",
		Description: "Installed on the local Ollama server; found at start and on GET /models.",
		Provider:    Provider, Family: strings.SplitN(name, ":", 2)[0], Kind: catalog.KindChat, Enabled: true,
		MaxContextTokens: 32768, MaxOutputTokens: 8192, MaxConversationLength: 50,
		SupportsToolUse: true, SupportsStructuredOutput: true, SupportsStreaming: true, SupportsOpenAIArguments: true,
		InputMedia: []string{catalog.MediaText}, OutputMedia: []string{catalog.MediaText},
		Pricing: catalog.Pricing{Input: &zero, Output: &zero},
		Notes:   "Found on a local Ollama: free (runs on your machine); limits are Agentry's assumption, Ollama does not report them."}
}
