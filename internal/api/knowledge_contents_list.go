package api

import (
	"context"

	"github.com/agentry/agentry/internal/fault"
)

// GET /sources/{id}/contents (an extension): a source's contents, newest
// first, with their indexing status, so that a client (the console's
// source page) can list them and watch uploads until they are searchable.

// SourceContentItem is a content of a source's list: what it is and how
// far its indexing went; GET /contents/{id} has its text.
type SourceContentItem struct {
	ID            string  `json:"id" doc:"The content's id (a SourceConnectionContentVersion)."`
	Title         *string `json:"title" nullable:"true"`
	Filename      string  `json:"filename" doc:"The uploaded file's name; empty for inline text and polled items."`
	ContentURL    string  `json:"content_url"`
	ContentType   string  `json:"content_type"`
	ContentStatus string  `json:"content_status" doc:"queued, extracting, chunking, embedding, indexing, indexed or failed."`
	Error         *string `json:"error" nullable:"true" doc:"Why indexing failed."`
	Version       int     `json:"version" doc:"1 for the first version; each replacement adds one."`
	VersionID     string  `json:"content_version_id"`
	SizeBytes     int64   `json:"size_bytes"`
	WordCount     *int    `json:"word_count" nullable:"true"`
	ChunkCount    *int    `json:"chunk_count" nullable:"true"`
	PulledAt      string  `json:"pulled_at"`
	IndexedAt     *string `json:"indexed_at" nullable:"true"`
	CreatedAt     string  `json:"created_at"`
	UpdatedAt     string  `json:"updated_at"`
}

// SourceContentListResponse is {data, pagination}.
type SourceContentListResponse struct {
	Data       []SourceContentItem `json:"data"`
	Pagination Pagination          `json:"pagination"`
}

type sourceContentsInput struct {
	SourceID string `path:"source_connection_id" format:"uuid" doc:"The source's id."`
	Status   string `query:"status" enum:"queued,extracting,chunking,embedding,indexing,indexed,failed,pending" doc:"Keep one status; pending keeps those neither indexed nor failed."`
	Page     int    `query:"page" default:"1" minimum:"1" maximum:"1000000"`
	Limit    int    `query:"limit" default:"20" minimum:"1" maximum:"100"`
}

type sourceContentsOutput struct{ Body SourceContentListResponse }

const listSourceContentsDoc = "A source's contents, newest first, with their indexing status (`content_status`, and `error` when it failed). `status=pending` keeps the contents not yet indexed nor failed."

func (s *Server) listSourceContents(ctx context.Context, in *sourceContentsInput) (*sourceContentsOutput, error) {
	list, total, err := s.deps.Knowledge.SourceContents(ctx, principal(ctx).AccountID, in.SourceID, in.Status, in.Page, in.Limit)
	if err != nil {
		return nil, fault.Name(err, "Source")
	}
	out := SourceContentListResponse{Data: make([]SourceContentItem, 0, len(list)), Pagination: PageOf(in.Page, in.Limit, total)}
	for _, c := range list {
		out.Data = append(out.Data, SourceContentItem{ID: c.ID, Title: c.Title, Filename: c.Filename, ContentURL: c.ContentURL,
			ContentType: c.ContentType, ContentStatus: c.Status, Error: c.Error, Version: c.Version, VersionID: c.VersionID,
			SizeBytes: c.SizeBytes, WordCount: c.WordCount, ChunkCount: c.ChunkCount, PulledAt: modelsTimestamp(c.PulledAt),
			IndexedAt: timePtr(c.IndexedAt), CreatedAt: modelsTimestamp(c.CreatedAt), UpdatedAt: modelsTimestamp(c.UpdatedAt)})
	}
	return &sourceContentsOutput{Body: out}, nil
}
