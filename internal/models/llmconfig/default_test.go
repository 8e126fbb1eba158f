package llmconfig

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/ollama"
)

// TestDefaultModelFollowsConfiguration: prompt steps that name no model
// get the configured provider's default; the offline model only when
// nothing is configured; the providers file's default_model, a
// provider's own default_model and --default-model override in that order.
func TestDefaultModelFollowsConfiguration(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, file, flag string
		env              map[string]string
		want, because    string
	}{
		{name: "nothing", want: "agentry_offline", because: "no model provider"},
		{name: "openai variables", env: map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, want: "openai_", because: "provider openai"},
		{name: "base url alone", env: map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, want: "openai_", because: "provider openai"},
		{name: "anthropic", env: map[string]string{"ANTHROPIC_API_KEY": "k"}, want: "anthropic_", because: "provider anthropic"},
		{name: "file provider first", env: map[string]string{"OPENAI_API_KEY": "k"},
			file: "providers: [{name: anthropic, type: anthropic, api_key: k}]", want: "anthropic_", because: "provider anthropic"},
		{name: "provider default_model", env: map[string]string{"OPENAI_API_KEY": "k"},
			file: "providers: [{name: openai, type: openai, api_key: k, default_model: openai_gpt_4_1_mini}]", want: "openai_gpt_4_1_mini", because: "default_model of provider openai"},
		{name: "file default_model", env: map[string]string{"OPENAI_API_KEY": "k"},
			file: "default_model: openai_gpt_4o\nproviders: []", want: "openai_gpt_4o", because: "providers file"},
		{name: "flag", env: map[string]string{"OPENAI_API_KEY": "k"}, flag: "gpt-4.1",
			file: "default_model: openai_gpt_4o\nproviders: []", want: "openai_gpt_4_1", because: "--default-model"},
		{name: "keyless server serving meta", file: "providers: [{name: vllm, type: openai, base_url: 'http://127.0.0.1:9/v1', serves: [meta]}]",
			want: "meta_", because: "provider vllm"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := ""
			if c.file != "" {
				path = writeTemp(t, c.file)
			}
			s, err := Load(ctx, Options{ProvidersFile: path, DefaultModel: c.flag, OllamaURL: ollama.Off, Getenv: env(c.env)})
			if err != nil {
				t.Fatal(err)
			}
			got := s.Router.DefaultModel(catalog.KindChat)
			if !strings.HasPrefix(got, c.want) || !strings.Contains(s.Router.DefaultSource(), c.because) {
				t.Fatalf("default %q because %q; want %q… because …%q…", got, s.Router.DefaultSource(), c.want, c.because)
			}
			if !s.Router.Available(got) {
				t.Fatalf("the default %s cannot be called", got)
			}
			if m, _ := s.Catalog.Get(got); !m.SupportsToolUse || !m.SupportsStructuredOutput {
				t.Fatalf("the default %s cannot run every template's steps", got)
			}
		})
	}
	for name, bad := range map[string]Options{
		"unknown flag model":   {DefaultModel: "no_such_model"},
		"embedding flag model": {DefaultModel: "agentry_offline_embed"},
	} {
		bad.OllamaURL, bad.Getenv = ollama.Off, env(nil)
		if _, err := Load(ctx, bad); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	if _, err := Load(ctx, Options{ProvidersFile: writeTemp(t, "providers: [{name: openai, type: openai, default_model: openai_text_embedding_3_small}]"),
		OllamaURL: ollama.Off, Getenv: env(nil)}); err == nil {
		t.Error("a provider's embedding default_model loaded")
	}
}

// TestLoadDiscoversOllama: a local Ollama (a fake one on loopback) is
// asked for its models at load; they can be made the default and are
// called through its OpenAI-compatible endpoint; none is asked when off.
func TestLoadDiscoversOllama(t *testing.T) {
	ctx := context.Background()
	o := fakellm.NewOllama(t, "qwen2.5:7b")
	s, err := Load(ctx, Options{OllamaURL: o.URL, DefaultModel: "ollama/qwen2.5:7b", Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if o.TagsRequests() != 1 || s.Router.DefaultModel(catalog.KindChat) != "ollama/qwen2.5:7b" || !s.Router.Available("ollama/qwen2.5:7b") {
		t.Fatalf("tags asked %d times; default %s", o.TagsRequests(), s.Router.DefaultModel(catalog.KindChat))
	}
	// OLLAMA_HOST names it when no URL is given.
	host := strings.TrimPrefix(o.URL, "http://")
	if _, err := Load(ctx, Options{Getenv: env(map[string]string{"OLLAMA_HOST": host})}); err != nil || o.TagsRequests() != 2 {
		t.Fatalf("OLLAMA_HOST: %v, %d asks", err, o.TagsRequests())
	}
	if _, err := Load(ctx, Options{OllamaURL: ollama.Off, Getenv: env(map[string]string{"OLLAMA_HOST": host})}); err != nil || o.TagsRequests() != 2 {
		t.Fatalf("off still asked: %v, %d asks", err, o.TagsRequests())
	}
	// A providers-file provider named ollama is the user's own: no discovery.
	if _, err := Load(ctx, Options{ProvidersFile: writeTemp(t, "providers: [{name: ollama, type: openai, base_url: '"+o.URL+"/v1', serves: [meta]}]"),
		OllamaURL: o.URL, Getenv: env(nil)}); err != nil || o.TagsRequests() != 2 {
		t.Fatalf("configured ollama still discovered: %v, %d asks", err, o.TagsRequests())
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "providers.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadRefusesABadOllamaAddress: a malformed --ollama-url or
// OLLAMA_HOST stops the start with a clear error instead of silently
// finding nothing; host:port without a scheme is accepted.
func TestLoadRefusesABadOllamaAddress(t *testing.T) {
	ctx := context.Background()
	if _, err := Load(ctx, Options{OllamaURL: "ftp://box", Getenv: env(nil)}); err == nil || !strings.Contains(err.Error(), "ollama address") {
		t.Fatalf("ftp URL: %v", err)
	}
	if _, err := Load(ctx, Options{Getenv: env(map[string]string{"OLLAMA_HOST": "ftp://box"})}); err == nil {
		t.Fatal("bad OLLAMA_HOST accepted")
	}
	o := fakellm.NewOllama(t, "phi3:mini")
	s, err := Load(ctx, Options{OllamaURL: strings.TrimPrefix(o.URL, "http://"), Getenv: env(nil)})
	if err != nil || !s.Router.Available("ollama/phi3:mini") {
		t.Fatalf("host:port: %v", err)
	}
}
