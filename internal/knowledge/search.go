package knowledge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/agentry/agentry/internal/knowledge/metafilter"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/telemetry"
)

// SearchRequest is a knowledge-base search.
type SearchRequest struct {
	Query string
	// TopN is how many passages retrieval keeps (before reranking), TopK
	// how many reranking keeps; 0 takes the knowledge base's defaults.
	TopN, TopK int
	// Threshold drops passages scoring below it (nil: the default).
	Threshold *float64
	Filter    *metafilter.Filter
	// SourceIDs narrows the search to some of the knowledge base's sources.
	SourceIDs []string
	// StrictSources refuses a SourceIDs entry that is not a source of the
	// knowledge base (an API caller's mistake) instead of ignoring it (a
	// saved step's source may have left the knowledge base since).
	StrictSources bool
	// Meta says who pays for model calls (query embedding, reranking).
	Meta llm.CallMeta
}

// SearchHit is one ranked passage.
type SearchHit struct {
	ChunkID, Text                  string
	Score                          float64
	ContentID, VersionID, SourceID string
	Title                          string
	Metadata                       map[string]any
	Ordinal, TextStart, TextEnd    int
	ContentURL                     string
}

// Limits of a search.
const (
	MaxQueryBytes  = 8192
	MaxTopN        = 200
	DefaultTopN    = 10
	rrfK           = 60
	maxTerms       = 32
	maxFilterScope = 20_000 // contents considered for a metadata filter
)

// Search runs a hybrid search over a knowledge base: lexical and vector
// candidates fused by reciprocal rank, then reranked when the knowledge
// base names a reranker. Without a reranker a passage's score is the
// cosine similarity of its embedding to the query's (0 to 1); with one,
// the reranker's relevance score.
func (s *Service) Search(ctx context.Context, accountID, kbID string, req SearchRequest) (hits []SearchHit, err error) {
	ctx, span := telemetry.StartRetrieval(ctx, kbID, req.Query, req.TopK)
	defer func() { span.Hits(len(hits)); span.End(err) }()
	kb, err := s.db.KnowledgeBase(ctx, accountID, kbID)
	if err != nil {
		return nil, err
	}
	return s.search(ctx, accountID, kb, req)
}

// SearchSources runs the same hybrid search over sources of the account
// that no knowledge base groups (a memory bank's source), with no
// reranker and no defaults beyond the request's.
func (s *Service) SearchSources(ctx context.Context, accountID string, sourceIDs []string, req SearchRequest) ([]SearchHit, error) {
	return s.search(ctx, accountID, store.KnowledgeBase{AccountID: accountID, SourceIDs: sourceIDs}, req)
}

func (s *Service) search(ctx context.Context, accountID string, kb store.KnowledgeBase, req SearchRequest) ([]SearchHit, error) {
	q := strings.TrimSpace(req.Query)
	if q == "" {
		return nil, invalid("query", "query is empty")
	}
	if len(q) > MaxQueryBytes {
		return nil, invalid("query", fmt.Sprintf("query is at most %d bytes", MaxQueryBytes))
	}
	sourceIDs := kb.SourceIDs
	if req.StrictSources {
		for i, want := range req.SourceIDs {
			if !slices.Contains(sourceIDs, want) {
				return nil, &InvalidError{Field: "source_ids", Index: i, Indexed: true, Msg: fmt.Sprintf("%s is not a source of this knowledge base", want)}
			}
		}
	}
	if len(req.SourceIDs) > 0 {
		var keep []string
		for _, id := range sourceIDs {
			for _, want := range req.SourceIDs {
				if id == want {
					keep = append(keep, id)
				}
			}
		}
		sourceIDs = keep
	}
	topN := req.TopN
	if topN <= 0 && kb.DefaultTopN != nil {
		topN = *kb.DefaultTopN
	}
	if topN <= 0 {
		topN = DefaultTopN
	}
	topN = min(topN, MaxTopN)
	topK := req.TopK
	if topK <= 0 && kb.DefaultTopK != nil {
		topK = *kb.DefaultTopK
	}
	threshold := req.Threshold
	if threshold == nil {
		threshold = kb.DefaultScoreThreshold
	}
	// Only the account's live sources are searched, whatever the links say.
	srcs := map[string]store.Source{}
	groups := map[string][]string{}
	var mine []string
	for _, id := range sourceIDs {
		src, err := s.db.Source(ctx, accountID, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		srcs[id] = src
		mine = append(mine, id)
		key := fmt.Sprintf("%s\x00%d", src.EmbeddingModel, src.Dimensions)
		groups[key] = append(groups[key], id)
	}
	sourceIDs = mine
	if len(sourceIDs) == 0 {
		return []SearchHit{}, nil
	}
	// A metadata filter narrows the contents first, so both sides rank
	// only what may be answered.
	var allowed []string
	contents := map[string]store.Content{}
	if req.Filter != nil {
		all, err := s.db.ContentsOfSources(ctx, accountID, sourceIDs, maxFilterScope)
		if err != nil {
			return nil, err
		}
		allowed = []string{}
		for _, c := range all {
			if req.Filter.Match(c.Metadata) {
				allowed = append(allowed, c.ID)
				contents[c.ID] = c
			}
		}
		if len(allowed) == 0 {
			return []SearchHit{}, nil
		}
	}
	cand := max(topN*3, 30)
	fused := map[int64]float64{}
	// Lexical side.
	lex, err := s.db.LexicalSearch(ctx, accountID, sourceIDs, allowed, queryTerms(q), cand)
	if err != nil {
		return nil, err
	}
	for rank, h := range lex {
		fused[h.Seq] += 1 / float64(rrfK+rank+1)
	}
	// Vector side: one query embedding per (model, size) among the sources.
	qvecs := map[string][]float32{}    // by source
	vectorSource := map[int64]string{} // the source of each vector hit
	allowedSet := map[string]bool{}
	for _, id := range allowed {
		allowedSet[id] = true
	}
	for _, ids := range groups {
		src := srcs[ids[0]]
		vecs, err := s.embedderFor(src).Embed(ctx, req.Meta, []string{q})
		if err != nil {
			return nil, fmt.Errorf("embed the query: %w", err)
		}
		qv := vecs[0]
		for _, id := range ids {
			qvecs[id] = qv
		}
		k := cand
		if allowed != nil {
			k = cand * 4 // over-fetch: the filter drops some
		}
		hits, err := s.index.Search(ctx, accountID, ids, len(qv), qv, k)
		if err != nil {
			return nil, err
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
		rank := 0
		for _, h := range hits {
			// A passage whose vector is orthogonal to the query's (or
			// opposite) is no evidence of relevance; ranking it would let
			// it tie with the best lexical match.
			if h.Score <= 0 {
				continue
			}
			fused[h.Seq] += 1 / float64(rrfK+rank+1)
			vectorSource[h.Seq] = h.SourceID
			rank++
		}
	}
	type ranked struct {
		seq   int64
		fused float64
	}
	order := make([]ranked, 0, len(fused))
	for seq, f := range fused {
		order = append(order, ranked{seq, f})
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].fused != order[j].fused {
			return order[i].fused > order[j].fused
		}
		return order[i].seq < order[j].seq
	})
	// Fetch the best candidates; chunks deleted meanwhile drop out.
	want := make([]int64, 0, min(len(order), cand))
	for _, r := range order {
		if len(want) == cap(want) {
			break
		}
		want = append(want, r.seq)
	}
	chunks, err := s.db.ChunksBySeq(ctx, accountID, want)
	if err != nil {
		return nil, err
	}
	bySeq := map[int64]store.Chunk{}
	for _, c := range chunks {
		bySeq[c.Seq] = c
	}
	// A vector hit whose chunk is gone was deleted by another process
	// (this one's deletions reach the index directly): the index forgets
	// it, so it takes no place in later searches.
	for _, seq := range want {
		if _, ok := bySeq[seq]; !ok && vectorSource[seq] != "" {
			s.index.Forget(vectorSource[seq], []int64{seq})
		}
	}
	var hits []SearchHit
	for _, seq := range want {
		c, ok := bySeq[seq]
		if !ok {
			continue
		}
		if allowed != nil && !allowedSet[c.ContentID] {
			continue
		}
		ct, ok := contents[c.ContentID]
		if !ok {
			if ct, err = s.db.Content(ctx, accountID, c.ContentID); err != nil {
				continue
			}
			contents[c.ContentID] = ct
		}
		title := ""
		if ct.Title != nil {
			title = *ct.Title
		}
		hits = append(hits, SearchHit{ChunkID: c.ID, Text: c.Text, Score: cosine(qvecs[c.SourceID], c.Vector),
			ContentID: c.ContentID, VersionID: c.VersionID, SourceID: c.SourceID, Title: title, Metadata: ct.Metadata,
			Ordinal: c.Ordinal, TextStart: c.TextStart, TextEnd: c.TextEnd, ContentURL: ct.ContentURL})
		if len(hits) == topN {
			break
		}
	}
	if kb.RerankerModel != nil && *kb.RerankerModel != "" && len(hits) > 0 {
		if hits, err = s.rerank(ctx, *kb.RerankerModel, q, hits, req.Meta); err != nil {
			return nil, err
		}
		if topK > 0 && len(hits) > topK {
			hits = hits[:topK]
		}
	} else if req.TopK > 0 && len(hits) > req.TopK {
		hits = hits[:req.TopK]
	}
	if threshold != nil {
		kept := hits[:0]
		for _, h := range hits {
			if h.Score >= *threshold {
				kept = append(kept, h)
			}
		}
		hits = kept
	}
	if hits == nil {
		hits = []SearchHit{}
	}
	return hits, nil
}

// queryTerms are the distinct words of a query, lower-cased, for the
// lexical side (no operators: a query is never syntax).
func queryTerms(q string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		if len(w) > 64 || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == maxTerms {
			break
		}
	}
	return out
}

func cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return math.Max(0, math.Min(1, dot/math.Sqrt(na*nb)))
}
