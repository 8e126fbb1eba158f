package knowledge

import (
	"context"
	"fmt"

	"github.com/agentry/agentry/internal/llm"
)

// embedder turns passages into vectors for one source's model and size.
type embedder interface {
	Embed(ctx context.Context, meta llm.CallMeta, texts []string) ([][]float32, error)
	Model() string
}

// embedderFor picks a source's embedder: the built-in offline one, in
// process and free, unless the source names another embedding model,
// which is called through the metered provider (charged in credits).
func (s *Service) embedderFor(src Source) embedder {
	if src.EmbeddingModel == "" || src.EmbeddingModel == OfflineEmbeddingModel || s.models == nil {
		return offlineEmbed{s.offlineEmbedder(src.Dimensions)}
	}
	return remoteEmbed{p: s.models, model: src.EmbeddingModel, dims: src.Dimensions}
}

type offlineEmbed struct {
	e interface {
		Embed(string) []float32
	}
}

func (o offlineEmbed) Model() string { return OfflineEmbeddingModel }

func (o offlineEmbed) Embed(_ context.Context, _ llm.CallMeta, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = o.e.Embed(t)
	}
	return out, nil
}

type remoteEmbed struct {
	p     llm.Provider
	model string
	dims  int
}

func (r remoteEmbed) Model() string { return r.model }

func (r remoteEmbed) Embed(ctx context.Context, meta llm.CallMeta, texts []string) ([][]float32, error) {
	res, err := r.p.Embed(ctx, llm.EmbedRequest{Model: r.model, Input: texts, Dimensions: r.dims, Meta: meta})
	if err != nil {
		return nil, err
	}
	if len(res.Vectors) != len(texts) {
		return nil, fmt.Errorf("the embedding model answered %d vectors for %d passages", len(res.Vectors), len(texts))
	}
	return res.Vectors, nil
}
