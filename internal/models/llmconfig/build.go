package llmconfig

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/anthropic"
	"github.com/agentry/agentry/internal/llm/offline"
	"github.com/agentry/agentry/internal/llm/openaicompat"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/ollama"
	"github.com/agentry/agentry/internal/models/routing"
	"github.com/agentry/agentry/internal/telemetry"
)

// WithEnvironment returns f plus the providers implied by the standard
// environment variables, for those not already defined in f by name:
//
//   - OPENAI_API_KEY or OPENAI_BASE_URL adds "openai" (type openai,
//     serving catalog provider openai) at OPENAI_BASE_URL or OpenAI's API;
//   - ANTHROPIC_API_KEY adds "anthropic" at ANTHROPIC_BASE_URL or
//     Anthropic's API;
//   - "offline" (the built-in model) is always present.
//
// getenv is os.Getenv in production.
func WithEnvironment(f *File, getenv func(string) string) *File {
	out := &File{}
	if f != nil {
		*out = *f
		out.Providers = append([]Provider(nil), f.Providers...)
	}
	has := func(name string) bool {
		for _, p := range out.Providers {
			if p.Name == name {
				return true
			}
		}
		return false
	}
	if !has("openai") && (getenv("OPENAI_API_KEY") != "" || getenv("OPENAI_BASE_URL") != "") {
		out.Providers = append(out.Providers, Provider{Name: "openai", Type: TypeOpenAI,
			BaseURL: getenv("OPENAI_BASE_URL"), APIKeyEnv: "OPENAI_API_KEY"})
	}
	if !has("anthropic") && getenv("ANTHROPIC_API_KEY") != "" {
		out.Providers = append(out.Providers, Provider{Name: "anthropic", Type: TypeAnthropic,
			BaseURL: getenv("ANTHROPIC_BASE_URL"), APIKeyEnv: "ANTHROPIC_API_KEY"})
	}
	if !has("offline") {
		out.Providers = append(out.Providers, Provider{Name: "offline", Type: TypeOffline})
	}
	return out
}

// Build makes the router for f over cat. Call WithEnvironment first to
// include env-var providers. Every model id the file mentions must be in
// the catalog.
func Build(f *File, cat *catalog.Catalog, getenv func(string) string) (*routing.Router, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	r := routing.NewRouter(cat)
	catalogProviders := map[string]bool{}
	for _, p := range cat.Providers() {
		catalogProviders[p] = true
	}
	for _, pc := range f.Providers {
		prov, err := newProvider(pc, getenv)
		if err != nil {
			return nil, err
		}
		serves := pc.Serves
		if len(serves) == 0 {
			switch {
			case pc.Type == TypeOffline:
				serves = []string{"agentry"}
			case catalogProviders[pc.Name]:
				serves = []string{pc.Name}
			}
		}
		r.Register(pc.Name, prov, routing.Serving{CatalogProviders: serves, Dialect: pc.ModelNames})
		for id, upstream := range pc.Models {
			m, ok := cat.Get(id)
			if !ok {
				return nil, fmt.Errorf("provider %s: models: %q is not in the catalog", pc.Name, id)
			}
			r.SetRoute(m.ID, routing.Route{Provider: pc.Name, Upstream: upstream})
		}
	}
	if f.Fallback != "" {
		r.SetFallback(f.Fallback)
	}
	for _, d := range []struct {
		id   string
		kind catalog.Kind
	}{{f.DefaultModel, catalog.KindChat}, {f.DefaultEmbeddingModel, catalog.KindEmbedding}} {
		if d.id == "" {
			continue
		}
		if m, ok := cat.Get(d.id); !ok || m.Kind != d.kind {
			return nil, fmt.Errorf("default %s model %q is not a %s model in the catalog", d.kind, d.id, d.kind)
		}
	}
	chat, source, err := defaultChat(f, cat, catalogProviders, time.Now())
	if err != nil {
		return nil, err
	}
	r.SetDefaults(chat, f.DefaultEmbeddingModel)
	r.SetDefaultSource(source)
	return r, nil
}

// defaultChat picks the model that answers prompt steps naming none: the
// providers file's default_model; else the default of the first
// configured provider other than the offline one (its own default_model,
// or the newest suitable model of the catalog provider it serves); else
// none, and the catalog's default (the offline model) answers. It says
// where the choice came from, for the start-up log and `agentry models
// default`.
func defaultChat(f *File, cat *catalog.Catalog, catalogProviders map[string]bool, now time.Time) (id, source string, err error) {
	if f.DefaultModel != "" {
		return f.DefaultModel, "default_model of the providers file", nil
	}
	for _, pc := range f.Providers {
		if pc.Type == TypeOffline {
			continue
		}
		if pc.DefaultModel != "" {
			if m, ok := cat.Get(pc.DefaultModel); !ok || m.Kind != catalog.KindChat {
				return "", "", fmt.Errorf("provider %s: default_model %q is not a chat model in the catalog", pc.Name, pc.DefaultModel)
			}
			return pc.DefaultModel, "default_model of provider " + pc.Name, nil
		}
		serves := pc.Serves
		if len(serves) == 0 && catalogProviders[pc.Name] {
			serves = []string{pc.Name}
		}
		for _, cp := range serves {
			if m, ok := cat.ProviderDefault(cp, now); ok {
				return m.ID, "provider " + pc.Name + " is configured", nil
			}
		}
	}
	return "", "no model provider is configured", nil
}

func newProvider(pc Provider, getenv func(string) string) (llm.Provider, error) {
	key := pc.APIKey
	if pc.APIKeyEnv != "" {
		key = getenv(pc.APIKeyEnv)
	}
	var timeout time.Duration
	if pc.Timeout != "" {
		timeout, _ = time.ParseDuration(pc.Timeout) // validated already
	}
	retry := llm.DefaultRetryPolicy
	if pc.MaxRetries != nil {
		retry.MaxAttempts = *pc.MaxRetries + 1
	}
	switch pc.Type {
	case TypeOpenAI:
		return openaicompat.New(openaicompat.Config{Name: pc.Name, BaseURL: pc.BaseURL, APIKey: key,
			Headers: pc.Headers, Timeout: timeout, Retry: retry, HTTPClient: modelHTTPClient}), nil
	case TypeAnthropic:
		if key == "" {
			return nil, fmt.Errorf("provider %s: no API key (set %s)", pc.Name, orDefault(pc.APIKeyEnv, "api_key_env"))
		}
		return anthropic.New(anthropic.Config{Name: pc.Name, BaseURL: pc.BaseURL, APIKey: key,
			Headers: pc.Headers, Timeout: timeout, Retry: retry, HTTPClient: modelHTTPClient}), nil
	case TypeOffline:
		return offline.New(), nil
	}
	return nil, fmt.Errorf("provider %s: unknown type %q", pc.Name, pc.Type)
}

// modelHTTPClient is the HTTP client of model providers: requests carry
// the model call's traceparent (telemetry.Transport), so a provider that
// traces (a self-hosted vLLM, a gateway) joins the run's trace.
var modelHTTPClient = &http.Client{Transport: telemetry.Transport(http.DefaultTransport)}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Options are the start-up settings of the model layer.
type Options struct {
	// ProvidersFile and ModelsFile are paths; empty: none.
	ProvidersFile, ModelsFile string
	// DefaultModel (--default-model) overrides every other default of
	// prompt steps that name no model.
	DefaultModel string
	// OllamaURL is the Ollama to discover: empty asks OLLAMA_HOST or
	// 127.0.0.1:11434, "off" asks none.
	OllamaURL string
	// Getenv reads the provider variables; nil: os.Getenv.
	Getenv func(string) string
}

// Setup is what Load assembled.
type Setup struct {
	Router  *routing.Router
	Catalog *catalog.Catalog
	// Ollama is the discoverer of a local Ollama's models; nil when
	// discovery is off or a provider named ollama is configured.
	Ollama *ollama.Discoverer
}

// Load is the whole start-up path: the catalog from ModelsFile (merged
// over the built-in one), the providers file, the standard provider
// variables, a local Ollama's models, and the default model.
func Load(ctx context.Context, o Options) (*Setup, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	discover := o.OllamaURL != ollama.Off
	cat, err := catalog.LoadFile(o.ModelsFile)
	if discover && o.ModelsFile == "" {
		// A catalog of its own: discovered models must not join the
		// process-wide built-in one that other servers share.
		cat, err = catalog.Load()
	}
	if err != nil {
		return nil, err
	}
	f := &File{}
	if path := o.ProvidersFile; path != "" {
		if f, err = LoadFile(path); err != nil {
			return nil, err
		}
	}
	full := WithEnvironment(f, getenv)
	r, err := Build(full, cat, getenv)
	if err != nil {
		return nil, err
	}
	s := &Setup{Router: r, Catalog: cat}
	if discover && !definesProvider(full, ollama.Provider) {
		host := o.OllamaURL
		if host == "" {
			host = getenv("OLLAMA_HOST")
		}
		base, err := ollama.BaseURL(host)
		if err != nil {
			return nil, err
		}
		s.Ollama = ollama.New(base, cat, r)
		// An absent Ollama is the usual case, not an error.
		_ = s.Ollama.Refresh(ctx)
	}
	if o.DefaultModel != "" {
		m, ok := cat.Get(o.DefaultModel)
		if !ok || m.Kind != catalog.KindChat || !m.Enabled {
			return nil, fmt.Errorf("default model %q is not an enabled chat model in the catalog", o.DefaultModel)
		}
		r.SetDefaults(m.ID, f.DefaultEmbeddingModel)
		r.SetDefaultSource("--default-model (SERVICE_DEFAULT_MODEL)")
	}
	return s, nil
}

func definesProvider(f *File, name string) bool {
	for _, p := range f.Providers {
		if p.Name == name {
			return true
		}
	}
	return false
}
