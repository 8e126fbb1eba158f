package llmconfig

import (
	"fmt"
	"os"
	"time"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/anthropic"
	"github.com/agentry/agentry/internal/llm/offline"
	"github.com/agentry/agentry/internal/llm/openaicompat"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/routing"
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
	r.SetDefaults(f.DefaultModel, f.DefaultEmbeddingModel)
	return r, nil
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
			Headers: pc.Headers, Timeout: timeout, Retry: retry}), nil
	case TypeAnthropic:
		if key == "" {
			return nil, fmt.Errorf("provider %s: no API key (set %s)", pc.Name, orDefault(pc.APIKeyEnv, "api_key_env"))
		}
		return anthropic.New(anthropic.Config{Name: pc.Name, BaseURL: pc.BaseURL, APIKey: key,
			Headers: pc.Headers, Timeout: timeout, Retry: retry}), nil
	case TypeOffline:
		return offline.New(), nil
	}
	return nil, fmt.Errorf("provider %s: unknown type %q", pc.Name, pc.Type)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Load is the whole start-up path: the catalog from modelsFile (merged
// over the built-in one; empty: the built-in one), the providers file at
// providersFile (may be empty), plus the standard provider variables.
func Load(providersFile, modelsFile string) (*routing.Router, *catalog.Catalog, error) {
	cat, err := catalog.LoadFile(modelsFile)
	if err != nil {
		return nil, nil, err
	}
	f := &File{}
	if path := providersFile; path != "" {
		if f, err = LoadFile(path); err != nil {
			return nil, nil, err
		}
	}
	r, err := Build(WithEnvironment(f, os.Getenv), cat, os.Getenv)
	if err != nil {
		return nil, nil, err
	}
	return r, cat, nil
}
