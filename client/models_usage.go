package client

import (
	"context"
	"net/http"
	"time"
)

// ModelUsage is the account's use of one model (an Agentry extension).
type ModelUsage struct {
	ModelID string `json:"model_id"`
	Calls   int64  `json:"calls"`
	// LastUsedAt is nil when the account never called the model.
	LastUsedAt *time.Time `json:"last_used_at"`
}

// GetModelUsage reports how often and how recently the account used a
// model (GET /models/{model_id}/usage).
func (c *Client) GetModelUsage(ctx context.Context, modelID string, opts ...CallOption) (*ModelUsage, error) {
	var out ModelUsage
	if err := c.Do(ctx, http.MethodGet, pathf("/models/%s/usage", modelID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}
