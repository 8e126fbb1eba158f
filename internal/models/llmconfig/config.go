// Package llmconfig reads the providers file and the environment variables
// users already have (OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY,
// ANTHROPIC_BASE_URL), and builds the routing.Router that serves the catalog.
// With neither, the router serves the built-in offline model only.
package llmconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"time"

	"go.yaml.in/yaml/v3"
)

// Provider types.
const (
	TypeOpenAI    = "openai"    // any OpenAI-compatible endpoint
	TypeAnthropic = "anthropic" // Anthropic Messages API
	TypeOffline   = "offline"   // the built-in offline model and embedder
)

// File is the providers file.
type File struct {
	// DefaultModel and DefaultEmbeddingModel override the catalog's
	// defaults for requests that name no model.
	DefaultModel          string `json:"default_model,omitempty"`
	DefaultEmbeddingModel string `json:"default_embedding_model,omitempty"`
	// Fallback names a provider that serves every model whose own
	// provider is not configured (usually "offline", for development).
	Fallback  string     `json:"fallback,omitempty"`
	Providers []Provider `json:"providers"`
}

// Provider is one endpoint.
type Provider struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	BaseURL string `json:"base_url,omitempty"`
	// APIKeyEnv names the environment variable holding the key; APIKey
	// holds it literally (keep such files private). At most one is set.
	APIKeyEnv string            `json:"api_key_env,omitempty"`
	APIKey    string            `json:"api_key,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	// Serves lists the catalog providers (openai, anthropic, google,
	// mistral, meta, agentry) whose models this endpoint answers for.
	// Default: the provider's own name when that is a catalog provider.
	Serves []string `json:"serves,omitempty"`
	// ModelNames picks the naming dialect for upstream model names from
	// the catalog's api_names (e.g. "ollama").
	ModelNames string `json:"model_names,omitempty"`
	// Models routes individual catalog ids here, under the given
	// upstream name ("" = the catalog's name for the dialect).
	Models map[string]string `json:"models,omitempty"`
	// Timeout is the default per-call timeout ("90s", "10m").
	Timeout string `json:"timeout,omitempty"`
	// MaxRetries is how many times a failed call is retried (0-10).
	MaxRetries *int `json:"max_retries,omitempty"`
	// DefaultModel is the catalog model that answers prompt steps naming
	// none when this is the first configured provider; empty: the newest
	// suitable model of the catalog provider it serves
	// (catalog.ProviderDefault).
	DefaultModel string `json:"default_model,omitempty"`
}

// maxFileBytes bounds the providers file.
const maxFileBytes = 1 << 20

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// Parse reads a providers file (YAML or JSON) and validates it.
func Parse(data []byte) (*File, error) {
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("providers file larger than %d bytes", maxFileBytes)
	}
	var generic any
	if err := yaml.Unmarshal(data, &generic); err != nil {
		return nil, fmt.Errorf("providers file: %w", err)
	}
	if generic == nil {
		return &File{}, nil
	}
	if _, ok := generic.(map[string]any); !ok {
		return nil, errors.New("providers file: top level must be a mapping")
	}
	// Re-encode as JSON so the typed, strict decoder is the same for YAML
	// and JSON input: unknown keys are errors, not silently ignored.
	js, err := json.Marshal(generic)
	if err != nil {
		return nil, fmt.Errorf("providers file: %w", err)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("providers file: %w", err)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// LoadFile reads and parses the providers file at path.
func LoadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("providers file: %w", err)
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Validate checks everything that does not need the catalog.
func (f *File) Validate() error {
	seen := map[string]bool{}
	for i, p := range f.Providers {
		where := fmt.Sprintf("providers[%d]", i)
		if !nameRE.MatchString(p.Name) {
			return fmt.Errorf("%s: name %q must be 1-64 lower-case letters, digits, - or _", where, p.Name)
		}
		where = "provider " + p.Name
		if seen[p.Name] {
			return fmt.Errorf("%s: defined twice", where)
		}
		seen[p.Name] = true
		switch p.Type {
		case TypeOpenAI, TypeAnthropic:
			if p.BaseURL != "" {
				u, err := url.Parse(p.BaseURL)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					return fmt.Errorf("%s: base_url %q must be an http(s) URL", where, p.BaseURL)
				}
			}
		case TypeOffline:
			if p.BaseURL != "" || p.APIKey != "" || p.APIKeyEnv != "" {
				return fmt.Errorf("%s: the offline provider takes no base_url or key", where)
			}
		default:
			return fmt.Errorf("%s: type %q must be openai, anthropic or offline", where, p.Type)
		}
		if p.APIKey != "" && p.APIKeyEnv != "" {
			return fmt.Errorf("%s: set api_key or api_key_env, not both", where)
		}
		if p.Timeout != "" {
			d, err := time.ParseDuration(p.Timeout)
			if err != nil || d <= 0 || d > 24*time.Hour {
				return fmt.Errorf("%s: timeout %q must be a positive duration like 90s (at most 24h)", where, p.Timeout)
			}
		}
		if p.MaxRetries != nil && (*p.MaxRetries < 0 || *p.MaxRetries > 10) {
			return fmt.Errorf("%s: max_retries must be between 0 and 10", where)
		}
		for _, s := range p.Serves {
			if s == "" {
				return fmt.Errorf("%s: serves contains an empty name", where)
			}
		}
		for id := range p.Models {
			if id == "" {
				return fmt.Errorf("%s: models contains an empty id", where)
			}
		}
		for k := range p.Headers {
			if k == "" {
				return fmt.Errorf("%s: headers contains an empty name", where)
			}
		}
	}
	if f.Fallback != "" && !seen[f.Fallback] && f.Fallback != TypeOffline {
		return fmt.Errorf("fallback %q names no provider", f.Fallback)
	}
	return nil
}
