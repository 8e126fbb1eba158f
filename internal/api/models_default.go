package api

import (
	"context"

	"github.com/agentry/agentry/internal/models/defaults"
)

// The account's default model (extension): which model answers prompt
// steps that name none, and an owner's or admin's way to choose it.

// DefaultModelResponse is the account's effective default model.
type DefaultModelResponse struct {
	ModelID             string  `json:"model_id" doc:"The catalog model that answers the account's prompt steps that name no model."`
	Source              string  `json:"source" enum:"account,server" doc:"account: the account chose it; server: the server's default applies."`
	AccountModelID      *string `json:"account_model_id" doc:"The account's own default; null when unset."`
	ServerModelID       string  `json:"server_model_id" doc:"The server's default: --default-model, else the configured provider's default, else the offline model."`
	ServerDefaultReason string  `json:"server_default_reason" doc:"Why the server's default is what it is, in a phrase."`
}

// DefaultModelRequest sets or clears the account's default model.
type DefaultModelRequest struct {
	ModelID *string `json:"model_id" required:"true" nullable:"true" maxLength:"200" doc:"A chat model's catalog id (or provider name) that a configured provider serves; null or empty clears the account's choice, so the server's default applies."`
}

type (
	defaultModelOutput   struct{ Body DefaultModelResponse }
	setDefaultModelInput struct {
		Body DefaultModelRequest
	}
)

const (
	getDefaultModelDoc = "Which model answers the account's prompt steps that name no model, and where that choice comes from."
	setDefaultModelDoc = "Sets the model that answers the account's prompt steps that name no model (owner or admin); null clears it."
)

func defaultModelResponse(d defaults.Default) DefaultModelResponse {
	out := DefaultModelResponse{ModelID: d.ModelID, Source: d.Source, ServerModelID: d.ServerModelID, ServerDefaultReason: d.ServerReason}
	if d.AccountModelID != "" {
		out.AccountModelID = &d.AccountModelID
	}
	return out
}

func (s *Server) getDefaultModel(ctx context.Context, _ *struct{}) (*defaultModelOutput, error) {
	d, err := s.deps.DefaultModels.Get(ctx, principal(ctx).AccountID)
	if err != nil {
		return nil, err
	}
	return &defaultModelOutput{Body: defaultModelResponse(d)}, nil
}

func (s *Server) setDefaultModel(ctx context.Context, in *setDefaultModelInput) (*defaultModelOutput, error) {
	p := principal(ctx)
	id := ""
	if in.Body.ModelID != nil {
		id = *in.Body.ModelID
	}
	d, err := s.deps.DefaultModels.Set(ctx, p.AccountID, id)
	if err != nil {
		return nil, err
	}
	return &defaultModelOutput{Body: defaultModelResponse(d)}, nil
}
