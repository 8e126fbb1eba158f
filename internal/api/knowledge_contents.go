package api

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/danielgtaylor/huma/v2"
)

// ContentDetailResponse is GET /contents/{id}.
type ContentDetailResponse struct {
	ID                               string              `json:"id"`
	SourceConnectionContentVersionID string              `json:"source_connection_content_version_id"`
	SourceConnectionID               string              `json:"source_connection_id"`
	SourceName                       string              `json:"source_name"`
	SourceType                       string              `json:"source_type"`
	Title                            *string             `json:"title" nullable:"true"`
	ContentURL                       string              `json:"content_url"`
	ContentType                      string              `json:"content_type"`
	ContentTypeDisplay               string              `json:"content_type_display"`
	ContentStatus                    string              `json:"content_status"`
	ContentWordCount                 *int                `json:"content_word_count" nullable:"true"`
	ContentDuration                  *int                `json:"content_duration" nullable:"true"`
	ContentDurationDisplay           *string             `json:"content_duration_display" nullable:"true"`
	PulledAt                         string              `json:"pulled_at"`
	PublishedAt                      *string             `json:"published_at" nullable:"true"`
	Description                      *string             `json:"description" nullable:"true"`
	TextContent                      *string             `json:"text_content" nullable:"true"`
	TextContentStart                 int                 `json:"text_content_start"`
	TextContentEnd                   int                 `json:"text_content_end"`
	TextContentTotalLength           int                 `json:"text_content_total_length"`
	Metadata                         []map[string]string `json:"metadata" nullable:"true"`
	Error                            *string             `json:"error" nullable:"true"`
}

var typeDisplay = map[string]string{"text/plain": "Text", "text/markdown": "Markdown", "text/x-markdown": "Markdown", "text/csv": "CSV",
	"text/html": "HTML", "application/json": "JSON", "application/pdf": "PDF", "application/xml": "XML", "text/xml": "XML",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word document"}

// metadataList shapes metadata as the contract's list of string maps:
// one {"key", "value"} entry per key, values as text (JSON for non-strings).
func metadataList(m map[string]any) []map[string]string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]map[string]string, 0, len(keys))
	for _, k := range keys {
		v, ok := m[k].(string)
		if !ok {
			b, _ := json.Marshal(m[k])
			v = string(b)
		}
		out = append(out, map[string]string{"key": k, "value": v})
	}
	return out
}

type contentIDInput struct {
	ContentID string `path:"source_connection_content_version" format:"uuid" doc:"The content's id (a SourceConnectionContentVersion)."`
}

type contentDetailInput struct {
	ContentID string `path:"source_connection_content_version" format:"uuid" doc:"The content's id (a SourceConnectionContentVersion)."`
	Start     int    `query:"start" default:"0" minimum:"0" maximum:"100000000" doc:"First character of text_content."`
	End       int    `query:"end" default:"5000" minimum:"0" maximum:"100000000" doc:"Character after the last of text_content."`
}

type contentDetailOutput struct{ Body ContentDetailResponse }

func (s *Server) getContent(ctx context.Context, in *contentDetailInput) (*contentDetailOutput, error) {
	d, err := s.deps.Knowledge.Content(ctx, principal(ctx).AccountID, in.ContentID, in.Start, in.End)
	if err != nil {
		return nil, fault.Name(err, "Content")
	}
	c := d.Content
	disp := typeDisplay[c.ContentType]
	if disp == "" {
		disp = c.ContentType
	}
	r := ContentDetailResponse{ID: c.ID, SourceConnectionContentVersionID: c.ID, SourceConnectionID: c.SourceID,
		SourceName: c.SourceName, SourceType: c.SourceType, Title: c.Title, ContentURL: c.ContentURL, ContentType: c.ContentType,
		ContentTypeDisplay: disp, ContentStatus: c.Status, ContentWordCount: c.WordCount, PulledAt: modelsTimestamp(c.PulledAt),
		PublishedAt: timePtr(c.PublishedAt), Description: c.Description, TextContent: d.Text, TextContentStart: d.Start,
		TextContentEnd: d.End, TextContentTotalLength: d.Total, Metadata: metadataList(c.Metadata), Error: c.Error}
	return &contentDetailOutput{Body: r}, nil
}

func (s *Server) deleteContent(ctx context.Context, in *contentIDInput) (*struct{}, error) {
	if err := s.deps.Knowledge.DeleteContent(ctx, principal(ctx).AccountID, in.ContentID); err != nil {
		return nil, fault.Name(err, "Content")
	}
	return nil, nil
}

// ContentUploadResponse answers a replacement.
type ContentUploadResponse struct {
	ContentVersionID                 *string `json:"content_version_id" nullable:"true" doc:"The new version's id."`
	SourceConnectionContentVersionID *string `json:"source_connection_content_version_id" nullable:"true" doc:"The content's id (unchanged)."`
	Filename                         string  `json:"filename"`
	Status                           string  `json:"status"`
}

type replaceTextInput struct {
	ContentID string `path:"source_connection_content_version" format:"uuid" doc:"The content's id."`
	Body      InlineTextUploadRequest
}

type contentUploadOutput struct{ Body ContentUploadResponse }

func replaceResult(r knowledge.UploadResult) ContentUploadResponse {
	return ContentUploadResponse{ContentVersionID: &r.VersionID, SourceConnectionContentVersionID: &r.ContentID, Filename: r.Filename, Status: r.Status}
}

func (s *Server) replaceContentText(ctx context.Context, in *replaceTextInput) (*contentUploadOutput, error) {
	b := in.Body
	res, err := s.deps.Knowledge.ReplaceWithText(ctx, principal(ctx).AccountID, in.ContentID, b.Text, ctOf(b.ContentType), b.Title, b.Metadata)
	if err != nil {
		return nil, fault.Name(err, "Content")
	}
	return &contentUploadOutput{Body: replaceResult(res)}, nil
}

type contentUploadInput struct {
	ContentID string `path:"source_connection_content_version" format:"uuid" doc:"The content's id."`
	multipartInput
}

func (in *contentUploadInput) Resolve(ctx huma.Context) []error { in.capture(ctx); return nil }

func (s *Server) replaceContentFile(ctx context.Context, in *contentUploadInput) (*contentUploadOutput, error) {
	acct := principal(ctx).AccountID
	if _, err := s.deps.Knowledge.Content(ctx, acct, in.ContentID, 0, 0); err != nil {
		return nil, fault.Name(err, "Content")
	}
	limit := s.deps.Knowledge.MaxUploadBytes()
	res, err := uploadForm(&in.multipartInput, limit, func(up knowledge.Upload) (knowledge.UploadResult, error) {
		return s.deps.Knowledge.ReplaceWithFile(ctx, acct, in.ContentID, up)
	})
	if err != nil {
		return nil, fault.Name(err, "Content")
	}
	return &contentUploadOutput{Body: replaceResult(res)}, nil
}

// ContentEmbeddingResponse is one chunk with its vector.
type ContentEmbeddingResponse struct {
	ID            string    `json:"id"`
	TextStart     int       `json:"text_start"`
	TextEnd       int       `json:"text_end"`
	Text          string    `json:"text"`
	Vector        []float32 `json:"vector"`
	BatchSize     int       `json:"batch_size"`
	BatchDuration float64   `json:"batch_duration"`
}

// ContentEmbeddingsListResponse is {data, pagination} at every version.
type ContentEmbeddingsListResponse struct {
	Data       []ContentEmbeddingResponse `json:"data"`
	Pagination Pagination                 `json:"pagination"`
}

type embeddingsInput struct {
	ContentID string `path:"source_connection_content_version" format:"uuid" doc:"The content's id."`
	Page      int    `query:"page" default:"1" minimum:"1" maximum:"1000000"`
	Limit     int    `query:"limit" default:"20" minimum:"1" maximum:"100"`
}

type embeddingsOutput struct{ Body ContentEmbeddingsListResponse }

func (s *Server) listContentEmbeddings(ctx context.Context, in *embeddingsInput) (*embeddingsOutput, error) {
	chunks, total, err := s.deps.Knowledge.Embeddings(ctx, principal(ctx).AccountID, in.ContentID, in.Page, in.Limit)
	if err != nil {
		return nil, fault.Name(err, "Content")
	}
	out := ContentEmbeddingsListResponse{Data: make([]ContentEmbeddingResponse, 0, len(chunks)), Pagination: PageOf(in.Page, in.Limit, total)}
	for _, c := range chunks {
		out.Data = append(out.Data, ContentEmbeddingResponse{ID: c.ID, TextStart: c.TextStart, TextEnd: c.TextEnd, Text: c.Text,
			Vector: c.Vector, BatchSize: c.BatchSize, BatchDuration: c.BatchDuration})
	}
	return &embeddingsOutput{Body: out}, nil
}
