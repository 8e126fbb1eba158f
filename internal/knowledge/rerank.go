package knowledge

import (
	"context"
	"errors"

	"github.com/agentry/agentry/internal/llm"
)

// rerank reorders hits by a reranker's relevance scores (until the
// reranker library is merged: refused).
func (s *Service) rerank(ctx context.Context, model, query string, hits []SearchHit, meta llm.CallMeta) ([]SearchHit, error) {
	return nil, errors.New("reranking is not built into this server yet")
}

// RerankerModels lists the reranker names a knowledge base may set.
func RerankerModels() []string { return []string{"offline"} }

// RerankerKnown reports whether a reranker name is served.
func RerankerKnown(m string) bool { return m == "offline" }
