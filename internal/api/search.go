package api

import (
	"context"
	"strings"

	"github.com/agentry/agentry/internal/search"
)

// GET /search and GET /docs-search.

// SearchResult is one resource found.
type SearchResult struct {
	EntityType  string  `json:"entity_type"`
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description" nullable:"true"`
}

// SearchResponse is ranked results (not a paginated list).
type SearchResponse struct {
	Results []SearchResult `json:"results"`
}

type accountSearchInput struct {
	Q          string `query:"q" required:"true" minLength:"1" maxLength:"200" doc:"Search query"`
	Limit      int    `query:"limit" default:"10" minimum:"1" maximum:"50" doc:"Maximum results"`
	EntityType string `query:"entity_type" maxLength:"64" doc:"Optional entity type filter (e.g. 'agent', 'knowledge_base')"`
}

type accountSearchOutput struct{ Body SearchResponse }

func (s *Server) searchAccount(ctx context.Context, in *accountSearchInput) (*accountSearchOutput, error) {
	q := strings.TrimSpace(in.Q)
	if q == "" {
		return nil, Invalid([]any{"query", "q"}, "q must not be blank", "value_error")
	}
	rs, err := s.deps.Solutions.Search(ctx, principal(ctx).AccountID, q, in.EntityType, in.Limit)
	if err != nil {
		return nil, err
	}
	out := SearchResponse{Results: make([]SearchResult, 0, len(rs))}
	for _, r := range rs {
		out.Results = append(out.Results, SearchResult{EntityType: r.EntityType, ID: r.ID, Name: r.Name, Description: r.Description})
	}
	return &accountSearchOutput{Body: out}, nil
}

// DocsSearchResult is one page found.
type DocsSearchResult struct {
	DocSlug   string  `json:"doc_slug"`
	Title     string  `json:"title"`
	Anchor    *string `json:"anchor" nullable:"true"`
	Snippet   *string `json:"snippet" nullable:"true"`
	Highlight *string `json:"highlight" nullable:"true"`
	Score     float64 `json:"score"`
}

// DocsSearchResponse is ranked pages.
type DocsSearchResponse struct {
	Results []DocsSearchResult `json:"results"`
}

type docsSearchInput struct {
	Q     string `query:"q" required:"true" minLength:"1" maxLength:"200" doc:"Search query"`
	Mode  string `query:"mode" default:"keyword" enum:"keyword,semantic" doc:"Search strategy"`
	Limit int    `query:"limit" default:"8" minimum:"1" maximum:"20" doc:"Maximum results"`
}

type docsSearchOutput struct{ Body DocsSearchResponse }

func (s *Server) searchDocs(ctx context.Context, in *docsSearchInput) (*docsSearchOutput, error) {
	rs := search.Docs(in.Q, in.Mode, in.Limit)
	out := DocsSearchResponse{Results: make([]DocsSearchResult, 0, len(rs))}
	for _, r := range rs {
		out.Results = append(out.Results, DocsSearchResult{DocSlug: r.Slug, Title: r.Title, Anchor: r.Anchor, Snippet: r.Snippet,
			Highlight: r.Highlight, Score: r.Score})
	}
	return &docsSearchOutput{Body: out}, nil
}
