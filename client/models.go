package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

// Model is a catalog model (PromptModelResponse): capabilities, credit
// prices per 1,000 tokens, limits and lifecycle dates.
type Model struct {
	ID                       string                 `json:"id"`
	ModelID                  string                 `json:"model_id"`
	Name                     string                 `json:"name"`
	Description              string                 `json:"description"`
	Enabled                  bool                   `json:"enabled"`
	Default                  bool                   `json:"default"`
	Provider                 string                 `json:"provider"`
	Family                   *string                `json:"family"`
	FamilyGeneration         *float64               `json:"family_generation"`
	MaxContextTokens         int                    `json:"max_context_tokens"`
	MaxOutputTokens          int                    `json:"max_output_tokens"`
	MaxConversationLength    int                    `json:"max_conversation_length"`
	InputCredits             *float64               `json:"input_credits_per_1000_tokens"`
	OutputCredits            *float64               `json:"output_credits_per_1000_tokens"`
	CacheHitCredits          *float64               `json:"input_cache_hit_credits_per_1000_tokens"`
	CacheWrite5mCredits      *float64               `json:"input_5m_cache_write_credits_per_1000_tokens"`
	CacheWrite1hCredits      *float64               `json:"input_1h_cache_write_credits_per_1000_tokens"`
	PerModalityRates         []ModelModalityRate    `json:"per_modality_rates"`
	Variants                 []ModelVariantCategory `json:"variants"`
	GenerationCreditsPerUnit *float64               `json:"generation_credits_per_unit"`
	GenerationParams         map[string]any         `json:"generation_params"`
	GenerationUnitLabel      *string                `json:"generation_unit_label"`
	ImageToolCreditsPerImage *float64               `json:"image_generation_tool_credits_per_image"`
	SupportsToolUse          bool                   `json:"supports_tool_use"`
	SupportsThinking         bool                   `json:"supports_thinking"`
	SupportsStructuredOutput bool                   `json:"supports_structured_output"`
	SupportsStreaming        bool                   `json:"supports_streaming"`
	SupportsOpenAIArguments  bool                   `json:"supports_openai_arguments"`
	SupportedInputMedia      []string               `json:"supported_input_media"`
	SupportedOutputMedia     []string               `json:"supported_output_media"`
	SupportedLanguages       []string               `json:"supported_languages"`
	ReleasedAt               *string                `json:"released_at"`
	DeprecatedAt             *string                `json:"deprecated_at"`
	SunsetAt                 *string                `json:"sunset_at"`
	TrainingCutoffAt         *string                `json:"training_cutoff_at"`
	SuccessorModelID         *string                `json:"successor_model_id"`
	IsNew                    bool                   `json:"is_new"`
	// LastUsed marks the model the account called most recently.
	LastUsed bool    `json:"last_used"`
	URL      *string `json:"url"`
}

// ModelModalityRate is a per-modality token price.
type ModelModalityRate struct {
	Modality      string   `json:"modality"`
	InputCredits  *float64 `json:"input_credits_per_1000_tokens"`
	OutputCredits *float64 `json:"output_credits_per_1000_tokens"`
}

// ModelVariantCategory groups a model's pricing variants (processing
// mode, context tier).
type ModelVariantCategory struct {
	Category     string               `json:"category"`
	Title        string               `json:"title"`
	Description  string               `json:"description"`
	Configurable bool                 `json:"configurable"`
	Options      []ModelVariantOption `json:"options"`
}

// ModelVariantOption is one pricing variant.
type ModelVariantOption struct {
	Value         string   `json:"value"`
	Title         string   `json:"title"`
	Default       bool     `json:"default"`
	Description   *string  `json:"description"`
	InputCredits  *float64 `json:"input_credits_per_1000_tokens"`
	OutputCredits *float64 `json:"output_credits_per_1000_tokens"`
}

// ProviderGroup is one provider's models in GET /models.
type ProviderGroup struct {
	Provider string  `json:"provider"`
	Models   []Model `json:"models"`
}

// ModelFilter narrows GET /models. Nil booleans and empty strings do not
// filter; SupportsToolUse pointing at false asks for models without it.
type ModelFilter struct {
	Provider            string
	SupportsToolUse     *bool
	SupportsThinking    *bool
	SupportsInputMedia  string // image, audio, video, pdf or a MIME type
	SupportsOutputMedia string // image, audio, video or a MIME type
}

func (f ModelFilter) params() url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("provider", f.Provider)
	set("supports_input_media", f.SupportsInputMedia)
	set("supports_output_media", f.SupportsOutputMedia)
	if f.SupportsToolUse != nil {
		v.Set("supports_tool_use", strconv.FormatBool(*f.SupportsToolUse))
	}
	if f.SupportsThinking != nil {
		v.Set("supports_thinking", strconv.FormatBool(*f.SupportsThinking))
	}
	return v
}

// ListModels returns the enabled models grouped by provider (GET /models),
// in either version's shape.
func (c *Client) ListModels(ctx context.Context, f ModelFilter, opts ...CallOption) ([]ProviderGroup, error) {
	p, err := ListPage[ProviderGroup](ctx, c, "/models", ListQuery{Paging: OnePage, Params: f.params()}, opts...)
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// GetModel returns one model by catalog id or provider name
// (GET /models/{model_id}/details); ErrNotFound for an unknown one.
func (c *Client) GetModel(ctx context.Context, modelID string, opts ...CallOption) (*Model, error) {
	var out Model
	if err := c.Do(ctx, http.MethodGet, pathf("/models/%s/details", modelID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// ModelRecommendation is one suggested replacement.
type ModelRecommendation struct {
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
	// RecommendationType is successor, upgrade, same_provider or alternative.
	RecommendationType string `json:"recommendation_type"`
	Reason             string `json:"reason"`
}

// ModelRecommendations answers GET /models/{model_id}/recommendations.
type ModelRecommendations struct {
	CurrentModelID   string                `json:"current_model_id"`
	CurrentModelName string                `json:"current_model_name"`
	Successor        *ModelRecommendation  `json:"successor"`
	Upgrades         []ModelRecommendation `json:"upgrades"`
	SameProvider     []ModelRecommendation `json:"same_provider"`
	Alternatives     []ModelRecommendation `json:"alternatives"`
}

// ModelRequirements restrict recommendations; zero values do not.
type ModelRequirements struct {
	ToolUse, StructuredOutput, Thinking bool
	MinContextTokens, MinOutputTokens   int
}

// Recommendations suggests replacements for a model that meet req.
func (c *Client) Recommendations(ctx context.Context, modelID string, req ModelRequirements, opts ...CallOption) (*ModelRecommendations, error) {
	q := url.Values{}
	for k, on := range map[string]bool{"require_tool_use": req.ToolUse, "require_structured_output": req.StructuredOutput, "require_thinking": req.Thinking} {
		if on {
			q.Set(k, "true")
		}
	}
	if req.MinContextTokens > 0 {
		q.Set("min_context_tokens", strconv.Itoa(req.MinContextTokens))
	}
	if req.MinOutputTokens > 0 {
		q.Set("min_output_tokens", strconv.Itoa(req.MinOutputTokens))
	}
	var out ModelRecommendations
	err := c.Do(ctx, http.MethodGet, pathf("/models/%s/recommendations", modelID), nil, &out, append([]CallOption{WithQuery(q)}, opts...)...)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// GenerationTier maps a media modality and quality tier to its generator.
type GenerationTier struct {
	Modality       string  `json:"modality"`
	Tier           string  `json:"tier"` // fast, balanced, thorough
	ModelID        string  `json:"model_id"`
	ModelName      string  `json:"model_name"`
	CreditsPerUnit *int64  `json:"credits_per_unit"`
	UnitLabel      *string `json:"unit_label"`
	PriceLabel     *string `json:"price_label"`
}

// GenerationTiers lists every (modality, tier) and its generator
// (GET /models/generation-tiers).
func (c *Client) GenerationTiers(ctx context.Context, opts ...CallOption) ([]GenerationTier, error) {
	p, err := ListPage[GenerationTier](ctx, c, "/models/generation-tiers", ListQuery{Paging: OnePage, Key: "tiers"}, opts...)
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// ModelAlert is a model lifecycle notification.
type ModelAlert struct {
	ID            string  `json:"id"`
	AccountID     string  `json:"account_id"`
	AgentID       *string `json:"agent_id"`
	PromptModelID string  `json:"prompt_model_id"`
	ModelName     string  `json:"model_name"`
	// AlertType is model_deprecated, model_sunset, model_newer_available,
	// model_auto_upgraded, model_auto_rolled_back or model_rollback_blocked.
	AlertType          string  `json:"alert_type"`
	Message            string  `json:"message"`
	ReadAt             *string `json:"read_at"`
	SuccessorModelName *string `json:"successor_model_name"`
	CreatedAt          string  `json:"created_at"`
}

// ModelAlertListOptions filter and page GET /models/alerts.
type ModelAlertListOptions struct {
	AgentID    string
	UnreadOnly bool
	Offset     int
	Limit      int // 1–100; the server's 50 when zero (100 for ModelAlerts)
}

// maxAlertPage is the endpoint's largest page.
const maxAlertPage = 100

func (o ModelAlertListOptions) query() ListQuery {
	q := ListQuery{Paging: Offsets, Offset: o.Offset, Limit: min(o.Limit, maxAlertPage), Key: "alerts", Params: url.Values{}}
	if o.AgentID != "" {
		q.Params.Set("agent_id", o.AgentID)
	}
	if o.UnreadOnly {
		q.Params.Set("unread_only", "true")
	}
	return q
}

// ListModelAlerts returns one page of the account's alerts, newest first.
func (c *Client) ListModelAlerts(ctx context.Context, o ModelAlertListOptions, opts ...CallOption) (*Page[ModelAlert], error) {
	return ListPage[ModelAlert](ctx, c, "/models/alerts", o.query(), opts...)
}

// ModelAlerts iterates over all of the account's alerts (from o.Offset on).
func (c *Client) ModelAlerts(ctx context.Context, o ModelAlertListOptions, opts ...CallOption) iter.Seq2[ModelAlert, error] {
	if o.Limit <= 0 {
		o.Limit = maxAlertPage
	}
	return ListAll[ModelAlert](ctx, c, "/models/alerts", o.query(), opts...)
}

// ModelAlertUnreadCount counts the account's unread alerts.
func (c *Client) ModelAlertUnreadCount(ctx context.Context, opts ...CallOption) (int, error) {
	var out struct {
		Count int `json:"count"`
	}
	if err := c.Do(ctx, http.MethodGet, "/models/alerts/unread-count", nil, &out, opts...); err != nil {
		return 0, err
	}
	return out.Count, nil
}

// MarkModelAlertRead dismisses one alert; ErrNotFound if it is not the
// account's.
func (c *Client) MarkModelAlertRead(ctx context.Context, alertID string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodPatch, pathf("/models/alerts/%s/read", alertID), nil, nil, opts...)
}

// MarkAllModelAlertsRead dismisses every unread alert of the account.
func (c *Client) MarkAllModelAlertsRead(ctx context.Context, opts ...CallOption) error {
	return c.Do(ctx, http.MethodPost, "/models/alerts/mark-all-read", nil, nil, opts...)
}
