package catalog

import (
	"testing"
	"time"
)

func TestProviderDefault(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for _, p := range []string{"openai", "anthropic", "google", "mistral", "meta"} {
		m, ok := c.ProviderDefault(p, now)
		if !ok {
			t.Errorf("%s: no default", p)
			continue
		}
		if m.Provider != p || m.Kind != KindChat || !m.Enabled || m.IsDeprecated(now) || !m.SupportsToolUse || !m.SupportsStructuredOutput {
			t.Errorf("%s: default %s is not a usable chat model", p, m.ID)
		}
		// Nothing newer qualifies.
		for _, o := range c.All() {
			if o.Provider == p && o.Kind == KindChat && o.Enabled && !o.IsDeprecated(now) && o.SupportsToolUse &&
				o.SupportsStructuredOutput && o.Produces(MediaText) && o.ReleasedAt != nil && !o.ReleasedAt.After(now) &&
				o.ReleasedAt.After(m.ReleasedAt.Time) {
				t.Errorf("%s: %s is newer than the default %s", p, o.ID, m.ID)
			}
		}
	}
	if _, ok := c.ProviderDefault("agentry_nobody", now); ok {
		t.Error("a default for an unknown provider")
	}
	// Years on, every model is deprecated or sunset: no default rather
	// than a retired one.
	if m, ok := c.ProviderDefault("openai", now.AddDate(30, 0, 0)); ok && m.IsDeprecated(now.AddDate(30, 0, 0)) {
		t.Errorf("a deprecated default: %s", m.ID)
	}
}

func TestSetDiscovered(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	m := Model{ID: "ollama/x:1", APIName: "x:1", Provider: "ollama", Kind: KindChat, Enabled: true, Pricing: Pricing{Input: &zero, Output: &zero}}
	if err := c.SetDiscovered("ollama", []Model{m}); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Get("ollama/x:1"); !ok || got.APIName != "x:1" {
		t.Fatal("discovered model not found")
	}
	if len(c.List(Filter{Provider: "ollama"})) != 1 {
		t.Fatal("discovered model not listed")
	}
	clash := m
	clash.ID = "openai_gpt_4o"
	wrong := m
	wrong.Provider = "openai"
	unpriced := m
	unpriced.Pricing = Pricing{}
	for name, bad := range map[string]Model{"clash": clash, "provider": wrong, "unpriced": unpriced} {
		if err := c.SetDiscovered("ollama", []Model{bad}); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, ok := c.Get("ollama/x:1"); !ok {
		t.Fatal("a refused set replaced the models")
	}
	if err := c.SetDiscovered("ollama", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get("ollama/x:1"); ok {
		t.Fatal("forgotten model still found")
	}
}
