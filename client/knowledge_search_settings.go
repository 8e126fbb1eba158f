package client

import (
	"context"
	"net/http"
)

// SearchSettingsValues are a knowledge base's search settings.
type SearchSettingsValues struct {
	Mode           string  `json:"mode"` // hybrid, full_text or vector
	VectorWeight   float64 `json:"vector_weight"`
	CandidateDepth int     `json:"candidate_depth"`
	Feedback       bool    `json:"feedback"`
	RerankerModel  *string `json:"reranker_model"`
}

// SearchSettings are a knowledge base's search settings (an extension):
// those in force, which were set explicitly, and the defaults of the rest.
type SearchSettings struct {
	KnowledgeBaseID string `json:"knowledge_base_id"`
	SearchSettingsValues
	Explicit []string             `json:"explicit"`
	Defaults SearchSettingsValues `json:"defaults"`
	// Basis is what the defaults were chosen for: offline_embedder or
	// embedding_model.
	Basis string `json:"basis"`
}

// SearchSettingsUpdate changes search settings: nil fields stay, Reset
// names fields that return to their defaults, RerankerModel "" removes
// the reranker.
type SearchSettingsUpdate struct {
	Mode           *string  `json:"mode,omitempty"`
	VectorWeight   *float64 `json:"vector_weight,omitempty"`
	CandidateDepth *int     `json:"candidate_depth,omitempty"`
	Feedback       *bool    `json:"feedback,omitempty"`
	RerankerModel  *string  `json:"reranker_model,omitempty"`
	Reset          []string `json:"reset,omitempty"`
}

// KnowledgeBaseSearchSettings returns a knowledge base's search settings
// (GET /knowledge_bases/{id}/search-settings, an Agentry extension).
func (c *Client) KnowledgeBaseSearchSettings(ctx context.Context, kbID string, opts ...CallOption) (*SearchSettings, error) {
	var out SearchSettings
	if err := c.Do(ctx, http.MethodGet, pathf("/knowledge_bases/%s/search-settings", kbID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateKnowledgeBaseSearchSettings changes a knowledge base's search
// settings (PUT /knowledge_bases/{id}/search-settings, an Agentry
// extension).
func (c *Client) UpdateKnowledgeBaseSearchSettings(ctx context.Context, kbID string, req SearchSettingsUpdate, opts ...CallOption) (*SearchSettings, error) {
	var out SearchSettings
	if err := c.Do(ctx, http.MethodPut, pathf("/knowledge_bases/%s/search-settings", kbID), req, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}
