package client

import (
	"context"
	"net/http"
)

// DefaultModel says which model answers the account's prompt steps that
// name no model (an Agentry extension).
type DefaultModel struct {
	// ModelID answers the account's prompt steps that name no model.
	ModelID string `json:"model_id"`
	// Source is "account" when the account chose it, else "server".
	Source string `json:"source"`
	// AccountModelID is the account's own choice; nil when unset.
	AccountModelID *string `json:"account_model_id"`
	// ServerModelID is the server's default and ServerDefaultReason why:
	// --default-model, else the configured provider's default, else the
	// offline model.
	ServerModelID       string `json:"server_model_id"`
	ServerDefaultReason string `json:"server_default_reason"`
}

// GetDefaultModel reports the account's default model (GET /models/default).
func (c *Client) GetDefaultModel(ctx context.Context, opts ...CallOption) (*DefaultModel, error) {
	var out DefaultModel
	if err := c.Do(ctx, http.MethodGet, "/models/default", nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// SetDefaultModel sets the account's default model (PUT /models/default;
// owner or admin); an empty modelID clears it, so the server's applies.
func (c *Client) SetDefaultModel(ctx context.Context, modelID string, opts ...CallOption) (*DefaultModel, error) {
	body := map[string]any{"model_id": nil}
	if modelID != "" {
		body["model_id"] = modelID
	}
	var out DefaultModel
	if err := c.Do(ctx, http.MethodPut, "/models/default", body, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}
