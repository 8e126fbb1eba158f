// Package playgroundtest serves the catalog's OpenAI and Anthropic models
// from fake servers on loopback (internal/llm/fakellm), for tests that run
// the real server with paid models but no network: the playground's, the
// client's and the command line's.
package playgroundtest

import (
	"testing"

	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/llmconfig"
	"github.com/agentry/agentry/internal/models/routing"
	"github.com/agentry/agentry/internal/server"
)

// Fakes are the fake providers a server started with Option calls.
type Fakes struct {
	OpenAI    *fakellm.Server // serves catalog provider openai
	Anthropic *fakellm.Server // serves catalog provider anthropic
}

// Start starts the fakes, answering by default with a short text and
// usage, and returns them with the server option that routes to them.
// Models of other providers go to the offline model. catalogOverrides are
// merged over the built-in catalog (see catalog.Load).
func Start(t testing.TB, catalogOverrides ...[]byte) (*Fakes, func(*server.Config)) {
	t.Helper()
	f := &Fakes{OpenAI: fakellm.NewOpenAI(t), Anthropic: fakellm.NewAnthropic(t)}
	f.OpenAI.SetDefault(fakellm.Reply{Text: "Paris is the capital of France.", Usage: fakellm.Usage{Input: 20, Output: 8}})
	f.Anthropic.SetDefault(fakellm.Reply{Text: "The capital of France is Paris.", Usage: fakellm.Usage{Input: 22, Output: 9}})
	cat, err := catalog.Load(catalogOverrides...)
	if err != nil {
		t.Fatalf("test catalog: %v", err)
	}
	zero := 0
	// The offline model stays the default, as these suites were written
	// for; the configured provider's default is tested apart
	// (internal/api/models_default_test.go).
	file := &llmconfig.File{Fallback: "offline", DefaultModel: "agentry_offline", Providers: []llmconfig.Provider{
		// No retries: a test scripting an error wants to see it once.
		{Name: "openai", Type: llmconfig.TypeOpenAI, BaseURL: f.OpenAI.URL, APIKey: "sk-test", MaxRetries: &zero},
		{Name: "anthropic", Type: llmconfig.TypeAnthropic, BaseURL: f.Anthropic.URL, APIKey: "sk-ant-test", MaxRetries: &zero},
		{Name: "offline", Type: llmconfig.TypeOffline},
	}}
	setup := func() (*routing.Router, *catalog.Catalog, error) {
		r, err := llmconfig.Build(file, cat, func(string) string { return "" })
		return r, cat, err
	}
	return f, func(c *server.Config) { c.ModelSetup = setup }
}
