package client

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// Source exports: a source's contents written in the background as JSON
// Lines, CSV, Parquet or a zip (one text file per content and a
// manifest.jsonl), then downloaded. Create, poll GetSourceExport (or
// WaitSourceExport) until completed, then DownloadSourceExport.

// SourceExportRequest is what an export or an estimate covers. Format is
// one of "jsonl", "csv", "parquet", "zip".
type SourceExportRequest struct {
	Format         string         `json:"format"`
	DateFrom       *time.Time     `json:"date_from,omitempty"`
	DateTo         *time.Time     `json:"date_to,omitempty"`
	MetadataFilter map[string]any `json:"metadata_filter,omitempty"`
	QueryFilter    *string        `json:"query_filter,omitempty"`
}

// SourceExport is an export job's status and metadata.
type SourceExport struct {
	ID                  string         `json:"id"`
	SourceConnectionID  string         `json:"source_connection_id"`
	AccountID           string         `json:"account_id"`
	Format              string         `json:"format"`
	Destination         string         `json:"destination"`
	Status              string         `json:"status"` // pending, running, completed, failed, cancelled, expired
	DateFrom            *string        `json:"date_from"`
	DateTo              *string        `json:"date_to"`
	MetadataFilter      map[string]any `json:"metadata_filter"`
	QueryFilter         *string        `json:"query_filter"`
	EstimatedSizeBytes  *int64         `json:"estimated_size_bytes"`
	ProgressCurrent     *int           `json:"progress_current"`
	ProgressTotal       *int           `json:"progress_total"`
	ItemCount           *int           `json:"item_count"`
	FileSizeBytes       *int64         `json:"file_size_bytes"`
	StorageKey          *string        `json:"storage_key"`
	Error               *string        `json:"error"`
	RequestedByUserID   *string        `json:"requested_by_user_id"`
	RequestedByUserName *string        `json:"requested_by_user_name"`
	ExpiresAt           *string        `json:"expires_at"`
	StartedAt           *string        `json:"started_at"`
	CompletedAt         *string        `json:"completed_at"`
	CreatedAt           string         `json:"created_at"`
	UpdatedAt           string         `json:"updated_at"`
}

// Finished reports whether the export will change no more.
func (e *SourceExport) Finished() bool {
	switch e.Status {
	case "completed", "failed", "cancelled", "expired":
		return true
	}
	return false
}

// SourceExportEstimate is an export's estimated size.
type SourceExportEstimate struct {
	EstimatedSizeBytes int64  `json:"estimated_size_bytes"`
	SourceConnectionID string `json:"source_connection_id"`
}

// SourceExportListOptions page the exports of a source.
type SourceExportListOptions struct {
	Page  int // 1-based; 1 when zero
	Limit int // 1–100; the server's default (20) when zero
}

const maxSourceExportPage = 100

func (o SourceExportListOptions) query() ListQuery {
	return ListQuery{Paging: PageNumbers, Page: o.Page, Limit: min(o.Limit, maxSourceExportPage)}
}

// ListSourceExports returns one page of a source's exports, newest first.
func (c *Client) ListSourceExports(ctx context.Context, sourceID string, o SourceExportListOptions, opts ...CallOption) (*Page[SourceExport], error) {
	return ListPage[SourceExport](ctx, c, pathf("/sources/%s/exports", sourceID), o.query(), opts...)
}

// SourceExports iterates over all of a source's exports, newest first.
func (c *Client) SourceExports(ctx context.Context, sourceID string, opts ...CallOption) iter.Seq2[SourceExport, error] {
	return ListAll[SourceExport](ctx, c, pathf("/sources/%s/exports", sourceID), SourceExportListOptions{Limit: maxSourceExportPage}.query(), opts...)
}

// EstimateSourceExport sizes an export without starting it.
func (c *Client) EstimateSourceExport(ctx context.Context, sourceID string, r SourceExportRequest, opts ...CallOption) (*SourceExportEstimate, error) {
	var out SourceExportEstimate
	if err := c.Do(ctx, http.MethodPost, pathf("/sources/%s/exports/estimate", sourceID), r, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateSourceExport starts an export (202); it runs in the background.
func (c *Client) CreateSourceExport(ctx context.Context, sourceID string, r SourceExportRequest, opts ...CallOption) (*SourceExport, error) {
	var out SourceExport
	if err := c.Do(ctx, http.MethodPost, pathf("/sources/%s/exports", sourceID), r, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetSourceExport returns an export's status and progress.
func (c *Client) GetSourceExport(ctx context.Context, sourceID, exportID string, opts ...CallOption) (*SourceExport, error) {
	var out SourceExport
	if err := c.Do(ctx, http.MethodGet, pathf("/sources/%s/exports/%s", sourceID, exportID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// WaitSourceExport polls an export every interval (1 s when zero) until it
// has finished, calling progress (if not nil) with each state seen.
func (c *Client) WaitSourceExport(ctx context.Context, sourceID, exportID string, interval time.Duration, progress func(*SourceExport)) (*SourceExport, error) {
	if interval <= 0 {
		interval = time.Second
	}
	for {
		e, err := c.GetSourceExport(ctx, sourceID, exportID)
		if err != nil {
			return nil, err
		}
		if progress != nil {
			progress(e)
		}
		if e.Finished() {
			return e, nil
		}
		select {
		case <-ctx.Done():
			return e, ctx.Err()
		case <-time.After(interval):
		}
	}
}

// CancelSourceExport stops a pending or running export (409 otherwise).
func (c *Client) CancelSourceExport(ctx context.Context, sourceID, exportID string, opts ...CallOption) (*SourceExport, error) {
	var out SourceExport
	if err := c.Do(ctx, http.MethodPost, pathf("/sources/%s/exports/%s/cancel", sourceID, exportID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// DownloadSourceExport streams a completed export's file (409 before it
// completes, 410 once expired); the caller closes it.
func (c *Client) DownloadSourceExport(ctx context.Context, sourceID, exportID string, opts ...CallOption) (*Download, error) {
	return c.Download(ctx, pathf("/sources/%s/exports/%s/download", sourceID, exportID), opts...)
}

// DeleteSourceExport deletes an export and its file.
func (c *Client) DeleteSourceExport(ctx context.Context, sourceID, exportID string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/sources/%s/exports/%s", sourceID, exportID), nil, nil, opts...)
}
