package client

import (
	"context"
	"net/url"
)

// SourceContent is a content of a source's list (GET
// /sources/{id}/contents, an Agentry extension): what it is and how far
// its indexing went. GetContent has its text.
type SourceContent struct {
	ID               string  `json:"id"`
	Title            *string `json:"title"`
	Filename         string  `json:"filename"`
	ContentURL       string  `json:"content_url"`
	ContentType      string  `json:"content_type"`
	ContentStatus    string  `json:"content_status"` // queued … indexed, failed
	Error            *string `json:"error"`
	Version          int     `json:"version"`
	ContentVersionID string  `json:"content_version_id"`
	SizeBytes        int64   `json:"size_bytes"`
	WordCount        *int    `json:"word_count"`
	ChunkCount       *int    `json:"chunk_count"`
	PulledAt         string  `json:"pulled_at"`
	IndexedAt        *string `json:"indexed_at"`
	CreatedAt        string  `json:"created_at"`
	UpdatedAt        string  `json:"updated_at"`
}

// Finished reports whether the content's indexing ended (indexed or failed).
func (c SourceContent) Finished() bool {
	return c.ContentStatus == ContentIndexed || c.ContentStatus == ContentFailed
}

// Content statuses, and the list filter for those still on their way.
const (
	ContentIndexed = "indexed"
	ContentFailed  = "failed"
	ContentPending = "pending" // a filter: neither indexed nor failed
)

// SourceContentListOptions page and filter a source's contents.
type SourceContentListOptions struct {
	Status      string // "" for all, a content status, or ContentPending
	Page, Limit int    // limit 1–100
}

// ListSourceContents returns one page of a source's contents, newest first.
func (c *Client) ListSourceContents(ctx context.Context, sourceID string, o SourceContentListOptions, opts ...CallOption) (*Page[SourceContent], error) {
	p := url.Values{}
	if o.Status != "" {
		p.Set("status", o.Status)
	}
	return ListPage[SourceContent](ctx, c, pathf("/sources/%s/contents", sourceID), ListQuery{Params: p, Paging: PageNumbers, Page: o.Page, Limit: min(o.Limit, 100)}, opts...)
}
