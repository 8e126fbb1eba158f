package llmconfig

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/models/catalog"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseYAMLAndJSON(t *testing.T) {
	y := `
default_model: openai_gpt_4o_mini
fallback: offline
providers:
  - name: ollama
    type: openai
    base_url: http://localhost:11434/v1
    serves: [meta]
    model_names: ollama
    timeout: 90s
    max_retries: 2
    models:
      mistral_small_2503: mistral-small3.1
`
	f, err := Parse([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	p := f.Providers[0]
	if p.Name != "ollama" || p.Serves[0] != "meta" || p.Models["mistral_small_2503"] != "mistral-small3.1" || *p.MaxRetries != 2 || f.Fallback != "offline" {
		t.Errorf("parsed %+v", f)
	}
	j := `{"providers":[{"name":"vllm","type":"openai","base_url":"http://gpu:8000/v1","serves":["meta"]}]}`
	if f, err := Parse([]byte(j)); err != nil || f.Providers[0].Name != "vllm" {
		t.Errorf("json: %+v %v", f, err)
	}
	if f, err := Parse(nil); err != nil || len(f.Providers) != 0 {
		t.Errorf("empty file: %v", err)
	}
}

func TestParseRejects(t *testing.T) {
	bad := map[string]string{
		"unknown key":      `providers: [{name: a, type: openai, colour: red}]`,
		"unknown top":      `provider: []`,
		"bad type":         `providers: [{name: a, type: bedrock}]`,
		"bad name":         `providers: [{name: "Big Name", type: openai}]`,
		"dup":              `providers: [{name: a, type: openai}, {name: a, type: anthropic}]`,
		"bad url":          `providers: [{name: a, type: openai, base_url: "ftp://x"}]`,
		"both keys":        `providers: [{name: a, type: openai, api_key: x, api_key_env: Y}]`,
		"bad timeout":      `providers: [{name: a, type: openai, timeout: forever}]`,
		"retries":          `providers: [{name: a, type: openai, max_retries: 99}]`,
		"offline with url": `providers: [{name: a, type: offline, base_url: "http://x"}]`,
		"fallback":         `fallback: nowhere`,
		"list top":         `[1]`,
		"syntax":           `providers: [`,
	}
	for name, doc := range bad {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestNoConfigurationServesOffline(t *testing.T) {
	r, err := Build(WithEnvironment(nil, env(nil)), catalog.Builtin(), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := r.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{
		llm.System("The office opens at 9 am. The canteen serves lunch from noon."), llm.User("When does the office open?")}})
	if err != nil || !strings.Contains(resp.Text(), "9 am") || resp.Model != "agentry_offline" {
		t.Fatalf("%+v %v", resp, err)
	}
	er, err := r.Embed(context.Background(), llm.EmbedRequest{Input: []string{"hello"}})
	if err != nil || len(er.Vectors[0]) != 384 {
		t.Fatalf("embed %v", err)
	}
	if _, err := r.Chat(context.Background(), llm.ChatRequest{Model: "openai_gpt_4o"}); !errors.Is(err, llm.ErrProviderNotConfigured) {
		t.Errorf("gpt-4o without key: %v", err)
	}
}

func TestEnvironmentProvidersReachTheirServers(t *testing.T) {
	oa := fakellm.NewOpenAI(t)
	oa.SetDefault(fakellm.Reply{Text: "from openai", Usage: fakellm.Usage{Input: 3, Output: 2}})
	an := fakellm.NewAnthropic(t)
	an.SetDefault(fakellm.Reply{Text: "from anthropic", Usage: fakellm.Usage{Input: 3, Output: 2}})
	e := env(map[string]string{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": oa.URL, "ANTHROPIC_API_KEY": "sk-ant", "ANTHROPIC_BASE_URL": an.URL})
	r, err := Build(WithEnvironment(nil, e), catalog.Builtin(), e)
	if err != nil {
		t.Fatal(err)
	}
	for model, want := range map[string]string{"openai_gpt_4_1": "from openai", "anthropic_claude_haiku_4_5": "from anthropic", "agentry_offline": ""} {
		resp, err := r.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: []llm.Message{llm.User("hi")}})
		if err != nil || (want != "" && resp.Text() != want) {
			t.Errorf("%s: %v %v", model, resp, err)
		}
	}
	if got := oa.Requests()[0].JSON()["model"]; got != "gpt-4.1" {
		t.Errorf("upstream name %v", got)
	}
	if got := an.Requests()[0].Header.Get("X-Api-Key"); got != "sk-ant" {
		t.Errorf("anthropic key %q", got)
	}
}

func TestProvidersFileRoutesOllamaStyle(t *testing.T) {
	srv := fakellm.NewOpenAI(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "providers.yaml")
	doc := `
default_model: meta_llama_3_1_8b
providers:
  - name: ollama
    type: openai
    base_url: ` + srv.URL + `
    serves: [meta]
    model_names: ollama
    models:
      mistral_small_2503: mistral-small3.1
`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(WithEnvironment(f, env(nil)), catalog.Builtin(), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"", "meta_llama_3_3_70b", "mistral_small_2503"} {
		if _, err := r.Chat(context.Background(), llm.ChatRequest{Model: model, Messages: []llm.Message{llm.User("hi")}}); err != nil {
			t.Fatalf("%q: %v", model, err)
		}
	}
	var got []string
	for _, q := range srv.Requests() {
		got = append(got, q.JSON()["model"].(string))
		if q.Header.Get("Authorization") != "" {
			t.Error("keyless provider sent a key")
		}
	}
	if strings.Join(got, ",") != "llama3.1:8b,llama3.3:70b,mistral-small3.1" {
		t.Errorf("upstream names %v", got)
	}
	// A route to an id not in the catalog is a configuration error.
	f.Providers[0].Models = map[string]string{"no_such_model": "x"}
	if _, err := Build(f, catalog.Builtin(), env(nil)); err == nil {
		t.Error("unknown model route accepted")
	}
	f.Providers[0].Models = nil
	f.DefaultModel = "openai_text_embedding_3_small"
	if _, err := Build(f, catalog.Builtin(), env(nil)); err == nil {
		t.Error("embedding model accepted as default chat model")
	}
}

func TestAnthropicWithoutKeyIsAnError(t *testing.T) {
	f, _ := Parse([]byte(`providers: [{name: claude, type: anthropic, api_key_env: MY_KEY, serves: [anthropic]}]`))
	if _, err := Build(f, catalog.Builtin(), env(nil)); err == nil || !strings.Contains(err.Error(), "MY_KEY") {
		t.Errorf("err = %v", err)
	}
}

// FuzzParse: the providers file is operator input; parsing and building
// must never panic, whatever the bytes.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`providers: [{name: a, type: openai, base_url: "http://x/v1", serves: [meta], models: {meta_llama_3_1_8b: x}}]`))
	f.Add([]byte(`{"fallback":"offline","providers":[{"name":"offline","type":"offline"}]}`))
	f.Add([]byte("providers:\n  - &a {name: a, type: openai}\n  - *a\n"))
	f.Add([]byte(`default_model: agentry_offline`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			return
		}
		_, _ = Build(WithEnvironment(file, env(nil)), catalog.Builtin(), env(nil))
	})
}
