package api

import (
	"context"
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

// modelUsageDoc describes GET /models/{model_id}/usage (routes in api.go).
const modelUsageDoc = "How many metered calls the account made to the model, and when the last one was."

func (s *Server) getModelUsage(ctx context.Context, in *modelIDPath) (*modelUsageOutput, error) {
	m, ok := s.modelCatalog().Get(in.ModelID)
	if !ok {
		return nil, NotFound("Model")
	}
	u, err := s.deps.Accounts.ModelUsage(ctx, principal(ctx).AccountID, m.ID)
	if err != nil {
		return nil, err
	}
	return &modelUsageOutput{Body: ModelUsageResponse{ModelID: m.ID, Calls: u.Calls, LastUsedAt: u.LastUsed}}, nil
}
