package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

// Knowledge: sources (content stores fed by uploads, RSS feeds, web
// sites), their contents, and knowledge bases with their search (an
// Agentry extension).

// Source is a knowledge source.
type Source struct {
	ID                   string   `json:"id"`
	AccountID            string   `json:"account_id"`
	Name                 string   `json:"name"`
	URL                  *string  `json:"url"`
	SourceType           string   `json:"source_type"`
	Polling              *string  `json:"polling"`
	PollingAction        *string  `json:"polling_action"`
	PollingMaxItems      *int     `json:"polling_max_items"`
	ContentFilter        string   `json:"content_filter"`
	Retention            *int     `json:"retention"`
	PulledAt             *string  `json:"pulled_at"`
	NextPollAt           *string  `json:"next_poll_at"`
	CreatedAt            string   `json:"created_at"`
	UpdatedAt            string   `json:"updated_at"`
	ContentCount         int      `json:"content_count"`
	ChunkSize            *int     `json:"chunk_size"`
	ChunkOverlap         *int     `json:"chunk_overlap"`
	ChunkSeparators      *string  `json:"chunk_separators"`
	ChunkRegexSeparators *bool    `json:"chunk_regex_separators"`
	ChunkLanguage        *string  `json:"chunk_language"`
	Dimensions           *int     `json:"dimensions"`
	EmbeddingModel       *string  `json:"embedding_model"`
	IndexMode            *string  `json:"index_mode"`
	MediaTypes           []string `json:"media_types"`
	SystemManaged        bool     `json:"system_managed"`
	Readonly             bool     `json:"readonly"`
}

// CreateSourceRequest creates a source. For rss and website sources URLID
// is the feed or site URL itself (or the id of a URL record).
type CreateSourceRequest struct {
	Name            string   `json:"name"`
	SourceType      string   `json:"source_type"`
	URLID           *string  `json:"url_id,omitempty"`
	IndexMode       *string  `json:"index_mode,omitempty"`
	ChunkSize       *int     `json:"chunk_size,omitempty"`
	ChunkOverlap    *int     `json:"chunk_overlap,omitempty"`
	ChunkSeparators *string  `json:"chunk_separators,omitempty"`
	ChunkRegex      *bool    `json:"chunk_regex_separators,omitempty"`
	ChunkLanguage   *string  `json:"chunk_language,omitempty"`
	ContentFilter   *string  `json:"content_filter,omitempty"`
	Dimensions      *int     `json:"dimensions,omitempty"`
	EmbeddingModel  *string  `json:"embedding_model,omitempty"`
	MediaTypes      []string `json:"media_types,omitempty"`
	Polling         *string  `json:"polling,omitempty"`
	PollingAction   *string  `json:"polling_action,omitempty"`
	PollingMaxItems *int     `json:"polling_max_items,omitempty"`
	Retention       *int     `json:"retention,omitempty"`
}

// UpdateSourceRequest changes the fields set.
type UpdateSourceRequest struct {
	Name          *string   `json:"name,omitempty"`
	Polling       *string   `json:"polling,omitempty"`
	RetentionDays *int      `json:"retention_days,omitempty"`
	MediaTypes    *[]string `json:"media_types,omitempty"`
}

// SourceListOptions page and sort GET /sources.
type SourceListOptions struct {
	Page, Limit int    // limit 1–100
	Sort        string // created_at (default), updated_at, name
	Order       string // desc (default) or asc
}

func (o SourceListOptions) query() ListQuery {
	p := url.Values{}
	if o.Sort != "" {
		p.Set("sort", o.Sort)
	}
	if o.Order != "" {
		p.Set("order", o.Order)
	}
	return ListQuery{Params: p, Paging: PageNumbers, Page: o.Page, Limit: min(o.Limit, 100)}
}

// CreateSource creates a source (POST /sources).
func (c *Client) CreateSource(ctx context.Context, req CreateSourceRequest, opts ...CallOption) (*Source, error) {
	var out Source
	return &out, c.Do(ctx, http.MethodPost, "/sources", req, &out, opts...)
}

// ListSources returns one page of the account's sources.
func (c *Client) ListSources(ctx context.Context, o SourceListOptions, opts ...CallOption) (*Page[Source], error) {
	return ListPage[Source](ctx, c, "/sources", o.query(), opts...)
}

// Sources iterates over all of the account's sources.
func (c *Client) Sources(ctx context.Context, o SourceListOptions, opts ...CallOption) iter.Seq2[Source, error] {
	if o.Limit == 0 {
		o.Limit = 100
	}
	return ListAll[Source](ctx, c, "/sources", o.query(), opts...)
}

// GetSource returns a source.
func (c *Client) GetSource(ctx context.Context, id string, opts ...CallOption) (*Source, error) {
	var out Source
	return &out, c.Do(ctx, http.MethodGet, pathf("/sources/%s", id), nil, &out, opts...)
}

// UpdateSource changes a source.
func (c *Client) UpdateSource(ctx context.Context, id string, req UpdateSourceRequest, opts ...CallOption) (*Source, error) {
	var out Source
	return &out, c.Do(ctx, http.MethodPut, pathf("/sources/%s", id), req, &out, opts...)
}

// DeleteSource deletes a source with its contents.
func (c *Client) DeleteSource(ctx context.Context, id string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/sources/%s", id), nil, nil, opts...)
}

// InlineText is text sent without a file (at most 8192 bytes).
type InlineText struct {
	Text        string         `json:"text"`
	ContentType string         `json:"content_type,omitempty"` // text/plain when empty
	Title       *string        `json:"title,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// ContentUpload answers an upload or a replacement.
type ContentUpload struct {
	ContentVersionID                 *string `json:"content_version_id"`
	SourceConnectionContentVersionID *string `json:"source_connection_content_version_id"`
	Filename                         string  `json:"filename"`
	Status                           string  `json:"status"` // uploaded or duplicate
	EmbedderWarning                  *string `json:"embedder_warning,omitempty"`
}

// AddSourceText adds inline text to a content store source.
func (c *Client) AddSourceText(ctx context.Context, sourceID string, t InlineText, opts ...CallOption) (*ContentUpload, error) {
	var out ContentUpload
	return &out, c.Do(ctx, http.MethodPost, pathf("/sources/%s", sourceID), t, &out, opts...)
}

// UploadSourceFile streams a file into a content store source (u.Metadata
// is sent as the metadata field, u.Fields["title"] as its title).
func (c *Client) UploadSourceFile(ctx context.Context, sourceID string, u Upload, opts ...CallOption) (*ContentUpload, error) {
	var out ContentUpload
	return &out, c.Upload(ctx, pathf("/sources/%s/upload", sourceID), u, &out, opts...)
}

// Content is a content item with a range of its text.
type Content struct {
	ID                     string              `json:"id"`
	SourceConnectionID     string              `json:"source_connection_id"`
	SourceName             string              `json:"source_name"`
	SourceType             string              `json:"source_type"`
	Title                  *string             `json:"title"`
	ContentURL             string              `json:"content_url"`
	ContentType            string              `json:"content_type"`
	ContentStatus          string              `json:"content_status"`
	ContentWordCount       *int                `json:"content_word_count"`
	PulledAt               string              `json:"pulled_at"`
	PublishedAt            *string             `json:"published_at"`
	TextContent            *string             `json:"text_content"`
	TextContentStart       int                 `json:"text_content_start"`
	TextContentEnd         int                 `json:"text_content_end"`
	TextContentTotalLength int                 `json:"text_content_total_length"`
	Metadata               []map[string]string `json:"metadata"`
	Error                  *string             `json:"error"`
}

// GetContent returns a content item and its text between characters start
// and end (the server's defaults, 0 and 5000, when both are zero).
func (c *Client) GetContent(ctx context.Context, id string, start, end int, opts ...CallOption) (*Content, error) {
	p := pathf("/contents/%s", id)
	if start != 0 || end != 0 {
		p += "?start=" + strconv.Itoa(start) + "&end=" + strconv.Itoa(end)
	}
	var out Content
	return &out, c.Do(ctx, http.MethodGet, p, nil, &out, opts...)
}

// DeleteContent deletes a content item and its passages.
func (c *Client) DeleteContent(ctx context.Context, id string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/contents/%s", id), nil, nil, opts...)
}

// ReplaceContentText makes inline text a content's new version.
func (c *Client) ReplaceContentText(ctx context.Context, id string, t InlineText, opts ...CallOption) (*ContentUpload, error) {
	var out ContentUpload
	return &out, c.Do(ctx, http.MethodPut, pathf("/contents/%s", id), t, &out, opts...)
}

// ReplaceContentFile makes an uploaded file a content's new version.
func (c *Client) ReplaceContentFile(ctx context.Context, id string, u Upload, opts ...CallOption) (*ContentUpload, error) {
	var out ContentUpload
	return &out, c.Upload(ctx, pathf("/contents/%s/upload", id), u, &out, opts...)
}

// ContentEmbedding is one indexed passage with its vector.
type ContentEmbedding struct {
	ID            string    `json:"id"`
	TextStart     int       `json:"text_start"`
	TextEnd       int       `json:"text_end"`
	Text          string    `json:"text"`
	Vector        []float64 `json:"vector"`
	BatchSize     int       `json:"batch_size"`
	BatchDuration float64   `json:"batch_duration"`
}

// ListContentEmbeddings returns one page of a content's passages.
func (c *Client) ListContentEmbeddings(ctx context.Context, id string, page, limit int, opts ...CallOption) (*Page[ContentEmbedding], error) {
	return ListPage[ContentEmbedding](ctx, c, pathf("/contents/%s/embeddings", id), ListQuery{Paging: PageNumbers, Page: page, Limit: min(limit, 100)}, opts...)
}

// KnowledgeBase groups sources for retrieval.
type KnowledgeBase struct {
	ID                    string   `json:"id"`
	Name                  string   `json:"name"`
	Description           *string  `json:"description"`
	DefaultTopN           *int     `json:"default_top_n"`
	DefaultTopK           *int     `json:"default_top_k"`
	DefaultScoreThreshold *float64 `json:"default_score_threshold"`
	RerankerModel         *string  `json:"reranker_model"`
	Readonly              bool     `json:"readonly"`
	Sources               []struct {
		ID         string  `json:"id"`
		Name       string  `json:"name"`
		Polling    *string `json:"polling"`
		SourceType string  `json:"source_type"`
		URL        string  `json:"url"`
	} `json:"sources"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// KnowledgeBaseRequest creates (Name and SourceIDs required) or updates
// (nil fields unchanged) a knowledge base.
type KnowledgeBaseRequest struct {
	Name                  *string   `json:"name,omitempty"`
	Description           *string   `json:"description,omitempty"`
	SourceIDs             *[]string `json:"source_ids,omitempty"`
	DefaultTopN           *int      `json:"default_top_n,omitempty"`
	DefaultTopK           *int      `json:"default_top_k,omitempty"`
	DefaultScoreThreshold *float64  `json:"default_score_threshold,omitempty"`
	RerankerModel         *string   `json:"reranker_model,omitempty"`
}

// CreateKnowledgeBase creates a knowledge base.
func (c *Client) CreateKnowledgeBase(ctx context.Context, req KnowledgeBaseRequest, opts ...CallOption) (*KnowledgeBase, error) {
	var out KnowledgeBase
	return &out, c.Do(ctx, http.MethodPost, "/knowledge_bases", req, &out, opts...)
}

// ListKnowledgeBases returns one page of the account's knowledge bases.
func (c *Client) ListKnowledgeBases(ctx context.Context, o SourceListOptions, opts ...CallOption) (*Page[KnowledgeBase], error) {
	q := o.query()
	q.Key = "knowledge_bases"
	return ListPage[KnowledgeBase](ctx, c, "/knowledge_bases", q, opts...)
}

// GetKnowledgeBase returns a knowledge base.
func (c *Client) GetKnowledgeBase(ctx context.Context, id string, opts ...CallOption) (*KnowledgeBase, error) {
	var out KnowledgeBase
	return &out, c.Do(ctx, http.MethodGet, pathf("/knowledge_bases/%s", id), nil, &out, opts...)
}

// UpdateKnowledgeBase changes a knowledge base.
func (c *Client) UpdateKnowledgeBase(ctx context.Context, id string, req KnowledgeBaseRequest, opts ...CallOption) (*KnowledgeBase, error) {
	var out KnowledgeBase
	return &out, c.Do(ctx, http.MethodPut, pathf("/knowledge_bases/%s", id), req, &out, opts...)
}

// DeleteKnowledgeBase deletes a knowledge base no agent uses.
func (c *Client) DeleteKnowledgeBase(ctx context.Context, id string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/knowledge_bases/%s", id), nil, nil, opts...)
}

// KnowledgeSearchRequest is a knowledge-base search (an extension).
type KnowledgeSearchRequest struct {
	Query          string         `json:"query"`
	TopN           *int           `json:"top_n,omitempty"`
	TopK           *int           `json:"top_k,omitempty"`
	ScoreThreshold *float64       `json:"score_threshold,omitempty"`
	MetadataFilter map[string]any `json:"metadata_filter,omitempty"`
	SourceIDs      []string       `json:"source_ids,omitempty"`
	// Mode, VectorWeight, CandidateDepth and Feedback override the
	// knowledge base's search settings for this search.
	Mode           string   `json:"mode,omitempty"`
	VectorWeight   *float64 `json:"vector_weight,omitempty"`
	CandidateDepth *int     `json:"candidate_depth,omitempty"`
	Feedback       *bool    `json:"feedback,omitempty"`
	// Explain asks how each result was ranked.
	Explain bool `json:"explain,omitempty"`
}

// KnowledgeSearchExplain says how a result was ranked; a side that did
// not run or did not score the passage is nil. Ranks count from 1.
type KnowledgeSearchExplain struct {
	FullTextScore    *float64 `json:"fulltext_score"`
	FullTextRank     *int     `json:"fulltext_rank"`
	VectorSimilarity *float64 `json:"vector_similarity"`
	VectorRank       *int     `json:"vector_rank"`
	FusedScore       float64  `json:"fused_score"`
	FusedRank        int      `json:"fused_rank"`
	RerankScore      *float64 `json:"rerank_score"`
}

// KnowledgeSearchRun says how a search ran (with Explain).
type KnowledgeSearchRun struct {
	Settings      SearchSettingsValues `json:"settings"`
	QueryTerms    []string             `json:"query_terms"`
	FeedbackTerms []string             `json:"feedback_terms"`
}

// KnowledgeSearchResult is one ranked passage.
type KnowledgeSearchResult struct {
	ChunkID                          string         `json:"chunk_id"`
	Text                             string         `json:"text"`
	Score                            float64        `json:"score"`
	SourceConnectionContentVersionID string         `json:"source_connection_content_version_id"`
	ContentVersionID                 string         `json:"content_version_id"`
	SourceConnectionID               string         `json:"source_connection_id"`
	Title                            string         `json:"title"`
	Metadata                         map[string]any `json:"metadata"`
	ContentURL                       string         `json:"content_url"`
	ChunkIndex                       int            `json:"chunk_index"`
	TextStart                        int            `json:"text_start"`
	TextEnd                          int            `json:"text_end"`
	// Explain is set when the request asked for it.
	Explain *KnowledgeSearchExplain `json:"explain,omitempty"`
}

// KnowledgeSearchResponse answers a search.
type KnowledgeSearchResponse struct {
	Query   string                  `json:"query"`
	Results []KnowledgeSearchResult `json:"results"`
	Explain *KnowledgeSearchRun     `json:"explain,omitempty"`
}

// SearchKnowledgeBase runs a search over a knowledge base with its search settings
// (POST /knowledge_bases/{id}/search, an Agentry extension).
func (c *Client) SearchKnowledgeBase(ctx context.Context, id string, req KnowledgeSearchRequest, opts ...CallOption) (*KnowledgeSearchResponse, error) {
	var out KnowledgeSearchResponse
	return &out, c.Do(ctx, http.MethodPost, pathf("/knowledge_bases/%s/search", id), req, &out, opts...)
}
