package knowledge

import "github.com/agentry/agentry/internal/llm/offline"

// Index modes and what each sets (docs/knowledge.md lists the same table).
const (
	ModeFastAndCheap    = "fast_and_cheap"
	ModeBalanced        = "balanced"
	ModeSlowAndThorough = "slow_and_thorough"
	ModeCustom          = "custom"
)

// Preset is what an index mode sets.
type Preset struct {
	Dimensions, ChunkSize, ChunkOverlap int
}

// Presets maps each index mode to its embedding dimensions and chunking.
var Presets = map[string]Preset{
	ModeFastAndCheap:    {Dimensions: 256, ChunkSize: 3000, ChunkOverlap: 500},
	ModeBalanced:        {Dimensions: 384, ChunkSize: 1500, ChunkOverlap: 300},
	ModeSlowAndThorough: {Dimensions: 1024, ChunkSize: 1000, ChunkOverlap: 200},
	// custom starts from balanced; the caller overrides any of it.
	ModeCustom: {Dimensions: 384, ChunkSize: 1500, ChunkOverlap: 300},
}

// OfflineEmbeddingModel is the catalog id of the built-in embedder, the
// default of every source.
const OfflineEmbeddingModel = "agentry_offline_embed"

// Source types.
const (
	TypeCustomIndex = "custom_index"
	TypeFileUploads = "file_uploads" // legacy alias of custom_index (fast_and_cheap)
	TypeRSS         = "rss"
	TypeWebsite     = "website"
)

func (s *Service) offlineEmbedder(dims int) *offline.Embedder {
	s.embedMu.Lock()
	defer s.embedMu.Unlock()
	e, ok := s.embedders[dims]
	if !ok {
		e = offline.NewEmbedder(dims)
		s.embedders[dims] = e
	}
	return e
}
