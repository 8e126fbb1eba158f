package client

import (
	"context"
	"net/http"
)

// APIVersionResponse describes the account's API version.
type APIVersionResponse struct {
	// PinnedVersion is the account's pin, nil when unpinned.
	PinnedVersion *string `json:"pinned_version"`
	// EffectiveVersion is what this request resolved to (header > pin > default).
	EffectiveVersion string   `json:"effective_version"`
	DefaultVersion   string   `json:"default_version"`
	LatestVersion    string   `json:"latest_version"`
	KnownVersions    []string `json:"known_versions"`
}

// UpdateAPIVersionRequest pins (Version set) or clears (Version nil, sent
// as JSON null) the account's version.
type UpdateAPIVersionRequest struct {
	Version *string `json:"version"`
}

// GetVersion reports the account's pin and what this request resolves to
// (GET /version).
func (c *Client) GetVersion(ctx context.Context, opts ...CallOption) (*APIVersionResponse, error) {
	var out APIVersionResponse
	if err := c.Do(ctx, http.MethodGet, "/version", nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// PutVersion pins or clears the account's version (PUT /version; owner or
// admin only).
func (c *Client) PutVersion(ctx context.Context, in UpdateAPIVersionRequest, opts ...CallOption) (*APIVersionResponse, error) {
	var out APIVersionResponse
	if err := c.Do(ctx, http.MethodPut, "/version", in, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// SetVersion pins the account to a YYYY-MM-DD date. The server validates
// the date; any date is accepted and resolves to the newest known version on
// or before it.
func (c *Client) SetVersion(ctx context.Context, date string, opts ...CallOption) (*APIVersionResponse, error) {
	return c.PutVersion(ctx, UpdateAPIVersionRequest{Version: &date}, opts...)
}

// ClearVersion removes the account's pin.
func (c *Client) ClearVersion(ctx context.Context, opts ...CallOption) (*APIVersionResponse, error) {
	return c.PutVersion(ctx, UpdateAPIVersionRequest{}, opts...)
}
