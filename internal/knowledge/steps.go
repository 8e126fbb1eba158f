package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/knowledge/metafilter"
	"github.com/agentry/agentry/internal/store"
)

// RegisterSteps registers the knowledge area's step types (retrieval and
// the content steps) and the retrieval tool prompt_call steps may offer.
func RegisterSteps(e *engine.Engine, s *Service) {
	r := e.Registry
	r.Register(definition.StepRetrieval, engine.HandlerFunc(s.stepRetrieval))
	r.Register(definition.StepLoadContent, engine.HandlerFunc(s.stepLoadContent))
	r.Register(definition.StepWriteMetadata, engine.HandlerFunc(s.stepWriteMetadata))
	r.Register(definition.StepWriteContentAttachment, engine.HandlerFunc(s.stepWriteAttachment))
	r.Register(definition.StepLoadContentAttachment, engine.HandlerFunc(s.stepLoadAttachment))
	e.Tools.Register(engine.Tool{
		Name:        "retrieval",
		Description: "Search a knowledge base and return the most relevant passages with their titles.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What to search for."}},"required":["query"]}`),
		Run: func(ctx context.Context, x *engine.Exec, cfg map[string]any, args json.RawMessage) (string, error) {
			var a struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal(args, &a); err != nil || strings.TrimSpace(a.Query) == "" {
				return "", errors.New("the retrieval tool takes {\"query\": \"…\"}")
			}
			kb, _ := cfg["knowledge_base_id"].(string)
			if kb == "" {
				return "", errors.New("the retrieval tool needs a knowledge_base_id")
			}
			topK := 5
			if n, ok := cfg["top_k"].(float64); ok && n >= 1 && n <= 100 {
				topK = int(n)
			}
			hits, err := s.Search(ctx, x.Run.AccountID, kb, SearchRequest{Query: a.Query, TopK: topK, TopN: max(topK, DefaultTopN), Meta: x.Meta("retrieval_tool")})
			if err != nil {
				return "", err
			}
			return formatPassages(hits, false), nil
		},
	})
}

// stepRetrieval searches a knowledge base; its output lists the passages
// with their citations, for a following prompt_call to answer from.
func (s *Service) stepRetrieval(ctx context.Context, x *engine.Exec) (engine.Result, error) {
	kbID, _ := x.Step.String("knowledge_base_id")
	if kbID == "" {
		return engine.Result{}, errors.New("retrieval needs knowledge_base_id")
	}
	kbID, err := x.Render(kbID)
	if err != nil {
		return engine.Result{}, err
	}
	query, err := x.Field("query", "{{input}}")
	if err != nil {
		return engine.Result{}, err
	}
	req := SearchRequest{Query: query, Meta: x.Meta("retrieval")}
	req.TopK, _ = x.Step.Int("top_k")
	if req.TopK <= 0 {
		req.TopK = 5
	}
	req.TopN, _ = x.Step.Int("top_n")
	if req.TopN <= 0 {
		req.TopN = max(req.TopK, DefaultTopN)
	}
	for _, name := range []string{"min_score", "score_threshold"} {
		if v, ok := x.Step.Number(name); ok {
			req.Threshold = &v
		}
	}
	if ids, ok := x.Step.Config["source_connection_ids"].([]any); ok {
		for _, id := range ids {
			if s, ok := id.(string); ok {
				req.SourceIDs = append(req.SourceIDs, s)
			}
		}
	}
	if f, ok := x.Step.Config["metadata_filter"].(map[string]any); ok && len(f) > 0 {
		if req.Filter, err = metafilter.Parse(f); err != nil {
			return engine.Result{}, err
		}
	}
	res, err := s.SearchExplained(ctx, x.Run.AccountID, kbID, req)
	hits := res.Hits
	if errors.Is(err, store.ErrNotFound) {
		return engine.Result{}, fmt.Errorf("knowledge base %s not found", kbID)
	}
	if err != nil {
		return engine.Result{}, err
	}
	withMeta, _ := x.Step.Bool("include_metadata")
	// The event is the step's trace: the passages with how each was ranked
	// (explain), the settings the search ran with and the query's terms.
	_ = x.Emit(ctx, engine.Event{Type: "retrieval", Data: map[string]any{"knowledge_base_id": kbID, "results": len(hits),
		"citations": citations(hits), "settings": res.Settings, "query_terms": orEmpty(res.QueryTerms),
		"feedback_terms": orEmpty(res.FeedbackTerms)}})
	return engine.Result{Output: formatPassages(hits, withMeta)}, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func citations(hits []SearchHit) []map[string]any {
	out := make([]map[string]any, len(hits))
	for i, h := range hits {
		out[i] = map[string]any{"index": i + 1, "title": h.Title, "source_connection_id": h.SourceID,
			"source_connection_content_version_id": h.ContentID, "chunk_id": h.ChunkID, "score": h.Score, "explain": h.Explain}
	}
	return out
}

// formatPassages writes hits as numbered passages with their citations.
func formatPassages(hits []SearchHit, withMeta bool) string {
	if len(hits) == 0 {
		return "No passages found."
	}
	var b strings.Builder
	for i, h := range hits {
		if i > 0 {
			b.WriteString("\n\n")
		}
		title := h.Title
		if title == "" {
			title = "Untitled"
		}
		fmt.Fprintf(&b, "[%d] %s (content %s, source %s, score %.3f)\n%s", i+1, title, h.ContentID, h.SourceID, h.Score, h.Text)
		if withMeta && len(h.Metadata) > 0 {
			m, _ := json.Marshal(h.Metadata)
			fmt.Fprintf(&b, "\nmetadata: %s", m)
		}
	}
	return b.String()
}

// triggeringContent is the content a new_content run was fired for.
func triggeringContent(x *engine.Exec) string {
	if x.Run.Metadata != nil {
		if id, ok := x.Run.Metadata["source_connection_content_version_id"].(string); ok {
			return id
		}
	}
	return ""
}

func (s *Service) stepLoadContent(ctx context.Context, x *engine.Exec) (engine.Result, error) {
	id, err := x.Field("content_version_id", "")
	if err != nil {
		return engine.Result{}, err
	}
	if id == "" {
		id = triggeringContent(x)
	}
	if id == "" {
		return engine.Result{}, errors.New("load_content has no content: name content_version_id, or run it from a new_content trigger")
	}
	c, text, err := s.ContentText(ctx, x.Run.AccountID, strings.TrimSpace(id))
	if errors.Is(err, store.ErrNotFound) {
		return engine.Result{}, fmt.Errorf("content %s not found", id)
	}
	if err != nil {
		return engine.Result{}, err
	}
	if c.TextKey == nil {
		return engine.Result{}, fmt.Errorf("content %s has no text yet (status %s)", id, c.Status)
	}
	// A long document is cut to what one step may output.
	limit := x.Engine().Limits().MaxStepOutputBytes
	if int64(len(text)) > limit {
		text = strings.ToValidUTF8(text[:limit], "")
	}
	return engine.Result{Output: text}, nil
}

func (s *Service) contentStep(x *engine.Exec) (string, error) {
	id := triggeringContent(x)
	if id == "" {
		return "", fmt.Errorf("%s works on content-triggered (new_content) runs only", x.Step.Type)
	}
	return id, nil
}

// MaxMetadataValue bounds a value write_metadata stores.
const MaxMetadataValue = 64 << 10

func (s *Service) stepWriteMetadata(ctx context.Context, x *engine.Exec) (engine.Result, error) {
	id, err := s.contentStep(x)
	if err != nil {
		return engine.Result{}, err
	}
	key, _ := x.Step.String("metadata_key")
	if key == "" || len(key) > 128 {
		return engine.Result{}, errors.New("metadata_key is 1 to 128 characters")
	}
	val, err := x.Field("content", "")
	if err != nil {
		return engine.Result{}, err
	}
	if len(val) > MaxMetadataValue {
		return engine.Result{}, fmt.Errorf("a metadata value is at most %d bytes", MaxMetadataValue)
	}
	if err := s.SetMetadata(ctx, x.Run.AccountID, id, key, val); err != nil {
		return engine.Result{}, err
	}
	return engine.Result{Output: x.Input}, nil
}

// MaxAttachmentBytes bounds an attachment body.
const MaxAttachmentBytes = 1 << 20

func (s *Service) stepWriteAttachment(ctx context.Context, x *engine.Exec) (engine.Result, error) {
	id, err := s.contentStep(x)
	if err != nil {
		return engine.Result{}, err
	}
	key, _ := x.Step.String("attachment_key")
	if key == "" || len(key) > 128 {
		return engine.Result{}, errors.New("attachment_key is 1 to 128 characters")
	}
	body, err := x.Field("content", "")
	if err != nil {
		return engine.Result{}, err
	}
	if len(body) > MaxAttachmentBytes {
		return engine.Result{}, fmt.Errorf("an attachment is at most %d bytes", MaxAttachmentBytes)
	}
	ct, _ := x.Step.String("content_type")
	if ct == "" {
		ct = "text/plain"
	}
	indexed, _ := x.Step.Bool("indexed")
	if err := s.repo().PutContentAttachment(ctx, x.Run.AccountID, ContentAttachment{ContentID: id, Key: key, ContentType: ct, Body: body, Indexed: indexed}); err != nil {
		return engine.Result{}, err
	}
	return engine.Result{Output: body, ContentType: ct}, nil
}

func (s *Service) stepLoadAttachment(ctx context.Context, x *engine.Exec) (engine.Result, error) {
	id, err := s.contentStep(x)
	if err != nil {
		return engine.Result{}, err
	}
	key, _ := x.Step.String("attachment_key")
	a, err := s.repo().ContentAttachment(ctx, x.Run.AccountID, id, key)
	if errors.Is(err, store.ErrNotFound) {
		return engine.Result{}, fmt.Errorf("content %s has no attachment %q", id, key)
	}
	if err != nil {
		return engine.Result{}, err
	}
	return engine.Result{Output: a.Body, ContentType: a.ContentType}, nil
}
