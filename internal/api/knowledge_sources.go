package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/danielgtaylor/huma/v2"
)

// Knowledge sources (knowledge_sources.go), contents
// (knowledge_contents.go) and knowledge bases (knowledge_bases.go); the
// knowledge service holds the rules.

// SourceResponse is a source as the contract shapes it.
type SourceResponse struct {
	ID                   string   `json:"id"`
	AccountID            string   `json:"account_id" format:"uuid"`
	Name                 string   `json:"name"`
	URL                  *string  `json:"url" nullable:"true"`
	SourceType           string   `json:"source_type"`
	Polling              *string  `json:"polling" nullable:"true"`
	PollingAction        *string  `json:"polling_action" nullable:"true"`
	PollingMaxItems      *int     `json:"polling_max_items" nullable:"true"`
	ContentFilter        string   `json:"content_filter"`
	Retention            *int     `json:"retention" nullable:"true"`
	PulledAt             *string  `json:"pulled_at" nullable:"true"`
	NextPollAt           *string  `json:"next_poll_at" nullable:"true"`
	CreatedAt            string   `json:"created_at"`
	UpdatedAt            string   `json:"updated_at"`
	ContentCount         int      `json:"content_count"`
	ChunkLanguage        *string  `json:"chunk_language" nullable:"true"`
	ChunkOverlap         *int     `json:"chunk_overlap" nullable:"true"`
	ChunkRegexSeparators *bool    `json:"chunk_regex_separators" nullable:"true"`
	ChunkSeparators      *string  `json:"chunk_separators" nullable:"true"`
	ChunkSize            *int     `json:"chunk_size" nullable:"true"`
	Dimensions           *int     `json:"dimensions" nullable:"true"`
	EmbeddingModel       *string  `json:"embedding_model" nullable:"true"`
	EmbeddingModelType   *string  `json:"embedding_model_type" nullable:"true"`
	IndexMode            *string  `json:"index_mode" nullable:"true"`
	MediaTypes           []string `json:"media_types"`
	SystemManaged        bool     `json:"system_managed"`
	Readonly             bool     `json:"readonly"`
	HasHistoricalData    bool     `json:"has_historical_data"`
	AvgEpisodesPerMonth  *float64 `json:"avg_episodes_per_month" nullable:"true"`
	AvgWordsPerEpisode   *int     `json:"avg_words_per_episode" nullable:"true"`
	FreeRetentionDays    *int     `json:"free_retention_days" nullable:"true"`
}

func timePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := modelsTimestamp(*t)
	return &s
}

func sourceResponse(s knowledge.Source) SourceResponse {
	r := SourceResponse{ID: s.ID, AccountID: s.AccountID, Name: s.Name, URL: s.URL, SourceType: s.SourceType,
		Polling: s.Polling, PollingAction: s.PollingAction, PollingMaxItems: s.PollingMaxItems, ContentFilter: s.ContentFilter,
		Retention: s.Retention, PulledAt: timePtr(s.PulledAt), NextPollAt: timePtr(s.NextPollAt),
		CreatedAt: modelsTimestamp(s.CreatedAt), UpdatedAt: modelsTimestamp(s.UpdatedAt), ContentCount: s.ContentCount,
		ChunkLanguage: s.ChunkLanguage, ChunkOverlap: &s.ChunkOverlap, ChunkRegexSeparators: &s.ChunkRegexSeparators,
		ChunkSize: &s.ChunkSize, Dimensions: &s.Dimensions, EmbeddingModel: &s.EmbeddingModel, IndexMode: s.IndexMode,
		MediaTypes: s.MediaTypes, SystemManaged: s.SystemManaged, Readonly: s.Readonly,
		HasHistoricalData: s.ContentCount > 0}
	if s.ChunkSeparators != nil {
		b, _ := json.Marshal(s.ChunkSeparators)
		str := string(b)
		r.ChunkSeparators = &str
	}
	kind := "text"
	r.EmbeddingModelType = &kind
	if r.MediaTypes == nil {
		r.MediaTypes = []string{}
	}
	return r
}

// CreateSourceBody is the body of POST /sources.
type CreateSourceBody struct {
	Name            string   `json:"name" minLength:"1" maxLength:"255" doc:"Source name."`
	SourceType      string   `json:"source_type" doc:"rss, website or custom_index (file_uploads is accepted as custom_index)."`
	URLID           *string  `json:"url_id,omitempty" nullable:"true" maxLength:"2048" doc:"URL record id, or the feed or site URL itself (a record is made for it). Required for rss and website."`
	URL             *string  `json:"url,omitempty" nullable:"true" maxLength:"2048" doc:"Extension: the feed or site URL, as an alternative to url_id."`
	IndexMode       *string  `json:"index_mode,omitempty" nullable:"true" enum:"fast_and_cheap,balanced,slow_and_thorough,custom" doc:"Index mode preset (see docs/knowledge.md)."`
	ChunkSize       *int     `json:"chunk_size,omitempty" nullable:"true" minimum:"1" maximum:"100000"`
	ChunkOverlap    *int     `json:"chunk_overlap,omitempty" nullable:"true" minimum:"0" maximum:"99999"`
	ChunkSeparators *string  `json:"chunk_separators,omitempty" nullable:"true" maxLength:"8000" doc:"Extension: a JSON list of separators (or one separator), most meaningful first."`
	ChunkRegex      *bool    `json:"chunk_regex_separators,omitempty" nullable:"true" doc:"Extension: the separators are RE2 regular expressions."`
	ChunkLanguage   *string  `json:"chunk_language,omitempty" nullable:"true" maxLength:"32" doc:"Extension: boundaries for a kind of text (markdown, html, python, go, …)."`
	ContentFilter   *string  `json:"content_filter,omitempty" nullable:"true" maxLength:"255"`
	Dimensions      *int     `json:"dimensions,omitempty" nullable:"true" minimum:"1" maximum:"4096"`
	EmbeddingModel  *string  `json:"embedding_model,omitempty" nullable:"true" maxLength:"200"`
	MediaTypes      []string `json:"media_types,omitempty" nullable:"true" maxItems:"2"`
	Polling         *string  `json:"polling,omitempty" nullable:"true" maxLength:"32" doc:"hourly, daily, weekly, never, or a duration (15m, 6h)."`
	PollingAction   *string  `json:"polling_action,omitempty" nullable:"true" maxLength:"32" doc:"index (new items) or update (new and changed items)."`
	PollingMaxItems *int     `json:"polling_max_items,omitempty" nullable:"true" minimum:"1" maximum:"1000"`
	Retention       *int     `json:"retention,omitempty" nullable:"true" minimum:"1" maximum:"36500" doc:"Days content is kept."`
}

type createSourceInput struct{ Body CreateSourceBody }
type sourceOutput struct{ Body SourceResponse }

func (s *Server) createSource(ctx context.Context, in *createSourceInput) (*sourceOutput, error) {
	b := in.Body
	src, err := s.deps.Knowledge.CreateSource(ctx, principal(ctx).AccountID, knowledge.CreateSource{Name: b.Name, SourceType: b.SourceType,
		URLID: b.URLID, URL: b.URL, IndexMode: b.IndexMode, ChunkSize: b.ChunkSize, ChunkOverlap: b.ChunkOverlap,
		ChunkSeparators: b.ChunkSeparators, ChunkRegexSeparators: b.ChunkRegex, ChunkLanguage: b.ChunkLanguage,
		EmbeddingModel: b.EmbeddingModel, Dimensions: b.Dimensions, ContentFilter: b.ContentFilter, MediaTypes: b.MediaTypes,
		Polling: b.Polling, PollingAction: b.PollingAction, PollingMaxItems: b.PollingMaxItems, Retention: b.Retention})
	if err != nil {
		return nil, fault.Name(err, "Source")
	}
	return &sourceOutput{Body: sourceResponse(src)}, nil
}

type listSourcesInput struct {
	Page      int    `query:"page" default:"1" minimum:"1" maximum:"1000000" doc:"Page number"`
	Limit     int    `query:"limit" default:"20" minimum:"1" maximum:"100" doc:"Items per page"`
	Sort      string `query:"sort" default:"created_at" enum:"created_at,updated_at,name" doc:"Sort field"`
	Order     string `query:"order" default:"desc" enum:"asc,desc" doc:"Sort order"`
	AccountID string `query:"account_id" maxLength:"64" doc:"List sources for the given account. Defaults to the caller's account."`
}

// SourceListResponse is GET /sources: {data, pagination} at every version.
type SourceListResponse struct {
	Data       []SourceResponse `json:"data"`
	Pagination Pagination       `json:"pagination"`
}

type sourceListOutput struct{ Body SourceListResponse }

func (s *Server) listSources(ctx context.Context, in *listSourcesInput) (*sourceListOutput, error) {
	p := principal(ctx)
	if in.AccountID != "" && in.AccountID != p.AccountID {
		return nil, Fail(http.StatusForbidden, "account_id must be the caller's account")
	}
	list, total, err := s.deps.Knowledge.Sources(ctx, p.AccountID, in.Sort, in.Order != "asc", in.Page, in.Limit)
	if err != nil {
		return nil, err
	}
	out := SourceListResponse{Data: make([]SourceResponse, 0, len(list)), Pagination: PageOf(in.Page, in.Limit, total)}
	for _, src := range list {
		out.Data = append(out.Data, sourceResponse(src))
	}
	return &sourceListOutput{Body: out}, nil
}

type sourceIDInput struct {
	SourceID string `path:"source_connection_id" format:"uuid" doc:"The source's id."`
}

func (s *Server) getSource(ctx context.Context, in *sourceIDInput) (*sourceOutput, error) {
	src, err := s.deps.Knowledge.Source(ctx, principal(ctx).AccountID, in.SourceID)
	if err != nil {
		return nil, fault.Name(err, "Source")
	}
	return &sourceOutput{Body: sourceResponse(src)}, nil
}

// UpdateSourceBody is the body of PUT /sources/{id}; omitted fields stay.
type UpdateSourceBody struct {
	Name          *string         `json:"name,omitempty" nullable:"true" minLength:"1" maxLength:"255"`
	Polling       *string         `json:"polling,omitempty" nullable:"true" maxLength:"32"`
	RetentionDays json.RawMessage `json:"retention_days,omitempty" doc:"Days content is kept; null for unlimited."`
	MediaTypes    *[]string       `json:"media_types,omitempty" nullable:"true" maxItems:"2"`
}

type updateSourceInput struct {
	SourceID string `path:"source_connection_id" format:"uuid" doc:"The source's id."`
	Body     UpdateSourceBody
}

func (s *Server) updateSource(ctx context.Context, in *updateSourceInput) (*sourceOutput, error) {
	b := in.Body
	up := knowledge.UpdateSource{Name: b.Name, Polling: b.Polling, PollingSet: b.Polling != nil, MediaTypes: b.MediaTypes}
	if len(b.RetentionDays) > 0 {
		up.RetentionSet = true
		raw := strings.TrimSpace(string(b.RetentionDays))
		if raw != "null" {
			n, err := strconv.Atoi(raw)
			if err != nil {
				return nil, Invalid([]any{"body", "retention_days"}, "retention_days is a whole number of days or null", "int_parsing")
			}
			if n != -1 { // -1, the contract's default, means unchanged
				up.Retention = &n
			} else {
				up.RetentionSet = false
			}
		}
	}
	src, err := s.deps.Knowledge.UpdateSource(ctx, principal(ctx).AccountID, in.SourceID, up)
	if err != nil {
		return nil, fault.Name(err, "Source")
	}
	return &sourceOutput{Body: sourceResponse(src)}, nil
}

func (s *Server) deleteSource(ctx context.Context, in *sourceIDInput) (*struct{}, error) {
	if err := s.deps.Knowledge.DeleteSource(ctx, principal(ctx).AccountID, in.SourceID); err != nil {
		return nil, fault.Name(err, "Source")
	}
	return nil, nil
}

// InlineTextUploadRequest is inline text for a source or a content.
type InlineTextUploadRequest struct {
	Text        string         `json:"text" doc:"Text content to upload (at most 8192 bytes)."`
	ContentType *string        `json:"content_type,omitempty" nullable:"true" default:"text/plain" maxLength:"100"`
	Title       *string        `json:"title,omitempty" nullable:"true" maxLength:"1000"`
	Metadata    map[string]any `json:"metadata,omitempty" nullable:"true"`
}

// FileUploadResponse answers an upload to a source.
type FileUploadResponse struct {
	ContentVersionID                 *string `json:"content_version_id" nullable:"true"`
	SourceConnectionContentVersionID *string `json:"source_connection_content_version_id" nullable:"true"`
	Filename                         string  `json:"filename"`
	Status                           string  `json:"status"`
	EmbedderWarning                  *string `json:"embedder_warning,omitempty" nullable:"true"`
}

type inlineTextInput struct {
	SourceID string `path:"source_connection_id" format:"uuid" doc:"The source's id."`
	Body     InlineTextUploadRequest
}

type fileUploadOutput struct{ Body FileUploadResponse }

func uploadResult(r knowledge.UploadResult) FileUploadResponse {
	return FileUploadResponse{ContentVersionID: &r.VersionID, SourceConnectionContentVersionID: &r.ContentID,
		Filename: r.Filename, Status: r.Status, EmbedderWarning: r.EmbedderWarning}
}

func ctOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (s *Server) uploadSourceText(ctx context.Context, in *inlineTextInput) (*fileUploadOutput, error) {
	b := in.Body
	res, err := s.deps.Knowledge.UploadText(ctx, principal(ctx).AccountID, in.SourceID, b.Text, ctOf(b.ContentType), b.Title, b.Metadata)
	if err != nil {
		return nil, fault.Name(err, "Source")
	}
	return &fileUploadOutput{Body: uploadResult(res)}, nil
}

// Multipart uploads: the file part is streamed to the blob store (huma
// reads no body here); the fields around it (metadata, title,
// metadata_<key>) are read before or after it.

type multipartInput struct {
	body          io.Reader
	contentType   string
	contentLength int64
}

func (in *multipartInput) capture(ctx huma.Context) {
	in.body, in.contentType, in.contentLength = ctx.BodyReader(), ctx.Header("Content-Type"), -1
	if n, err := strconv.ParseInt(ctx.Header("Content-Length"), 10, 64); err == nil {
		in.contentLength = n
	}
}

type sourceUploadInput struct {
	SourceID string `path:"source_connection_id" format:"uuid" doc:"The source's id."`
	multipartInput
}

func (in *sourceUploadInput) Resolve(ctx huma.Context) []error { in.capture(ctx); return nil }

// multipartBoundary checks that an upload is sent as multipart/form-data
// and returns its boundary: another media type is a 415, as a non-JSON
// body of a JSON operation is; a multipart type without a boundary a 422.
func multipartBoundary(contentType string) (string, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	switch {
	case err == nil && mt == "multipart/form-data" && params["boundary"] != "":
		return params["boundary"], nil
	case err == nil && mt == "multipart/form-data":
		return "", Invalid([]any{"header", "Content-Type"}, "multipart/form-data needs a boundary parameter", "value_error")
	}
	return "", Fail(http.StatusUnsupportedMediaType, "Unsupported media type: send the file as multipart/form-data, in a part named file")
}

// uploadForm walks a multipart upload, calling store with the file part
// and a Rest that reads the fields after it.
func uploadForm(in *multipartInput, limit int64, store func(up knowledge.Upload) (knowledge.UploadResult, error)) (knowledge.UploadResult, error) {
	if in.contentLength > limit+multipartSlack {
		return knowledge.UploadResult{}, fault.UploadTooLarge(limit, nil)
	}
	boundary, err := multipartBoundary(in.contentType)
	if err != nil {
		return knowledge.UploadResult{}, err
	}
	mr := multipart.NewReader(in.body, boundary)
	fields := map[string]string{}
	readField := func(part *multipart.Part) error {
		b, err := io.ReadAll(io.LimitReader(part, maxFormField+1))
		if err != nil {
			return Invalid([]any{"body", part.FormName()}, "The field could not be read: "+err.Error(), "value_error")
		}
		if len(b) > maxFormField {
			return Invalid([]any{"body", part.FormName()}, "Form fields other than file are limited to 64 KiB", "value_error")
		}
		if len(fields) >= 200 {
			return Invalid([]any{"body"}, "Too many form fields", "value_error")
		}
		fields[part.FormName()] = string(b)
		return nil
	}
	formMeta := func() (*string, map[string]any, error) {
		var meta map[string]any
		if raw, ok := fields["metadata"]; ok && strings.TrimSpace(raw) != "" && strings.TrimSpace(raw) != "null" {
			if err := json.Unmarshal([]byte(raw), &meta); err != nil || meta == nil {
				return nil, nil, Invalid([]any{"body", "metadata"}, "metadata must be a JSON object, sent as a string", "value_error")
			}
		}
		for k, v := range fields {
			if key, ok := strings.CutPrefix(k, "metadata_"); ok && key != "" {
				if meta == nil {
					meta = map[string]any{}
				}
				meta[key] = v
			}
		}
		var title *string
		if t, ok := fields["title"]; ok && t != "" {
			title = &t
		}
		return title, meta, nil
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return knowledge.UploadResult{}, Invalid([]any{"body", "file"}, "Field required", "missing")
		}
		if err != nil {
			return knowledge.UploadResult{}, Invalid([]any{"body"}, "The multipart body could not be read: "+err.Error(), "value_error")
		}
		if part.FormName() != "file" {
			if err := readField(part); err != nil {
				return knowledge.UploadResult{}, err
			}
			continue
		}
		body := &readErr{r: part}
		res, err := store(knowledge.Upload{Filename: part.FileName(), DeclaredType: part.Header.Get("Content-Type"), Body: body,
			Rest: func() (*string, map[string]any, error) {
				for {
					p, err := mr.NextPart()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						return nil, nil, Invalid([]any{"body"}, "The multipart body could not be read: "+err.Error(), "value_error")
					}
					if p.FormName() == "file" {
						return nil, nil, Invalid([]any{"body", "file"}, "Send one file per request", "value_error")
					}
					if err := readField(p); err != nil {
						return nil, nil, err
					}
				}
				return formMeta()
			}})
		if err != nil && body.err != nil {
			return res, Invalid([]any{"body", "file"}, "The file part could not be read: "+body.err.Error(), "value_error")
		}
		return res, err
	}
}

func (s *Server) uploadSourceFile(ctx context.Context, in *sourceUploadInput) (*fileUploadOutput, error) {
	acct := principal(ctx).AccountID
	// Refuse a missing source before reading the body.
	if _, err := s.deps.Knowledge.Source(ctx, acct, in.SourceID); err != nil {
		return nil, fault.Name(err, "Source")
	}
	limit := s.deps.Knowledge.MaxUploadBytes()
	res, err := uploadForm(&in.multipartInput, limit, func(up knowledge.Upload) (knowledge.UploadResult, error) {
		return s.deps.Knowledge.UploadFile(ctx, acct, in.SourceID, up)
	})
	if err != nil {
		return nil, fault.Name(err, "Source")
	}
	return &fileUploadOutput{Body: uploadResult(res)}, nil
}

// multipartDoc documents a multipart upload body, which huma cannot infer
// from an input without a Body.
func (s *Server) multipartDoc(path, method string) {
	item := s.api.OpenAPI().Paths[path]
	if item == nil {
		return
	}
	op := item.Post
	if method == http.MethodPut {
		op = item.Put
	}
	if op == nil {
		return
	}
	op.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
		"multipart/form-data": {Schema: &huma.Schema{Type: huma.TypeObject, Required: []string{"file"},
			Properties: map[string]*huma.Schema{
				"file":     {Type: huma.TypeString, Format: "binary", Description: "The file, at most 200 MiB."},
				"metadata": {Type: huma.TypeString, Description: "Optional JSON object of metadata, as a string."},
				"title":    {Type: huma.TypeString, Description: "Optional title, merged into metadata.title."},
			}}},
	}}
}
