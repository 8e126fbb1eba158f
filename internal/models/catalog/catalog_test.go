package catalog

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func TestBuiltinLoadsAndCoversProviders(t *testing.T) {
	c := Builtin()
	want := map[string]bool{"openai": false, "anthropic": false, "google": false, "mistral": false, "meta": false, "agentry": false}
	for _, m := range c.All() {
		if _, ok := want[m.Provider]; ok && m.Enabled {
			want[m.Provider] = true
		}
	}
	for p, ok := range want {
		if !ok {
			t.Errorf("no enabled model from provider %s", p)
		}
	}
	for _, id := range []string{"agentry_offline", "agentry_offline_embed"} {
		m, ok := c.Get(id)
		if !ok || !m.Enabled || !m.Default {
			t.Errorf("%s missing, disabled or not default: %+v", id, m)
		}
	}
}

func TestGetByAPIName(t *testing.T) {
	c := Builtin()
	for _, name := range []string{"gpt-4o", "openai/gpt-4o", "GPT-4O"} {
		m, ok := c.Get(name)
		if !ok || m.ID != "openai_gpt_4o" {
			t.Errorf("Get(%q) = %v %v", name, m.ID, ok)
		}
	}
	if _, ok := c.Get("no-such-model"); ok {
		t.Error("unknown model found")
	}
}

func bp(b bool) *bool { return &b }

func TestListFilters(t *testing.T) {
	c := Builtin()
	all := c.List(Filter{})
	if len(all) == 0 {
		t.Fatal("empty list")
	}
	for _, m := range all {
		if !m.Enabled || m.Kind == KindEmbedding {
			t.Errorf("default list holds %s (enabled=%v kind=%s)", m.ID, m.Enabled, m.Kind)
		}
	}
	for _, m := range c.List(Filter{Provider: "Anthropic"}) {
		if m.Provider != "anthropic" {
			t.Errorf("provider filter let %s through", m.ID)
		}
	}
	thinking := c.List(Filter{SupportsThinking: bp(true)})
	noThinking := c.List(Filter{SupportsThinking: bp(false)})
	if len(thinking) == 0 || len(noThinking) == 0 || len(thinking)+len(noThinking) != len(all) {
		t.Errorf("thinking split %d + %d != %d", len(thinking), len(noThinking), len(all))
	}
	for _, m := range c.List(Filter{SupportsToolUse: bp(true)}) {
		if !m.SupportsToolUse {
			t.Errorf("%s lacks tool use", m.ID)
		}
	}
	pdf := c.List(Filter{InputMedia: "application/pdf"})
	pdf2 := c.List(Filter{InputMedia: "pdf"})
	if len(pdf) == 0 || len(pdf) != len(pdf2) {
		t.Errorf("pdf filters disagree: %d vs %d", len(pdf), len(pdf2))
	}
	imgOut := c.List(Filter{OutputMedia: "image"})
	if len(imgOut) == 0 {
		t.Fatal("no image generators")
	}
	for _, m := range imgOut {
		if !m.Produces("image") {
			t.Errorf("%s does not produce images", m.ID)
		}
	}
	if got := c.List(Filter{OutputMedia: "image/png"}); len(got) != len(imgOut) {
		t.Errorf("MIME output filter found %d, kind filter %d", len(got), len(imgOut))
	}
	if got := c.List(Filter{InputMedia: "bogus"}); len(got) != 0 {
		t.Errorf("bogus media matched %d", len(got))
	}
	if err := (Filter{InputMedia: "bogus"}).Validate(); err == nil {
		t.Error("bogus media validated")
	}
	emb := c.List(Filter{IncludeEmbeddings: true})
	if len(emb) <= len(all) {
		t.Error("IncludeEmbeddings added nothing")
	}
}

func TestGroupedIsContiguousAndComplete(t *testing.T) {
	c := Builtin()
	groups := c.Grouped(Filter{})
	seen := map[string]bool{}
	n := 0
	for _, g := range groups {
		if seen[g.Provider] {
			t.Errorf("provider %s appears in two groups", g.Provider)
		}
		seen[g.Provider] = true
		for _, m := range g.Models {
			if m.Provider != g.Provider {
				t.Errorf("%s in group %s", m.ID, g.Provider)
			}
		}
		n += len(g.Models)
	}
	if n != len(c.List(Filter{})) {
		t.Errorf("grouped %d models, list has %d", n, len(c.List(Filter{})))
	}
	if groups[0].Provider != "agentry" {
		t.Errorf("first group %s, want the offline provider", groups[0].Provider)
	}
}

func TestNormalizeMedia(t *testing.T) {
	cases := map[string]string{"image": "image", "IMAGE/PNG": "image", "application/pdf": "pdf", "document": "pdf",
		"audio/mpeg; rate=44100": "audio", "video/mp4": "video", "text/plain": "text"}
	for in, want := range cases {
		got, ok := NormalizeMedia(in)
		if !ok || got != want {
			t.Errorf("NormalizeMedia(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "foo", "application/zip", "image/", "/png"} {
		if _, ok := NormalizeMedia(bad); ok {
			t.Errorf("NormalizeMedia(%q) accepted", bad)
		}
	}
}

func TestOverrideMergesByID(t *testing.T) {
	override := `
models:
  - id: openai_gpt_4o
    pricing:
      input: 3000
    description: "Our negotiated rate"
  - id: meta_llama_3_1_8b
    enabled: false
  - id: acme_local_7b
    api_name: acme-7b
    name: Acme 7B
    provider: acme
    family: acme
    family_generation: 1
    kind: chat
    description: In-house model
    max_context_tokens: 32768
    max_output_tokens: 4096
    supports_tool_use: true
    pricing: {input: 10, output: 20}
    released_at: 2025-01-02
generation_tiers:
  - {modality: image, tier: fast, model_id: openai_gpt_image_1}
`
	c, err := Load([]byte(override))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := c.Get("openai_gpt_4o")
	if *m.Pricing.Input != 3000 || *m.Pricing.Output != 10000 || *m.Pricing.CachedInput != 1250 {
		t.Errorf("merge lost or failed: %+v", m.Pricing)
	}
	if m.Description != "Our negotiated rate" || m.MaxContextTokens != 128000 {
		t.Errorf("merge: %+v", m)
	}
	if l, _ := c.Get("meta_llama_3_1_8b"); l.Enabled {
		t.Error("disable override ignored")
	}
	a, ok := c.Get("acme_local_7b")
	if !ok || !a.Enabled || !a.SupportsStreaming || !a.SupportsOpenAIArguments || a.MaxConversationLength != 50 ||
		a.ReleasedAt == nil || a.ReleasedAt.Format(time.DateOnly) != "2025-01-02" {
		t.Errorf("new model defaults: %+v", a)
	}
	tier, err := c.ResolveTier("image", "fast")
	if err != nil || tier.ID != "openai_gpt_image_1" {
		t.Errorf("tier override: %v %v", tier.ID, err)
	}
	// The built-in catalog is untouched.
	if m, _ := Builtin().Get("openai_gpt_4o"); *m.Pricing.Input != 2500 {
		t.Error("override leaked into the built-in catalog")
	}
}

func TestOverrideRejectsBadInput(t *testing.T) {
	bad := map[string]string{
		"unknown key":      `foo: 1`,
		"unknown field":    `models: [{id: openai_gpt_4o, colour: red}]`,
		"missing id":       `models: [{name: x}]`,
		"bad successor":    `models: [{id: openai_gpt_4o, successor_id: nope}]`,
		"self successor":   `models: [{id: openai_gpt_4o, successor_id: openai_gpt_4o}]`,
		"negative price":   `models: [{id: openai_gpt_4o, pricing: {input: -1}}]`,
		"unpriced enabled": `models: [{id: anthropic_claude_sonnet_5_5, enabled: true}]`,
		"bad kind":         `models: [{id: x_1, name: X, provider: x, kind: robot, pricing: {input: 1}}]`,
		"bad media":        `models: [{id: openai_gpt_4o, input_media: [smell]}]`,
		"two defaults":     `models: [{id: openai_gpt_4o, default: true}]`,
		"successor loop":   `models: [{id: openai_gpt_4_1, successor_id: openai_gpt_4_5_preview}]`,
		"bad tier":         `generation_tiers: [{modality: image, tier: fast, model_id: openai_gpt_4o}]`,
		"bad date":         `models: [{id: openai_gpt_4o, released_at: yesterday}]`,
		"not a mapping":    `[1, 2]`,
		"bad id":           `models: [{id: "Bad Id", name: X, provider: x, kind: chat, pricing: {input: 1, output: 1}}]`,
		"syntax":           `models: [`,
	}
	for name, doc := range bad {
		if _, err := Load([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestCostRules(t *testing.T) {
	c := Builtin()
	cost, err := c.Price("openai_gpt_4o", TokenUsage{Input: 1000, Output: 1000})
	if err != nil || cost.Credits != 12500 {
		t.Errorf("gpt-4o 1k/1k = %+v %v, want 12500", cost, err)
	}
	// 600 uncached at 2500, 400 cached at 1250 → 1.5 + 0.5 = 2000 credits.
	cost, _ = c.Price("openai_gpt_4o", TokenUsage{Input: 1000, CachedInput: 400})
	if cost.Credits != 2000 {
		t.Errorf("cached = %+v", cost)
	}
	cost, _ = c.Price("openai_gpt_4o", TokenUsage{Input: 1000, Output: 1000, Batch: true})
	if cost.Credits != 6250 {
		t.Errorf("batch = %+v", cost)
	}
	// Long context: whole request at the higher rate.
	cost, _ = c.Price("anthropic_claude_sonnet_4_5", TokenUsage{Input: 200001, Output: 1000})
	want := (200001*6000.0 + 1000*22500.0) / 1000
	if cost.Exact != want {
		t.Errorf("long context exact %v want %v", cost.Exact, want)
	}
	// Cache write at 1.25x, 1h at 2x.
	cost, _ = c.Price("anthropic_claude_haiku_4_5", TokenUsage{Input: 1000, CacheWrite: 1000})
	if cost.Credits != 1250 {
		t.Errorf("5m write = %+v", cost)
	}
	cost, _ = c.Price("anthropic_claude_haiku_4_5", TokenUsage{Input: 1000, CacheWrite: 1000, CacheWrite1h: true})
	if cost.Credits != 2000 {
		t.Errorf("1h write = %+v", cost)
	}
	// Rounding is up to the next whole credit, never free.
	cost, _ = c.Price("openai_gpt_5_nano", TokenUsage{Input: 1})
	if cost.Credits != 1 || cost.Exact != 0.05 {
		t.Errorf("1 token = %+v", cost)
	}
	cost, _ = c.Price("agentry_offline", TokenUsage{Input: 5000, Output: 5000})
	if cost.Credits != 0 {
		t.Errorf("offline costs %d", cost.Credits)
	}
	if _, err := c.Price("nope", TokenUsage{}); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("unknown model err = %v", err)
	}
	if _, err := c.Price("anthropic_claude_sonnet_5_5", TokenUsage{Input: 1}); !errors.Is(err, ErrNoPrice) {
		t.Errorf("unpriced err = %v", err)
	}
	if _, err := c.Price("openai_gpt_4o", TokenUsage{Input: -1}); err == nil {
		t.Error("negative tokens priced")
	}
	img, _ := c.Get("google_imagen_4")
	if uc, _ := img.UnitCost(3); uc.Credits != 120000 {
		t.Errorf("3 images = %+v", uc)
	}
	if CreditsFromExact(3.0000000000004) != 3 || CreditsFromExact(3.01) != 4 || CreditsFromExact(-1) != 0 {
		t.Error("rounding rule broken")
	}
}

func TestRecommendations(t *testing.T) {
	c := Builtin()
	r, err := c.Recommend("anthropic_claude_3_5_sonnet", Requirements{}, now)
	if err != nil {
		t.Fatal(err)
	}
	if r.Successor != nil {
		t.Errorf("3.5 Sonnet has no designated successor, got %s", r.Successor.Model.ID)
	}
	if len(r.Upgrades) == 0 || r.Upgrades[0].Model.ID != "anthropic_claude_sonnet_4_6" {
		t.Errorf("upgrades = %v", ids(r.Upgrades))
	}
	for _, u := range r.Upgrades {
		if u.Model.Family != "claude-sonnet" || u.Model.IsDeprecated(now) {
			t.Errorf("bad upgrade %s", u.Model.ID)
		}
	}
	for _, x := range r.SameProvider {
		if x.Model.Provider != "anthropic" || x.Model.Family == "claude-sonnet" && x.Type != RecSameProvider {
			t.Errorf("bad same-provider %s", x.Model.ID)
		}
	}
	for _, x := range r.Alternatives {
		if x.Model.Provider == "anthropic" || x.Model.Provider == "agentry" {
			t.Errorf("bad alternative %s", x.Model.ID)
		}
	}
	if len(r.Alternatives) == 0 || len(r.Alternatives) > MaxRecommendations {
		t.Errorf("alternatives = %d", len(r.Alternatives))
	}

	// gpt-4.5-preview names gpt-4.1 as successor.
	r, _ = c.Recommend("openai_gpt_4_5_preview", Requirements{}, now)
	if r.Successor == nil || r.Successor.Model.ID != "openai_gpt_4_1" {
		t.Errorf("successor = %+v", r.Successor)
	}
	// Requirements filter every list.
	req := Requirements{Thinking: true, MinContextTokens: 500000, MinOutputTokens: 60000}
	r, _ = c.Recommend("openai_gpt_4o", req, now)
	for _, l := range [][]Recommendation{r.Upgrades, r.SameProvider, r.Alternatives} {
		for _, x := range l {
			if !req.Satisfied(&x.Model) {
				t.Errorf("%s violates requirements", x.Model.ID)
			}
		}
	}
	// The designated successor of Sonnet 4.5 is disabled (unpriced), so no successor.
	r, _ = c.Recommend("anthropic_claude_sonnet_4_5", Requirements{}, now)
	if r.Successor != nil {
		t.Errorf("disabled successor recommended: %s", r.Successor.Model.ID)
	}
	if _, err := c.Recommend("nope", Requirements{}, now); !errors.Is(err, ErrUnknownModel) {
		t.Error("unknown model recommended")
	}
	js, _ := json.Marshal(r.Response())
	if !strings.Contains(string(js), `"current_model_id":"anthropic_claude_sonnet_4_5"`) {
		t.Errorf("response json: %s", js)
	}
}

func ids(rs []Recommendation) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Model.ID)
	}
	return out
}

func TestGenerationTiers(t *testing.T) {
	tiers := Builtin().GenerationTiers()
	if len(tiers) != 9 {
		t.Fatalf("%d tiers", len(tiers))
	}
	seen := map[string]bool{}
	for _, tr := range tiers {
		seen[tr.Modality+"/"+tr.Tier] = true
		if tr.CreditsPerUnit == nil || *tr.CreditsPerUnit <= 0 || tr.UnitLabel == nil || tr.PriceLabel == nil {
			t.Errorf("tier %+v incomplete", tr)
		}
	}
	for _, mod := range []string{"image", "video", "audio"} {
		for _, tier := range []string{"fast", "balanced", "thorough"} {
			if !seen[mod+"/"+tier] {
				t.Errorf("missing %s/%s", mod, tier)
			}
		}
	}
	if tiers[0].Tier != "fast" || tiers[1].Tier != "balanced" {
		t.Errorf("order: %v %v", tiers[0].Tier, tiers[1].Tier)
	}
	if got := PriceLabel(15, UnitCharacter); got != "15,000 credits/1k chars ($0.015)" {
		t.Errorf("label %q", got)
	}
}

func TestResponseShape(t *testing.T) {
	c := Builtin()
	m, _ := c.Get("google_gemini_2_5_pro")
	js, err := json.Marshal(c.Response(m, now))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	_ = json.Unmarshal(js, &obj)
	for _, k := range []string{"id", "model_id", "name", "description", "enabled", "default", "provider",
		"max_context_tokens", "max_output_tokens", "max_conversation_length", "variants", "per_modality_rates",
		"input_credits_per_1000_tokens", "supported_input_media", "is_new", "image_generation_tool_credits_per_image"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("missing %s in %s", k, js)
		}
	}
	if v, _ := obj["variants"].([]any); len(v) != 2 {
		t.Errorf("variants = %v", obj["variants"])
	}
	if obj["image_generation_tool_credits_per_image"] != 42000.0 {
		t.Errorf("image tool price = %v", obj["image_generation_tool_credits_per_image"])
	}
	g := c.GroupedResponse(Filter{Provider: "google"}, now)
	if len(g) != 1 || len(g[0].Models) == 0 {
		t.Errorf("grouped response %v", g)
	}
}

func TestIsNewAndLifecycleFlags(t *testing.T) {
	c := Builtin()
	m, _ := c.Get("anthropic_claude_sonnet_4_5")
	if !m.IsDeprecated(now) || m.IsSunset(now) {
		t.Error("Sonnet 4.5 should be deprecated, not yet sunset, on 2026-11-22")
	}
	if !m.IsSunset(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) {
		t.Error("Sonnet 4.5 should be sunset on 2026-11-30")
	}
	h, _ := c.Get("anthropic_claude_haiku_4_5")
	if h.IsDeprecated(now) || h.IsNew(now) || !h.IsNew(time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)) {
		t.Error("haiku flags wrong")
	}
}

// TestRetiredModelsAreShownDisabled: the six models retired on 2026-10-23
// are enabled in the catalog file; from that date on they are shown
// disabled, computed from the date rather than the file.
func TestRetiredModelsAreShownDisabled(t *testing.T) {
	c := Builtin()
	before := time.Date(2026, 10, 22, 12, 0, 0, 0, time.UTC)
	after := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	for _, id := range []string{"openai_gpt_3_5_turbo", "openai_gpt_4_turbo", "openai_gpt_4_1_nano", "openai_o1", "openai_o3_mini", "openai_o4_mini"} {
		m, ok := c.Get(id)
		if !ok || !m.Enabled {
			t.Fatalf("%s: want an enabled catalog entry", id)
		}
		if r := c.Response(m, before); !r.Enabled {
			t.Errorf("%s is shown disabled before its sunset", id)
		}
		if r := c.Response(m, after); r.Enabled || r.SunsetAt == nil {
			t.Errorf("%s is shown enabled after its sunset (%v)", id, r.SunsetAt)
		}
	}
	// GET /models lists enabled models: the retired ones drop out of it
	// on their sunset date; an admin view with disabled models shows them
	// disabled.
	listed := func(f Filter, at time.Time) (o1 *ModelResponse) {
		for _, g := range c.GroupedResponse(f, at) {
			for _, m := range g.Models {
				if m.ID == "openai_o1" {
					return &m
				}
			}
		}
		return nil
	}
	if listed(Filter{}, before) == nil || listed(Filter{}, after) != nil {
		t.Error("o1 should be listed before its sunset and not after")
	}
	if m := listed(Filter{IncludeDisabled: true}, after); m == nil || m.Enabled {
		t.Errorf("with disabled models, o1 after its sunset: %+v", m)
	}
}
