// Package routing owns which provider serves each catalog model: the Router
// maps catalog ids to registered providers and is itself an llm.Provider.
// It lives beside the catalog so that the model layer (llm) stays free of it.
package routing

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/telemetry"
)

// Route says which registered provider serves a model, under which name.
type Route struct {
	Provider string // registered provider name
	Upstream string // model name sent to that provider
}

// Serving describes what a registered provider serves.
type Serving struct {
	// CatalogProviders are catalog provider names (openai, anthropic,
	// google, mistral, meta, agentry) whose models this endpoint serves.
	CatalogProviders []string
	// Dialect picks the upstream name from a model's api_names (e.g.
	// "ollama"); empty means the model's api_name.
	Dialect string
}

// Router maps catalog model ids to the providers that serve them and is
// itself a Provider: callers name catalog ids, adapters see upstream names.
// Resolution order: an explicit per-model route, then the provider
// registered for the model's catalog provider, then the fallback provider
// if one is set. Requests with an empty model use the catalog default of
// the right kind (or the one set with SetDefaults).
type Router struct {
	cat *catalog.Catalog

	mu           sync.RWMutex
	providers    map[string]llm.Provider
	serving      map[string]Serving
	byCatalog    map[string]string // catalog provider -> registered name
	routes       map[string]Route  // catalog id -> explicit route
	fallback     string
	defaultChat  string
	defaultEmbed string
	// defaultSource says why defaultChat is what it is (start-up log,
	// `agentry models default get`).
	defaultSource string
}

// NewRouter returns an empty router over cat.
func NewRouter(cat *catalog.Catalog) *Router {
	return &Router{cat: cat, providers: map[string]llm.Provider{}, serving: map[string]Serving{},
		byCatalog: map[string]string{}, routes: map[string]Route{}}
}

// Catalog returns the catalog the router resolves against.
func (r *Router) Catalog() *catalog.Catalog { return r.cat }

// Register adds provider p under name. The last registration for a catalog
// provider wins, so a providers-file entry can replace an env-var default.
func (r *Router) Register(name string, p llm.Provider, s Serving) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.providers[name] = p
	r.serving[name] = s
	for _, cp := range s.CatalogProviders {
		r.byCatalog[cp] = name
	}
}

// SetRoute routes one catalog model to a registered provider explicitly.
func (r *Router) SetRoute(modelID string, route Route) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.routes[modelID] = route
}

// SetFallback names the provider that serves models whose own provider is
// not configured (typically the offline model, for development). Empty
// disables the fallback: such models then fail with llm.ErrProviderNotConfigured.
func (r *Router) SetFallback(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fallback = name
}

// SetDefaults overrides the catalog's default chat and embedding models.
func (r *Router) SetDefaults(chat, embed string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.defaultChat, r.defaultEmbed = chat, embed
}

// SetDefaultSource records, in a phrase, why the default chat model is
// what it is ("provider openai is configured").
func (r *Router) SetDefaultSource(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.defaultSource = s
}

// DefaultSource is the phrase SetDefaultSource recorded.
func (r *Router) DefaultSource() string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.defaultSource
}

// DefaultModel returns the model used when a request names none.
func (r *Router) DefaultModel(kind catalog.Kind) string {
	r.mu.RLock()
	chat, embed := r.defaultChat, r.defaultEmbed
	r.mu.RUnlock()
	if kind == catalog.KindChat && chat != "" {
		return chat
	}
	if kind == catalog.KindEmbedding && embed != "" {
		return embed
	}
	if m, ok := r.cat.Default(kind); ok {
		return m.ID
	}
	return ""
}

// Resolution is the outcome of resolving a model id.
type Resolution struct {
	Model    catalog.Model
	Route    Route
	Provider llm.Provider
}

// Resolve finds the catalog entry and provider for modelID (a catalog id
// or an API name; empty means the default of kind).
func (r *Router) Resolve(modelID string, kind catalog.Kind) (Resolution, error) {
	if modelID == "" {
		modelID = r.DefaultModel(kind)
	}
	m, ok := r.cat.Get(modelID)
	if !ok {
		return Resolution{}, fmt.Errorf("%w: %q", llm.ErrUnknownModel, modelID)
	}
	if !m.Enabled {
		return Resolution{}, fmt.Errorf("%w: %s is disabled in the catalog", llm.ErrUnknownModel, m.ID)
	}
	if m.Kind != kind {
		return Resolution{}, fmt.Errorf("%w: %s is a %s model, not %s", llm.ErrUnsupported, m.ID, m.Kind, kind)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if rt, ok := r.routes[m.ID]; ok {
		p, ok := r.providers[rt.Provider]
		if !ok {
			return Resolution{}, fmt.Errorf("%w for model %s (its route names unknown provider %q)", llm.ErrProviderNotConfigured, m.ID, rt.Provider)
		}
		if rt.Upstream == "" {
			rt.Upstream = m.UpstreamName(r.serving[rt.Provider].Dialect)
		}
		return Resolution{Model: m, Route: rt, Provider: p}, nil
	}
	if name, ok := r.byCatalog[m.Provider]; ok {
		return Resolution{Model: m, Route: Route{Provider: name, Upstream: m.UpstreamName(r.serving[name].Dialect)},
			Provider: r.providers[name]}, nil
	}
	if r.fallback != "" {
		if p, ok := r.providers[r.fallback]; ok {
			return Resolution{Model: m, Route: Route{Provider: r.fallback, Upstream: m.APIName}, Provider: p}, nil
		}
	}
	return Resolution{}, fmt.Errorf("%w for model %s (nothing serves %s models; see the providers configuration)", llm.ErrProviderNotConfigured, m.ID, m.Provider)
}

// Available reports whether a chat or embedding model can be called.
func (r *Router) Available(modelID string) bool {
	m, ok := r.cat.Get(modelID)
	if !ok {
		return false
	}
	_, err := r.Resolve(m.ID, m.Kind)
	return err == nil
}

// checkMedia refuses image and PDF parts the model cannot take, before
// any provider is paid to reject them (or, worse, to ignore them).
func checkMedia(m catalog.Model, req llm.ChatRequest) error {
	for _, msg := range req.Messages {
		for _, p := range msg.Parts {
			kind := ""
			switch {
			case p.Type == llm.PartImage:
				kind = catalog.MediaImage
			case p.Type == llm.PartDocument && p.MIMEType == "application/pdf" && p.Text == "":
				kind = catalog.MediaPDF
			}
			if kind != "" && !m.AcceptsInput(kind) {
				return fmt.Errorf("%w: %s does not accept %s input", llm.ErrUnsupported, m.ID, kind)
			}
		}
	}
	return nil
}

// Chat implements Provider.
func (r *Router) Chat(ctx context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	res, err := r.Resolve(req.Model, catalog.KindChat)
	if err != nil {
		return nil, err
	}
	if err := checkMedia(res.Model, req); err != nil {
		return nil, err
	}
	req.Model = res.Route.Upstream
	telemetry.ModelRoute(ctx, res.Route.Provider, res.Route.Upstream)
	resp, err := res.Provider.Chat(ctx, req)
	return stamp(resp, res.Model.ID), err
}

// Stream implements Provider.
func (r *Router) Stream(ctx context.Context, req llm.ChatRequest, fn llm.StreamFunc) (*llm.ChatResponse, error) {
	res, err := r.Resolve(req.Model, catalog.KindChat)
	if err != nil {
		return nil, err
	}
	if err := checkMedia(res.Model, req); err != nil {
		return nil, err
	}
	req.Model = res.Route.Upstream
	telemetry.ModelRoute(ctx, res.Route.Provider, res.Route.Upstream)
	resp, err := res.Provider.Stream(ctx, req, fn)
	return stamp(resp, res.Model.ID), err
}

// Embed implements Provider.
func (r *Router) Embed(ctx context.Context, req llm.EmbedRequest) (*llm.EmbedResponse, error) {
	res, err := r.Resolve(req.Model, catalog.KindEmbedding)
	if err != nil {
		return nil, err
	}
	if req.Dimensions == 0 {
		req.Dimensions = res.Model.EmbeddingDimensions
	} else if !res.Model.FlexibleDimensions && req.Dimensions != res.Model.EmbeddingDimensions {
		return nil, fmt.Errorf("%w: %s only produces %d dimensions", llm.ErrUnsupported, res.Model.ID, res.Model.EmbeddingDimensions)
	}
	req.Model = res.Route.Upstream
	telemetry.ModelRoute(ctx, res.Route.Provider, res.Route.Upstream)
	resp, err := res.Provider.Embed(ctx, req)
	if resp != nil {
		resp.Model = res.Model.ID
	}
	return resp, err
}

// stamp reports the catalog id as the model, keeping what the provider
// said in UpstreamModel.
func stamp(resp *llm.ChatResponse, id string) *llm.ChatResponse {
	if resp != nil {
		if resp.UpstreamModel == "" {
			resp.UpstreamModel = resp.Model
		}
		resp.Model = id
	}
	return resp
}
