package catalog

import (
	"testing"
	"time"
)

// FuzzLoadOverride: operator catalog files are untrusted input to the
// loader. Loading must never panic, and a catalog that loads must answer
// every query without panicking.
func FuzzLoadOverride(f *testing.F) {
	f.Add([]byte(`models: [{id: openai_gpt_4o, pricing: {input: 1}}]`))
	f.Add([]byte(`models: [{id: x_1, name: X, provider: x, kind: chat, pricing: {input: 1, output: 2}, successor_id: openai_gpt_4o, released_at: 2025-01-02}]`))
	f.Add([]byte(`generation_tiers: [{modality: image, tier: fast, model_id: openai_gpt_image_1}]`))
	f.Add([]byte(`models: [{id: openai_gpt_4o, pricing: null}]`))
	f.Add([]byte("models:\n  - &m {id: a_b}\n  - *m\n"))
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Load(data)
		if err != nil {
			return
		}
		for _, m := range c.All() {
			_, _ = c.Recommend(m.ID, Requirements{ToolUse: true}, now)
			_ = c.Response(m, now)
			_, _ = m.Cost(TokenUsage{Input: 300000, Output: 10, CachedInput: 5})
		}
		_ = c.GenerationTiers()
		_ = c.GroupedResponse(Filter{InputMedia: "image/png"}, now)
	})
}
