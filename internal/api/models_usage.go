package api

import (
	"context"
	"net/http"
	"time"
)

// Model usage (extension): when the account last used a model, which
// PromptModelResponse's boolean last_used cannot say.

// ModelUsageResponse is the account's use of one model.
type ModelUsageResponse struct {
	ModelID    string     `json:"model_id" doc:"The model's catalog id."`
	Calls      int64      `json:"calls" doc:"Metered calls the account made to the model."`
	LastUsedAt *time.Time `json:"last_used_at" doc:"When the account last called the model; null when it never has."`
}

type modelUsageOutput struct{ Body ModelUsageResponse }

func (s *Server) modelUsageRoutes() {
	register(s, extension(withDesc(op("get_model_usage", http.MethodGet, "/models/{model_id}/usage", "Get the account's use of a model", "models"),
		"How many metered calls the account made to the model, and when the last one was.")), s.getModelUsage)
}

func (s *Server) getModelUsage(ctx context.Context, in *modelIDPath) (*modelUsageOutput, error) {
	m, ok := s.modelCatalog().Get(in.ModelID)
	if !ok {
		return nil, NotFound("Model")
	}
	u, err := s.deps.DB.ModelUsage(ctx, principal(ctx).AccountID, m.ID)
	if err != nil {
		return nil, err
	}
	return &modelUsageOutput{Body: ModelUsageResponse{ModelID: m.ID, Calls: u.Calls, LastUsedAt: u.LastUsed}}, nil
}
