package catalog

import (
	"time"
)

// The types in this file have the exact JSON shape of the model endpoints'
// responses, so the API layer can serialise them directly and only fill the
// per-account fields (last_used, tools_enabled, tools_disabled).

// ModalityRateResponse is a per-modality token rate.
type ModalityRateResponse struct {
	Modality string   `json:"modality"`
	Input    *float64 `json:"input_credits_per_1000_tokens"`
	Output   *float64 `json:"output_credits_per_1000_tokens"`
}

// VariantOptionResponse is one selectable pricing variant.
type VariantOptionResponse struct {
	Value                    string   `json:"value"`
	Title                    string   `json:"title"`
	Default                  bool     `json:"default"`
	Description              *string  `json:"description"`
	Input                    *float64 `json:"input_credits_per_1000_tokens"`
	Output                   *float64 `json:"output_credits_per_1000_tokens"`
	CacheHit                 *float64 `json:"input_cache_hit_credits_per_1000_tokens"`
	CacheWrite5m             *float64 `json:"input_5m_cache_write_credits_per_1000_tokens"`
	CacheWrite1h             *float64 `json:"input_1h_cache_write_credits_per_1000_tokens"`
	LongContextThreshold     *int     `json:"long_context_threshold"`
	LongContextInput         *float64 `json:"long_context_input_credits_per_1000_tokens"`
	LongContextOutput        *float64 `json:"long_context_output_credits_per_1000_tokens"`
	LongContextInputCacheHit *float64 `json:"long_context_input_cache_hit_credits_per_1000_tokens"`
}

// VariantCategoryResponse groups variant options.
type VariantCategoryResponse struct {
	Category     string                  `json:"category"`
	Title        string                  `json:"title"`
	Description  string                  `json:"description"`
	Configurable bool                    `json:"configurable"`
	Options      []VariantOptionResponse `json:"options"`
}

// ToolResponse is a prompt tool as listed on a model.
type ToolResponse struct {
	ID          string `json:"id"`
	ToolType    string `json:"tool_type"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// ModelResponse is the PromptModelResponse shape (GET /models entries and
// GET /models/{id}/details). Both id and model_id carry the catalog id,
// which is the identifier the API accepts in paths.
type ModelResponse struct {
	ID                       string                    `json:"id"`
	ModelID                  string                    `json:"model_id"`
	Name                     string                    `json:"name"`
	Description              string                    `json:"description"`
	Enabled                  bool                      `json:"enabled"`
	Default                  bool                      `json:"default"`
	Provider                 string                    `json:"provider"`
	Family                   *string                   `json:"family"`
	FamilyGeneration         *float64                  `json:"family_generation"`
	MaxContextTokens         int                       `json:"max_context_tokens"`
	MaxOutputTokens          int                       `json:"max_output_tokens"`
	MaxConversationLength    int                       `json:"max_conversation_length"`
	Input                    *float64                  `json:"input_credits_per_1000_tokens"`
	Output                   *float64                  `json:"output_credits_per_1000_tokens"`
	CacheHit                 *float64                  `json:"input_cache_hit_credits_per_1000_tokens"`
	CacheWrite5m             *float64                  `json:"input_5m_cache_write_credits_per_1000_tokens"`
	CacheWrite1h             *float64                  `json:"input_1h_cache_write_credits_per_1000_tokens"`
	PerModalityRates         []ModalityRateResponse    `json:"per_modality_rates"`
	Variants                 []VariantCategoryResponse `json:"variants"`
	GenerationCreditsPerUnit *float64                  `json:"generation_credits_per_unit"`
	GenerationParams         map[string]any            `json:"generation_params"`
	GenerationUnitLabel      *string                   `json:"generation_unit_label"`
	ImageToolCreditsPerImage *float64                  `json:"image_generation_tool_credits_per_image"`
	SupportsToolUse          bool                      `json:"supports_tool_use"`
	SupportsThinking         bool                      `json:"supports_thinking"`
	SupportsStructuredOutput bool                      `json:"supports_structured_output"`
	SupportsStreaming        bool                      `json:"supports_streaming"`
	SupportsOpenAIArguments  bool                      `json:"supports_openai_arguments"`
	SupportedInputMedia      []string                  `json:"supported_input_media"`
	SupportedOutputMedia     []string                  `json:"supported_output_media"`
	SupportedLanguages       []string                  `json:"supported_languages"`
	ReleasedAt               *string                   `json:"released_at"`
	DeprecatedAt             *string                   `json:"deprecated_at"`
	SunsetAt                 *string                   `json:"sunset_at"`
	TrainingCutoffAt         *string                   `json:"training_cutoff_at"`
	SuccessorModelID         *string                   `json:"successor_model_id"`
	IsNew                    bool                      `json:"is_new"`
	LastUsed                 bool                      `json:"last_used"`
	URL                      *string                   `json:"url"`
	ToolsEnabled             []ToolResponse            `json:"tools_enabled"`
	ToolsDisabled            []ToolResponse            `json:"tools_disabled"`
	PayloadSchema            map[string]any            `json:"payload_schema"`
	PayloadSchemaSourceURL   *string                   `json:"payload_schema_source_url"`
	SchemaDocumentationURL   *string                   `json:"schema_documentation_url"`
	SchemaNotes              *string                   `json:"schema_notes"`
}

// ProviderGroupResponse is one element of GET /models.
type ProviderGroupResponse struct {
	Provider string          `json:"provider"`
	Models   []ModelResponse `json:"models"`
}

// ImageToolModelID is the generator behind the prompt tool that makes
// images; its per-image price is shown on every tool-capable chat model.
const ImageToolModelID = "openai_gpt_image_1"

// Response renders m as the API shows it at now. A model past its sunset
// date is shown disabled, whatever the catalog file says: retirement is
// computed from the date, so a catalog shipped before the date is right
// after it.
func (c *Catalog) Response(m Model, now time.Time) ModelResponse {
	r := ModelResponse{
		ID: m.ID, ModelID: m.ID, Name: m.Name, Description: m.Description, Enabled: m.Enabled && !m.IsSunset(now),
		Default: m.Default, Provider: m.Provider,
		MaxContextTokens: m.MaxContextTokens, MaxOutputTokens: m.MaxOutputTokens,
		MaxConversationLength: m.MaxConversationLength,
		Input:                 m.Pricing.Input, Output: m.Pricing.Output, CacheHit: m.Pricing.CachedInput,
		CacheWrite5m: m.Pricing.CacheWrite5m, CacheWrite1h: m.Pricing.CacheWrite1h,
		PerModalityRates: []ModalityRateResponse{}, Variants: variants(&m),
		SupportsToolUse: m.SupportsToolUse, SupportsThinking: m.SupportsThinking,
		SupportsStructuredOutput: m.SupportsStructuredOutput, SupportsStreaming: m.SupportsStreaming,
		SupportsOpenAIArguments: m.SupportsOpenAIArguments,
		SupportedInputMedia:     MIMETypes(m.InputMedia), SupportedOutputMedia: MIMETypes(m.OutputMedia),
		SupportedLanguages: m.Languages,
		ReleasedAt:         dateTime(m.ReleasedAt), DeprecatedAt: dateTime(m.DeprecatedAt),
		SunsetAt: dateTime(m.SunsetAt), TrainingCutoffAt: dateTime(m.TrainingCutoffAt),
		SuccessorModelID: strPtr(m.SuccessorID), IsNew: m.IsNew(now), URL: strPtr(m.URL),
		ToolsEnabled: []ToolResponse{}, ToolsDisabled: []ToolResponse{},
	}
	if m.Family != "" {
		r.Family = &m.Family
		g := m.FamilyGeneration
		r.FamilyGeneration = &g
	}
	for _, mr := range m.Pricing.Modalities {
		r.PerModalityRates = append(r.PerModalityRates, ModalityRateResponse(mr))
	}
	if g := m.Media; g != nil {
		r.GenerationCreditsPerUnit = g.CreditsPerUnit
		label := UnitLabel(g.Unit)
		r.GenerationUnitLabel = &label
		r.GenerationParams = map[string]any{"modality": g.Modality, "pricing_unit": g.Unit}
		for k, v := range g.Params {
			r.GenerationParams[k] = v
		}
	}
	if m.Kind == KindChat && m.SupportsToolUse {
		if img, ok := c.Get(ImageToolModelID); ok && img.Enabled && img.Media != nil {
			r.ImageToolCreditsPerImage = img.Media.CreditsPerUnit
		}
	}
	return r
}

// GroupedResponse renders GET /models for filter f.
func (c *Catalog) GroupedResponse(f Filter, now time.Time) []ProviderGroupResponse {
	if f.Now.IsZero() {
		f.Now = now
	}
	groups := c.Grouped(f)
	out := make([]ProviderGroupResponse, 0, len(groups))
	for _, g := range groups {
		rg := ProviderGroupResponse{Provider: g.Provider, Models: make([]ModelResponse, 0, len(g.Models))}
		for _, m := range g.Models {
			rg.Models = append(rg.Models, c.Response(m, now))
		}
		out = append(out, rg)
	}
	return out
}

// RecommendationResponse is one entry of the recommendations response.
type RecommendationResponse struct {
	ID                       string   `json:"id"`
	ModelID                  string   `json:"model_id"`
	Name                     string   `json:"name"`
	Provider                 string   `json:"provider"`
	Description              string   `json:"description"`
	Family                   *string  `json:"family"`
	FamilyGeneration         *float64 `json:"family_generation"`
	MaxContextTokens         int      `json:"max_context_tokens"`
	MaxOutputTokens          int      `json:"max_output_tokens"`
	SupportsToolUse          bool     `json:"supports_tool_use"`
	SupportsStructuredOutput bool     `json:"supports_structured_output"`
	SupportsThinking         bool     `json:"supports_thinking"`
	SupportsOpenAIArguments  bool     `json:"supports_openai_arguments"`
	SupportsStreaming        bool     `json:"supports_streaming"`
	ReleasedAt               *string  `json:"released_at"`
	DeprecatedAt             *string  `json:"deprecated_at"`
	SunsetAt                 *string  `json:"sunset_at"`
	RecommendationType       string   `json:"recommendation_type"`
	Reason                   string   `json:"reason"`
}

// RecommendationsResponse is the body of GET /models/{id}/recommendations.
type RecommendationsResponse struct {
	CurrentModelID   string                   `json:"current_model_id"`
	CurrentModelName string                   `json:"current_model_name"`
	Successor        *RecommendationResponse  `json:"successor"`
	Upgrades         []RecommendationResponse `json:"upgrades"`
	SameProvider     []RecommendationResponse `json:"same_provider"`
	Alternatives     []RecommendationResponse `json:"alternatives"`
}

// Response renders the recommendations in the API shape.
func (r Recommendations) Response() RecommendationsResponse {
	conv := func(x Recommendation) RecommendationResponse {
		m := x.Model
		rr := RecommendationResponse{ID: m.ID, ModelID: m.ID, Name: m.Name, Provider: m.Provider,
			Description: m.Description, MaxContextTokens: m.MaxContextTokens, MaxOutputTokens: m.MaxOutputTokens,
			SupportsToolUse: m.SupportsToolUse, SupportsStructuredOutput: m.SupportsStructuredOutput,
			SupportsThinking: m.SupportsThinking, SupportsOpenAIArguments: m.SupportsOpenAIArguments,
			SupportsStreaming: m.SupportsStreaming, ReleasedAt: dateTime(m.ReleasedAt),
			DeprecatedAt: dateTime(m.DeprecatedAt), SunsetAt: dateTime(m.SunsetAt),
			RecommendationType: x.Type, Reason: x.Reason}
		if m.Family != "" {
			rr.Family = &m.Family
			g := m.FamilyGeneration
			rr.FamilyGeneration = &g
		}
		return rr
	}
	list := func(in []Recommendation) []RecommendationResponse {
		out := make([]RecommendationResponse, 0, len(in))
		for _, x := range in {
			out = append(out, conv(x))
		}
		return out
	}
	out := RecommendationsResponse{CurrentModelID: r.Current.ID, CurrentModelName: r.Current.Name,
		Upgrades: list(r.Upgrades), SameProvider: list(r.SameProvider), Alternatives: list(r.Alternatives)}
	if r.Successor != nil {
		s := conv(*r.Successor)
		out.Successor = &s
	}
	return out
}

// variants derives the variant categories from the pricing: a processing
// mode choice when batch rates exist, and the automatic long-context tier.
func variants(m *Model) []VariantCategoryResponse {
	p := m.Pricing
	var out []VariantCategoryResponse
	standard := VariantOptionResponse{Value: "standard", Title: "Standard", Default: true,
		Input: p.Input, Output: p.Output, CacheHit: p.CachedInput, CacheWrite5m: p.CacheWrite5m, CacheWrite1h: p.CacheWrite1h}
	if lc := p.LongContext; lc != nil {
		th := lc.Threshold
		standard.LongContextThreshold = &th
		standard.LongContextInput = lc.Input
		standard.LongContextOutput = lc.Output
		standard.LongContextInputCacheHit = lc.CachedInput
	}
	if b := p.Batch; b != nil {
		desc := "Asynchronous batch processing at a discount; results within 24 hours."
		sdesc := "Interactive requests."
		standard.Description = &sdesc
		out = append(out, VariantCategoryResponse{Category: "processing_mode", Title: "Processing mode",
			Description:  "How requests are processed and billed.",
			Configurable: true,
			Options: []VariantOptionResponse{standard, {Value: "batch", Title: "Batch", Description: &desc,
				Input: b.Input, Output: b.Output, CacheHit: p.CachedInput}}})
	}
	if lc := p.LongContext; lc != nil {
		desc := "Applied automatically when a request's input exceeds the threshold; the whole request is billed at these rates."
		th := lc.Threshold
		out = append(out, VariantCategoryResponse{Category: "context_tier", Title: "Context tier",
			Description:  "Rates by prompt size.",
			Configurable: false,
			Options: []VariantOptionResponse{
				{Value: "standard", Title: "Standard context", Default: true, Input: p.Input, Output: p.Output, CacheHit: p.CachedInput},
				{Value: "long_context", Title: "Long context", Description: &desc, LongContextThreshold: &th,
					Input: lc.Input, Output: lc.Output, CacheHit: lc.CachedInput,
					LongContextInput: lc.Input, LongContextOutput: lc.Output, LongContextInputCacheHit: lc.CachedInput}}})
	}
	if out == nil {
		out = []VariantCategoryResponse{}
	}
	return out
}

// mimeByKind lists the MIME types each coarse media kind stands for.
var mimeByKind = map[string][]string{
	MediaText:  {"text/plain"},
	MediaImage: {"image/png", "image/jpeg", "image/gif", "image/webp"},
	MediaAudio: {"audio/wav", "audio/mpeg", "audio/ogg"},
	MediaVideo: {"video/mp4", "video/webm"},
	MediaPDF:   {"application/pdf"},
}

// MIMETypes expands media kinds to the MIME types clients send.
func MIMETypes(kinds []string) []string {
	out := []string{}
	for _, k := range kinds {
		out = append(out, mimeByKind[k]...)
	}
	return out
}

func dateTime(d *Date) *string {
	if d == nil {
		return nil
	}
	s := d.UTC().Format(time.RFC3339)
	return &s
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
