package api

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/modelalerts"
)

// Models: the catalog (list, details, recommendations, generation tiers),
// lifecycle alerts (models_alerts.go) and the playground (playground.go).
// The catalog is the same for every account; only last_used is personal.

// modelsRoutes registers the operations tagged models.

// modelCatalog is the process's model catalog.
func (s *Server) modelCatalog() *catalog.Catalog { return s.deps.Catalog }

// modelAlerts is the lifecycle alerts service.
func (s *Server) modelAlerts() *modelalerts.Service { return s.deps.ModelAlerts }

type listModelsInput struct {
	Provider            string              `query:"provider" doc:"Filter by provider name"`
	SupportsToolUse     optionalParam[bool] `query:"supports_tool_use" doc:"Filter to models that support tool use"`
	SupportsThinking    optionalParam[bool] `query:"supports_thinking" doc:"Filter to models that support extended thinking"`
	SupportsInputMedia  string              `query:"supports_input_media" doc:"Filter to models that accept this input modality: a coarse kind (image, audio, video, pdf) or a full MIME."`
	SupportsOutputMedia string              `query:"supports_output_media" doc:"Filter to models that produce this output modality: a coarse kind (image, audio, video) or a full MIME."`
}

type modelsAnyOutput struct{ Body any }

func (s *Server) listModels(ctx context.Context, in *listModelsInput) (*modelsAnyOutput, error) {
	f := catalog.Filter{Provider: in.Provider, SupportsToolUse: in.SupportsToolUse.ptr(), SupportsThinking: in.SupportsThinking.ptr(),
		InputMedia: in.SupportsInputMedia, OutputMedia: in.SupportsOutputMedia}
	if in.SupportsInputMedia != "" {
		if _, ok := catalog.NormalizeMedia(in.SupportsInputMedia); !ok {
			return nil, Invalid([]any{"query", "supports_input_media"}, "supports_input_media must be image, audio, video, pdf or a MIME type such as image/png", "value_error")
		}
	}
	if in.SupportsOutputMedia != "" {
		if _, ok := catalog.NormalizeMedia(in.SupportsOutputMedia); !ok {
			return nil, Invalid([]any{"query", "supports_output_media"}, "supports_output_media must be image, audio, video or a MIME type such as image/png", "value_error")
		}
	}
	if s.deps.RefreshModels != nil {
		s.deps.RefreshModels(ctx)
	}
	groups := s.modelCatalog().GroupedResponse(f, time.Now().UTC())
	if last := s.lastUsedModel(ctx); last != "" {
		for gi := range groups {
			for mi := range groups[gi].Models {
				groups[gi].Models[mi].LastUsed = groups[gi].Models[mi].ID == last
			}
		}
	}
	// A short list of provider groups: one page holds all of it.
	return &modelsAnyOutput{Body: List(ctx, groups, PageOf(1, max(len(groups), 1), len(groups)),
		func(items []catalog.ProviderGroupResponse, _ Pagination) any { return items })}, nil
}

// lastUsedModel is the chat model the account called most recently ("" if
// none, or if the usage log cannot be read: the flag is a convenience).
func (s *Server) lastUsedModel(ctx context.Context) string {
	ids, err := s.deps.Accounts.RecentModels(ctx, principal(ctx).AccountID, 20)
	if err != nil {
		return ""
	}
	cat := s.modelCatalog()
	for _, id := range ids {
		if m, ok := cat.Get(id); ok && m.Kind == catalog.KindChat {
			return m.ID
		}
	}
	return ""
}

type modelIDPath struct {
	ModelID string `path:"model_id" maxLength:"200" doc:"The model's catalog id (e.g. openai_gpt_4_1) or provider name."`
}

type modelOutput struct{ Body catalog.ModelResponse }

func (s *Server) getModel(ctx context.Context, in *modelIDPath) (*modelOutput, error) {
	cat := s.modelCatalog()
	m, ok := cat.Get(in.ModelID)
	if !ok {
		return nil, NotFound("Model")
	}
	r := cat.Response(m, time.Now().UTC())
	r.LastUsed = m.ID == s.lastUsedModel(ctx)
	return &modelOutput{Body: r}, nil
}

type recommendationsInput struct {
	// Not an embedded modelIDPath: huma skips unexported embedded structs.
	ModelID                 string `path:"model_id" maxLength:"200" doc:"The model's catalog id (e.g. openai_gpt_4_1) or provider name."`
	RequireToolUse          bool   `query:"require_tool_use" doc:"Only recommend models that support tool use."`
	RequireStructuredOutput bool   `query:"require_structured_output" doc:"Only recommend models that support structured output."`
	RequireThinking         bool   `query:"require_thinking" doc:"Only recommend models that support thinking/reasoning."`
	MinContextTokens        int    `query:"min_context_tokens" doc:"Minimum context window size in tokens."`
	MinOutputTokens         int    `query:"min_output_tokens" doc:"Minimum output token limit."`
}

type recommendationsOutput struct {
	Body catalog.RecommendationsResponse
}

func (s *Server) getRecommendations(_ context.Context, in *recommendationsInput) (*recommendationsOutput, error) {
	recs, err := s.modelCatalog().Recommend(in.ModelID, catalog.Requirements{ToolUse: in.RequireToolUse,
		StructuredOutput: in.RequireStructuredOutput, Thinking: in.RequireThinking,
		MinContextTokens: in.MinContextTokens, MinOutputTokens: in.MinOutputTokens}, time.Now().UTC())
	if err != nil {
		return nil, NotFound("Model")
	}
	return &recommendationsOutput{Body: recs.Response()}, nil
}

// GenerationTierListResponse is the legacy body of GET /models/generation-tiers.
type GenerationTierListResponse struct {
	Tiers []catalog.GenerationTier `json:"tiers"`
}

func (s *Server) getGenerationTiers(ctx context.Context, _ *struct{}) (*modelsAnyOutput, error) {
	tiers := s.modelCatalog().GenerationTiers()
	return &modelsAnyOutput{Body: List(ctx, tiers, PageOf(1, max(len(tiers), 1), len(tiers)),
		func(items []catalog.GenerationTier, _ Pagination) any {
			return GenerationTierListResponse{Tiers: items}
		})}, nil
}
