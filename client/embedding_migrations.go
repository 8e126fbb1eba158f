package client

import (
	"context"
	"net/http"
)

// EmbeddingMigration is a source's embedding migration: re-embedding a
// custom_index source with another model and size in the background.
type EmbeddingMigration struct {
	ID                     string   `json:"id"`
	SourceConnectionID     string   `json:"source_connection_id"`
	SourceIDOld            string   `json:"source_id_old"`
	SourceIDNew            string   `json:"source_id_new"`
	TargetEmbeddingModel   string   `json:"target_embedding_model"`
	TargetDimensions       int      `json:"target_dimensions"`
	Status                 string   `json:"status"`
	Phase                  string   `json:"phase"`
	ProgressCurrent        int      `json:"progress_current"`
	ProgressTotal          int      `json:"progress_total"`
	ProgressMessage        *string  `json:"progress_message"`
	FailureMessage         *string  `json:"failure_message"`
	NotificationRecipients []string `json:"notification_recipients"`
	StartedAt              *string  `json:"started_at"`
	CompletedAt            *string  `json:"completed_at"`
	CreatedAt              string   `json:"created_at"`
	UpdatedAt              string   `json:"updated_at"`
}

// StartEmbeddingMigration starts re-embedding a source with model at dims.
func (c *Client) StartEmbeddingMigration(ctx context.Context, sourceID, model string, dims int, opts ...CallOption) (*EmbeddingMigration, error) {
	var out EmbeddingMigration
	body := map[string]any{"target_embedding_model": model, "target_dimensions": dims}
	if err := c.Do(ctx, http.MethodPost, pathf("/sources/%s/embedding-migration", sourceID), body, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// EmbeddingMigration returns the source's latest migration, nil when none was started.
func (c *Client) EmbeddingMigration(ctx context.Context, sourceID string, opts ...CallOption) (*EmbeddingMigration, error) {
	var out *EmbeddingMigration
	if err := c.Do(ctx, http.MethodGet, pathf("/sources/%s/embedding-migration", sourceID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return out, nil
}

// CancelEmbeddingMigration cancels the source's active migration.
func (c *Client) CancelEmbeddingMigration(ctx context.Context, sourceID string, opts ...CallOption) (*EmbeddingMigration, error) {
	var out EmbeddingMigration
	if err := c.Do(ctx, http.MethodPost, pathf("/sources/%s/embedding-migration/cancel", sourceID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}
