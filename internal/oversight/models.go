package oversight

import (
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/routing"
)

// JudgeModels maps an evaluation tier to the catalog model that judges at
// it (fast and cheap, balanced, slow and thorough).
var JudgeModels = map[string]string{
	"fast":     "openai_gpt_4_1_mini",
	"balanced": "openai_gpt_4_1",
	"thorough": "openai_gpt_5",
}

// JudgeModel picks the model for a tier ("" is balanced): the tier's model
// when something serves it (its provider, or the router's fallback such as
// the offline model), else the router's default chat model.
func JudgeModel(r *routing.Router, tier string) string {
	if tier == "" {
		tier = "balanced"
	}
	m, ok := JudgeModels[tier]
	if !ok {
		m = JudgeModels["balanced"]
	}
	if r == nil {
		return m
	}
	if _, err := r.Resolve(m, catalog.KindChat); err == nil {
		return m
	}
	return r.DefaultModel(catalog.KindChat)
}
