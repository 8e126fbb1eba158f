package api

import (
	"context"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/knowledge/exports"
)

// Source exports (routes in api.go): a source's contents written in the
// background as JSON Lines, CSV, Parquet or a zip, then downloaded.

// SourceExportRequest is the body of create and estimate.
type SourceExportRequest struct {
	Format         string         `json:"format" enum:"jsonl,csv,parquet,zip" doc:"Output file format (jsonl, csv, parquet, zip)."`
	DateFrom       *time.Time     `json:"date_from,omitempty" doc:"Only include content created on or after this timestamp."`
	DateTo         *time.Time     `json:"date_to,omitempty" doc:"Only include content created on or before this timestamp."`
	MetadataFilter map[string]any `json:"metadata_filter,omitempty" doc:"Containment filter applied to content metadata."`
	QueryFilter    *string        `json:"query_filter,omitempty" maxLength:"500" doc:"Title substring filter (case-insensitive)."`
}

func (r SourceExportRequest) request() exports.Request {
	return exports.Request{Format: r.Format, DateFrom: r.DateFrom, DateTo: r.DateTo, MetadataFilter: r.MetadataFilter, QueryFilter: r.QueryFilter}
}

// SourceExportResponse is an export's status and metadata.
type SourceExportResponse struct {
	ID                  string         `json:"id"`
	SourceConnectionID  string         `json:"source_connection_id"`
	AccountID           string         `json:"account_id"`
	Format              string         `json:"format"`
	Destination         string         `json:"destination" doc:"Where the file is kept: the server's blob store."`
	Status              string         `json:"status" doc:"pending, running, completed, failed, cancelled or expired."`
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

func optTimestamp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := timestamp(*t)
	return &s
}

func exportResponse(e exports.SourceExport) SourceExportResponse {
	cur := e.ProgressCurrent
	return SourceExportResponse{ID: e.ID, SourceConnectionID: e.SourceID, AccountID: e.AccountID, Format: e.Format, Destination: "blob",
		Status: e.Status, DateFrom: optTimestamp(e.DateFrom), DateTo: optTimestamp(e.DateTo), MetadataFilter: e.MetadataFilter,
		QueryFilter: e.QueryFilter, EstimatedSizeBytes: e.EstimatedSizeBytes, ProgressCurrent: &cur, ProgressTotal: e.ProgressTotal,
		ItemCount: e.ItemCount, FileSizeBytes: e.FileSizeBytes, StorageKey: e.StorageKey, Error: e.Error,
		RequestedByUserID: e.RequestedByUserID, RequestedByUserName: e.RequestedByUserName, ExpiresAt: optTimestamp(e.ExpiresAt),
		StartedAt: optTimestamp(e.StartedAt), CompletedAt: optTimestamp(e.CompletedAt), CreatedAt: timestamp(e.CreatedAt),
		UpdatedAt: timestamp(e.UpdatedAt)}
}

// SourceExportEstimate is an export's estimated size.
type SourceExportEstimate struct {
	EstimatedSizeBytes int64  `json:"estimated_size_bytes"`
	SourceConnectionID string `json:"source_connection_id"`
}

type exportIDInput struct {
	SourceID string `path:"source_connection_id" format:"uuid" doc:"The source."`
	ExportID string `path:"export_id" format:"uuid" doc:"The export."`
}

type listExportsInput struct {
	SourceID string `path:"source_connection_id" format:"uuid" doc:"The source."`
	Page     int    `query:"page" default:"1" minimum:"1" maximum:"1000000" doc:"Page number (1-based)."`
	Limit    int    `query:"limit" default:"20" minimum:"1" maximum:"100" doc:"Exports per page (1-100)."`
}

type exportListOutput struct {
	Body Envelope[SourceExportResponse]
}

func (s *Server) listSourceExports(ctx context.Context, in *listExportsInput) (*exportListOutput, error) {
	list, total, err := s.deps.SourceExports.List(ctx, principal(ctx).AccountID, in.SourceID, in.Page, in.Limit)
	if err != nil {
		return nil, fault.Name(err, "Source")
	}
	out := make([]SourceExportResponse, 0, len(list))
	for _, e := range list {
		out = append(out, exportResponse(e))
	}
	// The contract answers this envelope at every version.
	return &exportListOutput{Body: Envelope[SourceExportResponse]{Data: out, Pagination: PageOf(in.Page, in.Limit, total)}}, nil
}

type createExportInput struct {
	SourceID string `path:"source_connection_id" format:"uuid" doc:"The source."`
	Body     SourceExportRequest
}

type sourceExportOutput struct{ Body SourceExportResponse }

func (s *Server) createSourceExport(ctx context.Context, in *createExportInput) (*sourceExportOutput, error) {
	p := principal(ctx)
	e, err := s.deps.SourceExports.Create(ctx, p.AccountID, in.SourceID, exports.Requester{UserID: p.UserID}, in.Body.request())
	if err != nil {
		return nil, fault.Name(err, "Source")
	}
	return &sourceExportOutput{Body: exportResponse(e)}, nil
}

type estimateExportInput struct {
	SourceID string `path:"source_connection_id" format:"uuid" doc:"The source."`
	Body     SourceExportRequest
}

type estimateExportOutput struct{ Body SourceExportEstimate }

func (s *Server) estimateSourceExport(ctx context.Context, in *estimateExportInput) (*estimateExportOutput, error) {
	n, err := s.deps.SourceExports.Estimate(ctx, principal(ctx).AccountID, in.SourceID, in.Body.request())
	if err != nil {
		return nil, fault.Name(err, "Source")
	}
	return &estimateExportOutput{Body: SourceExportEstimate{EstimatedSizeBytes: n, SourceConnectionID: in.SourceID}}, nil
}

func (s *Server) getSourceExport(ctx context.Context, in *exportIDInput) (*sourceExportOutput, error) {
	e, err := s.deps.SourceExports.Get(ctx, principal(ctx).AccountID, in.SourceID, in.ExportID)
	if err != nil {
		return nil, fault.Name(err, "Export")
	}
	return &sourceExportOutput{Body: exportResponse(e)}, nil
}

func (s *Server) cancelSourceExport(ctx context.Context, in *exportIDInput) (*sourceExportOutput, error) {
	e, err := s.deps.SourceExports.Cancel(ctx, principal(ctx).AccountID, in.SourceID, in.ExportID)
	if err != nil {
		return nil, fault.Name(err, "Export")
	}
	return &sourceExportOutput{Body: exportResponse(e)}, nil
}

func (s *Server) deleteSourceExport(ctx context.Context, in *exportIDInput) (*struct{}, error) {
	if err := s.deps.SourceExports.Delete(ctx, principal(ctx).AccountID, in.SourceID, in.ExportID); err != nil {
		return nil, fault.Name(err, "Export")
	}
	return nil, nil
}

// downloadSourceExport streams the file from the blob store.
func (s *Server) downloadSourceExport(ctx context.Context, in *exportIDInput) (*huma.StreamResponse, error) {
	rd, e, err := s.deps.SourceExports.Download(ctx, principal(ctx).AccountID, in.SourceID, in.ExportID)
	if err != nil {
		return nil, fault.Name(err, "Export")
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		defer rd.Close()
		hctx.SetHeader("Content-Type", exports.ContentType(e.Format))
		hctx.SetHeader("X-Content-Type-Options", "nosniff")
		hctx.SetHeader("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": exports.FileName(e)}))
		if e.FileSizeBytes != nil {
			hctx.SetHeader("Content-Length", strconv.FormatInt(*e.FileSizeBytes, 10))
		}
		hctx.SetStatus(http.StatusOK)
		_, _ = io.Copy(hctx.BodyWriter(), rd)
	}}, nil
}
