package api

import (
	"context"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/knowledge/metafilter"
)

// SourceConnectionSummary is a source within a knowledge base.
type SourceConnectionSummary struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Polling    *string `json:"polling" nullable:"true"`
	SourceType string  `json:"source_type"`
	URL        string  `json:"url"`
}

// KnowledgeBaseResponse is a knowledge base.
type KnowledgeBaseResponse struct {
	ID                    string                    `json:"id"`
	Name                  string                    `json:"name"`
	Description           *string                   `json:"description" nullable:"true"`
	DefaultTopN           *int                      `json:"default_top_n" nullable:"true"`
	DefaultTopK           *int                      `json:"default_top_k" nullable:"true"`
	DefaultScoreThreshold *float64                  `json:"default_score_threshold" nullable:"true"`
	RerankerModel         *string                   `json:"reranker_model" nullable:"true"`
	Readonly              bool                      `json:"readonly"`
	Sources               []SourceConnectionSummary `json:"sources"`
	CreatedAt             string                    `json:"created_at"`
	UpdatedAt             string                    `json:"updated_at"`
}

func (s *Server) kbResponse(ctx context.Context, k knowledge.KnowledgeBase) KnowledgeBaseResponse {
	r := KnowledgeBaseResponse{ID: k.ID, Name: k.Name, Description: k.Description, DefaultTopN: k.DefaultTopN, DefaultTopK: k.DefaultTopK,
		DefaultScoreThreshold: k.DefaultScoreThreshold, RerankerModel: k.RerankerModel, Readonly: k.Readonly,
		Sources: []SourceConnectionSummary{}, CreatedAt: modelsTimestamp(k.CreatedAt), UpdatedAt: modelsTimestamp(k.UpdatedAt)}
	for _, id := range k.SourceIDs {
		src, err := s.deps.Knowledge.Source(ctx, k.AccountID, id)
		if err != nil {
			continue
		}
		u := ""
		if src.URL != nil {
			u = *src.URL
		}
		r.Sources = append(r.Sources, SourceConnectionSummary{ID: src.ID, Name: src.Name, Polling: src.Polling, SourceType: src.SourceType, URL: u})
	}
	return r
}

// CreateKnowledgeBaseBody is POST /knowledge_bases.
type CreateKnowledgeBaseBody struct {
	Name                  string   `json:"name" minLength:"1" maxLength:"255"`
	Description           *string  `json:"description,omitempty" nullable:"true" maxLength:"1000"`
	SourceIDs             []string `json:"source_ids" minItems:"1" maxItems:"100"`
	DefaultTopN           *int     `json:"default_top_n,omitempty" nullable:"true" minimum:"1" maximum:"200"`
	DefaultTopK           *int     `json:"default_top_k,omitempty" nullable:"true" minimum:"1" maximum:"200"`
	DefaultScoreThreshold *float64 `json:"default_score_threshold,omitempty" nullable:"true" minimum:"0" maximum:"1"`
	RerankerModel         *string  `json:"reranker_model,omitempty" nullable:"true" maxLength:"200"`
}

type createKBInput struct{ Body CreateKnowledgeBaseBody }
type kbOutput struct{ Body KnowledgeBaseResponse }

func (s *Server) createKnowledgeBase(ctx context.Context, in *createKBInput) (*kbOutput, error) {
	b := in.Body
	k, err := s.deps.Knowledge.CreateKnowledgeBase(ctx, principal(ctx).AccountID, knowledge.KnowledgeBaseInput{Name: &b.Name,
		Description: b.Description, SourceIDs: &b.SourceIDs, TopN: b.DefaultTopN, TopK: b.DefaultTopK, Threshold: b.DefaultScoreThreshold,
		RerankerModel: b.RerankerModel})
	if err != nil {
		return nil, fault.Name(err, "Knowledge base")
	}
	return &kbOutput{Body: s.kbResponse(ctx, k)}, nil
}

type kbIDInput struct {
	KBID string `path:"knowledge_base_id" format:"uuid" doc:"The knowledge base's id."`
}

func (s *Server) getKnowledgeBase(ctx context.Context, in *kbIDInput) (*kbOutput, error) {
	k, err := s.deps.Knowledge.KnowledgeBase(ctx, principal(ctx).AccountID, in.KBID)
	if err != nil {
		return nil, fault.Name(err, "Knowledge base")
	}
	return &kbOutput{Body: s.kbResponse(ctx, k)}, nil
}

// UpdateKnowledgeBaseBody is PUT /knowledge_bases/{id}; omitted fields stay.
type UpdateKnowledgeBaseBody struct {
	Name                  *string   `json:"name,omitempty" nullable:"true" minLength:"1" maxLength:"255"`
	Description           *string   `json:"description,omitempty" nullable:"true" maxLength:"1000"`
	SourceIDs             *[]string `json:"source_ids,omitempty" nullable:"true" maxItems:"100"`
	DefaultTopN           *int      `json:"default_top_n,omitempty" nullable:"true" minimum:"0" maximum:"200" doc:"0 clears."`
	DefaultTopK           *int      `json:"default_top_k,omitempty" nullable:"true" minimum:"0" maximum:"200" doc:"0 clears."`
	DefaultScoreThreshold *float64  `json:"default_score_threshold,omitempty" nullable:"true" minimum:"-1" maximum:"1" doc:"-1 clears."`
	RerankerModel         *string   `json:"reranker_model,omitempty" nullable:"true" maxLength:"200" doc:"Empty string removes the reranker."`
}

type updateKBInput struct {
	KBID string `path:"knowledge_base_id" format:"uuid" doc:"The knowledge base's id."`
	Body UpdateKnowledgeBaseBody
}

func (s *Server) updateKnowledgeBase(ctx context.Context, in *updateKBInput) (*kbOutput, error) {
	b := in.Body
	k, err := s.deps.Knowledge.UpdateKnowledgeBase(ctx, principal(ctx).AccountID, in.KBID, knowledge.KnowledgeBaseInput{Name: b.Name,
		Description: b.Description, SourceIDs: b.SourceIDs, TopN: b.DefaultTopN, TopK: b.DefaultTopK, Threshold: b.DefaultScoreThreshold,
		RerankerModel: b.RerankerModel})
	if err != nil {
		return nil, fault.Name(err, "Knowledge base")
	}
	return &kbOutput{Body: s.kbResponse(ctx, k)}, nil
}

func (s *Server) deleteKnowledgeBase(ctx context.Context, in *kbIDInput) (*struct{}, error) {
	if err := s.deps.Knowledge.DeleteKnowledgeBase(ctx, principal(ctx).AccountID, in.KBID); err != nil {
		return nil, fault.Name(err, "Knowledge base")
	}
	return nil, nil
}

type listKBInput struct {
	Page  int    `query:"page" default:"1" minimum:"1" maximum:"1000000" doc:"Page number (1-based)."`
	Limit int    `query:"limit" default:"20" minimum:"1" maximum:"100" doc:"Items per page."`
	Sort  string `query:"sort" default:"created_at" enum:"created_at,updated_at,name" doc:"Sort field."`
	Order string `query:"order" default:"desc" enum:"asc,desc" doc:"Sort direction."`
}

// KnowledgeBaseListResponse is the list's shape before 2026-07-27.
type KnowledgeBaseListResponse struct {
	KnowledgeBases []KnowledgeBaseResponse `json:"knowledge_bases"`
	Page           int                     `json:"page"`
	Limit          int                     `json:"limit"`
	Total          int                     `json:"total"`
}

type kbListOutput struct{ Body any }

func (s *Server) listKnowledgeBases(ctx context.Context, in *listKBInput) (*kbListOutput, error) {
	list, total, err := s.deps.Knowledge.KnowledgeBases(ctx, principal(ctx).AccountID, in.Sort, in.Order != "asc", in.Page, in.Limit)
	if err != nil {
		return nil, err
	}
	items := make([]KnowledgeBaseResponse, 0, len(list))
	for _, k := range list {
		items = append(items, s.kbResponse(ctx, k))
	}
	return &kbListOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), func(items []KnowledgeBaseResponse, p Pagination) any {
		return KnowledgeBaseListResponse{KnowledgeBases: items, Page: p.Page, Limit: p.Limit, Total: p.Total}
	})}, nil
}

// Knowledge-base search, an extension.
const searchKBDoc = `Searches a knowledge base the way a retrieval step does, so retrieval can be tested without building an agent.
The knowledge base's search settings (GET /knowledge_bases/{id}/search-settings) say how: full text (BM25F over each passage and
its content's title and descriptive metadata, statistics of the knowledge base's own sources), vectors, or both fused with a
vector weight; RM3 feedback; a reranker. mode, vector_weight, candidate_depth and feedback in the body override them for this
search. top_n passages are retrieved (default: the knowledge base's default_top_n, else 10), top_k kept after reranking, and
passages scoring below score_threshold dropped. score is the relevance, 0 to 1: the full-text score as a share of the best
the query could reach, and in hybrid mode that and the cosine similarity weighted by vector_weight; in vector mode the
cosine similarity; with a reranker, the reranker's score;
results are in the order of their score, and a passage repeating another of the same content is left out. explain: true adds,
per result, the full-text score and rank, the vector similarity and rank, the fused score and rank and the reranker's score,
and for the search the settings used and the query's terms. metadata_filter narrows the contents searched: {"key": value}
matches by containment; operators $eq, $ne, $in, $nin, $gt, $gte, $lt, $lte, $exists and $and/$or combine.`

// KnowledgeBaseSearchRequest is the body of the search extension.
type KnowledgeBaseSearchRequest struct {
	Query          string         `json:"query" minLength:"1" maxLength:"8192"`
	TopN           *int           `json:"top_n,omitempty" nullable:"true" minimum:"1" maximum:"200"`
	TopK           *int           `json:"top_k,omitempty" nullable:"true" minimum:"1" maximum:"200"`
	ScoreThreshold *float64       `json:"score_threshold,omitempty" nullable:"true" minimum:"0" maximum:"1"`
	MetadataFilter map[string]any `json:"metadata_filter,omitempty" nullable:"true"`
	SourceIDs      []string       `json:"source_ids,omitempty" nullable:"true" maxItems:"100" doc:"Search only these sources of the knowledge base."`
	Mode           *string        `json:"mode,omitempty" nullable:"true" enum:"hybrid,full_text,vector" doc:"Override the knowledge base's search mode for this search."`
	VectorWeight   *float64       `json:"vector_weight,omitempty" nullable:"true" minimum:"0" maximum:"1" doc:"Override the weight of the vector side in hybrid mode."`
	CandidateDepth *int           `json:"candidate_depth,omitempty" nullable:"true" minimum:"10" maximum:"1000" doc:"Override how many candidates each side contributes."`
	Feedback       *bool          `json:"feedback,omitempty" nullable:"true" doc:"Override whether RM3 feedback expands the query."`
	Explain        bool           `json:"explain,omitempty" doc:"Explain how each result was ranked."`
}

// SearchHitExplain says how a result was ranked; a side that did not run
// or did not score the passage is null. Ranks count from 1.
type SearchHitExplain struct {
	FullTextScore    *float64 `json:"fulltext_score" nullable:"true" doc:"BM25F score of the passage for the query (after feedback when it ran)."`
	FullTextRank     *int     `json:"fulltext_rank" nullable:"true" doc:"Place among the full-text candidates."`
	VectorSimilarity *float64 `json:"vector_similarity" nullable:"true" doc:"Cosine similarity of the passage's embedding to the query's."`
	VectorRank       *int     `json:"vector_rank" nullable:"true" doc:"Place among the vector candidates."`
	FusedScore       float64  `json:"fused_score" doc:"Score after fusion, before any reranker."`
	FusedRank        int      `json:"fused_rank" doc:"Place after fusion, before any reranker."`
	RerankScore      *float64 `json:"rerank_score" nullable:"true" doc:"The reranker's score, when one ran."`
}

// KnowledgeBaseSearchResult is one ranked passage.
type KnowledgeBaseSearchResult struct {
	ChunkID                          string            `json:"chunk_id"`
	Text                             string            `json:"text"`
	Score                            float64           `json:"score"`
	SourceConnectionContentVersionID string            `json:"source_connection_content_version_id"`
	ContentVersionID                 string            `json:"content_version_id"`
	SourceConnectionID               string            `json:"source_connection_id"`
	Title                            string            `json:"title"`
	Metadata                         map[string]any    `json:"metadata"`
	ContentURL                       string            `json:"content_url"`
	ChunkIndex                       int               `json:"chunk_index"`
	TextStart                        int               `json:"text_start"`
	TextEnd                          int               `json:"text_end"`
	Explain                          *SearchHitExplain `json:"explain,omitempty" doc:"With explain: true."`
}

// SearchExplain says how a search ran.
type SearchExplain struct {
	Settings      SearchSettingsValues `json:"settings" doc:"The settings the search ran with."`
	QueryTerms    []string             `json:"query_terms" doc:"The terms the full-text side scored: stemmed, stopwords dropped (kept when the query has nothing else)."`
	FeedbackTerms []string             `json:"feedback_terms" doc:"The terms RM3 feedback added."`
}

// KnowledgeBaseSearchResponse answers a search.
type KnowledgeBaseSearchResponse struct {
	Query   string                      `json:"query"`
	Results []KnowledgeBaseSearchResult `json:"results"`
	Explain *SearchExplain              `json:"explain,omitempty" doc:"With explain: true."`
}

type searchKBInput struct {
	KBID string `path:"knowledge_base_id" format:"uuid" doc:"The knowledge base's id."`
	Body KnowledgeBaseSearchRequest
}

type searchKBOutput struct{ Body KnowledgeBaseSearchResponse }

func (s *Server) searchKnowledgeBase(ctx context.Context, in *searchKBInput) (*searchKBOutput, error) {
	p := principal(ctx)
	b := in.Body
	req := knowledge.SearchRequest{Query: b.Query, Threshold: b.ScoreThreshold, SourceIDs: b.SourceIDs, StrictSources: true,
		Settings: knowledge.SearchSettings{VectorWeight: b.VectorWeight, Feedback: b.Feedback}}
	if b.Mode != nil {
		req.Settings.Mode = *b.Mode
	}
	if b.CandidateDepth != nil {
		req.Settings.CandidateDepth = *b.CandidateDepth
	}
	if b.TopN != nil {
		req.TopN = *b.TopN
	}
	if b.TopK != nil {
		req.TopK = *b.TopK
	}
	if len(b.MetadataFilter) > 0 {
		f, err := metafilter.Parse(b.MetadataFilter)
		if err != nil {
			return nil, Invalid([]any{"body", "metadata_filter"}, err.Error(), "value_error")
		}
		req.Filter = f
	}
	req.Meta.AccountID, req.Meta.Purpose = p.AccountID, "knowledge_search"
	res, err := s.deps.Knowledge.SearchExplained(ctx, p.AccountID, in.KBID, req)
	if err != nil {
		return nil, fault.Name(err, "Knowledge base")
	}
	out := KnowledgeBaseSearchResponse{Query: b.Query, Results: make([]KnowledgeBaseSearchResult, 0, len(res.Hits))}
	for _, h := range res.Hits {
		meta := h.Metadata
		if meta == nil {
			meta = map[string]any{}
		}
		r := KnowledgeBaseSearchResult{ChunkID: h.ChunkID, Text: h.Text, Score: h.Score,
			SourceConnectionContentVersionID: h.ContentID, ContentVersionID: h.VersionID, SourceConnectionID: h.SourceID,
			Title: h.Title, Metadata: meta, ContentURL: h.ContentURL, ChunkIndex: h.Ordinal, TextStart: h.TextStart, TextEnd: h.TextEnd}
		if b.Explain {
			e := SearchHitExplain(h.Explain)
			r.Explain = &e
		}
		out.Results = append(out.Results, r)
	}
	if b.Explain {
		out.Explain = &SearchExplain{Settings: settingsValues(res.Settings), QueryTerms: nonNil(res.QueryTerms), FeedbackTerms: nonNil(res.FeedbackTerms)}
	}
	return &searchKBOutput{Body: out}, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
