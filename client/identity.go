package client

import (
	"context"
	"net/http"
)

// OrganizationInfo is an organization the caller belongs to. An
// organization is an account: ID and AccountID are the same.
type OrganizationInfo struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	AccountID string `json:"account_id"`
}

// MeResponse is the caller's identity.
type MeResponse struct {
	AccountID     string             `json:"account_id"`
	Organizations []OrganizationInfo `json:"organizations"`
}

// Me returns the caller's account and organizations (GET /me).
func (c *Client) Me(ctx context.Context, opts ...CallOption) (*MeResponse, error) {
	var out MeResponse
	if err := c.Do(ctx, http.MethodGet, "/me", nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}
