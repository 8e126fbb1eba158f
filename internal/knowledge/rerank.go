package knowledge

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/agentry/agentry/internal/knowledge/rerank"
	"github.com/agentry/agentry/internal/llm"
)

// OfflineReranker is the name of the built-in reranker.
const OfflineReranker = "offline"

// rerankerFor returns the reranker a knowledge base names: the built-in
// offline one, or an HTTP reranker the operator configured by name.
func (s *Service) rerankerFor(model string) (rerank.Reranker, bool) {
	if model == OfflineReranker || model == "agentry_offline_rerank" {
		return rerank.Offline(), true
	}
	r, ok := s.cfg.Rerankers[model]
	return r, ok
}

// RerankerModels lists the reranker names a knowledge base may set.
func (s *Service) RerankerModels() []string {
	out := []string{OfflineReranker}
	for k := range s.cfg.Rerankers {
		out = append(out, k)
	}
	slices.Sort(out[1:])
	return out
}

// rerank reorders hits by the reranker's relevance scores, which become
// their scores.
func (s *Service) rerank(ctx context.Context, model, query string, hits []SearchHit, _ llm.CallMeta) ([]SearchHit, error) {
	r, ok := s.rerankerFor(model)
	if !ok {
		return nil, fmt.Errorf("reranker %q is not configured on this server", model)
	}
	docs := make([]string, len(hits))
	for i, h := range hits {
		docs[i] = h.Text
	}
	scores, err := r.Rerank(ctx, query, docs)
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	if len(scores) != len(hits) {
		return nil, fmt.Errorf("the reranker answered %d scores for %d passages", len(scores), len(hits))
	}
	for i := range hits {
		hits[i].Score = scores[i]
		hits[i].Explain.RerankScore = ptr(scores[i])
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits, nil
}
