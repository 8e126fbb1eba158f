package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/agentry/agentry/internal/store"
)

// Search modes.
const (
	SearchHybrid   = "hybrid"    // full text and vectors, fused by weight
	SearchFullText = "full_text" // full text only (BM25F)
	SearchVector   = "vector"    // vectors only (cosine similarity)
)

// Bounds of the search settings.
const (
	MinCandidateDepth = 10
	MaxCandidateDepth = 1000
)

// SearchSettings are the search settings a knowledge base sets
// explicitly; nil (or "") takes the default.
type SearchSettings struct {
	Mode           string   `json:"mode,omitempty"`
	VectorWeight   *float64 `json:"vector_weight,omitempty"`
	CandidateDepth int      `json:"candidate_depth,omitempty"`
	Feedback       *bool    `json:"feedback,omitempty"`
}

// EffectiveSettings are the settings a search runs with.
type EffectiveSettings struct {
	Mode           string  `json:"mode"`
	VectorWeight   float64 `json:"vector_weight"`
	CandidateDepth int     `json:"candidate_depth"`
	Feedback       bool    `json:"feedback"`
	RerankerModel  string  `json:"reranker_model,omitempty"`
}

// Defaults, by the embedders of the searched sources
// (docs/retrieval-quality.md has the measurements). With the offline
// embedder only, full text alone: its vectors (hashed words and word
// pieces) rank well below BM25 on public collections; fused with a weight
// of 0.1 they score the same on CISI and 2% better on the project's set,
// at eight times the cost of a search at 100,000 passages (the graph
// search). The weight and depth apply when hybrid mode is chosen. With an
// embedding model configured, hybrid, the vectors get half the weight and
// each side 100 candidates; bench/retrieval measures whether a model
// earns more or less on one's own documents. Feedback (RM3) is off: it
// helps some collections and costs others.
const (
	DefaultOfflineVectorWeight   = 0.1
	DefaultOfflineCandidateDepth = 30
	DefaultModelVectorWeight     = 0.5
	DefaultModelCandidateDepth   = 100
)

// Default bases: what the defaults were chosen for.
const (
	BasisOffline = "offline_embedder"
	BasisModel   = "embedding_model"
)

// DefaultSettings are the defaults for sources all on the offline
// embedder (offlineOnly) or not.
func DefaultSettings(offlineOnly bool) EffectiveSettings {
	d := EffectiveSettings{Mode: SearchHybrid, VectorWeight: DefaultModelVectorWeight, CandidateDepth: DefaultModelCandidateDepth}
	if offlineOnly {
		d.Mode, d.VectorWeight, d.CandidateDepth = SearchFullText, DefaultOfflineVectorWeight, DefaultOfflineCandidateDepth
	}
	return d
}

// apply sets the explicit settings of ss over e.
func (ss SearchSettings) apply(e EffectiveSettings) EffectiveSettings {
	if ss.Mode != "" {
		e.Mode = ss.Mode
	}
	if ss.VectorWeight != nil {
		e.VectorWeight = *ss.VectorWeight
	}
	if ss.CandidateDepth > 0 {
		e.CandidateDepth = ss.CandidateDepth
	}
	if ss.Feedback != nil {
		e.Feedback = *ss.Feedback
	}
	return e
}

// validate checks explicit settings; field names are the API's.
func (ss SearchSettings) validate() error {
	switch ss.Mode {
	case "", SearchHybrid, SearchFullText, SearchVector:
	default:
		return invalid("mode", fmt.Sprintf("mode is %s, %s or %s", SearchHybrid, SearchFullText, SearchVector))
	}
	if w := ss.VectorWeight; w != nil && (math.IsNaN(*w) || *w < 0 || *w > 1) {
		return invalid("vector_weight", "vector_weight is between 0 and 1")
	}
	if d := ss.CandidateDepth; d != 0 && (d < MinCandidateDepth || d > MaxCandidateDepth) {
		return invalid("candidate_depth", fmt.Sprintf("candidate_depth is between %d and %d", MinCandidateDepth, MaxCandidateDepth))
	}
	return nil
}

func parseSettings(raw string) SearchSettings {
	var ss SearchSettings
	if raw != "" {
		_ = json.Unmarshal([]byte(raw), &ss) // written by us; a damaged value takes the defaults
	}
	if ss.validate() != nil {
		return SearchSettings{}
	}
	return ss
}

// SearchSettingsView is a knowledge base's search settings: those in
// force, those set explicitly, and the defaults the rest take.
type SearchSettingsView struct {
	Effective EffectiveSettings
	Explicit  SearchSettings
	Defaults  EffectiveSettings
	Basis     string
}

// offlineOnly reports whether every live source of ids uses the offline
// embedder.
func (s *Service) offlineOnly(ctx context.Context, accountID string, ids []string) (bool, error) {
	for _, id := range ids {
		src, err := s.repo().Source(ctx, accountID, id)
		if err != nil {
			if err == store.ErrNotFound {
				continue
			}
			return false, err
		}
		if !isOffline(src) {
			return false, nil
		}
	}
	return true, nil
}

func isOffline(src Source) bool {
	return src.EmbeddingModel == "" || src.EmbeddingModel == OfflineEmbeddingModel || strings.EqualFold(src.EmbeddingModel, "offline")
}

func (s *Service) settingsView(ctx context.Context, kb KnowledgeBase) (SearchSettingsView, error) {
	off, err := s.offlineOnly(ctx, kb.AccountID, kb.SourceIDs)
	if err != nil {
		return SearchSettingsView{}, err
	}
	v := SearchSettingsView{Explicit: parseSettings(kb.SearchSettings), Defaults: DefaultSettings(off), Basis: BasisModel}
	if off {
		v.Basis = BasisOffline
	}
	v.Effective = v.Explicit.apply(v.Defaults)
	if kb.RerankerModel != nil {
		v.Effective.RerankerModel = *kb.RerankerModel
	}
	return v, nil
}

// SearchSettings returns a knowledge base's search settings.
func (s *Service) SearchSettings(ctx context.Context, accountID, kbID string) (SearchSettingsView, error) {
	kb, err := s.repo().KnowledgeBase(ctx, accountID, kbID)
	if err != nil {
		return SearchSettingsView{}, err
	}
	return s.settingsView(ctx, kb)
}

// SearchSettingsInput changes search settings: a nil field stays, Reset
// names fields that go back to their defaults, RerankerModel "" removes
// the reranker.
type SearchSettingsInput struct {
	Mode           *string
	VectorWeight   *float64
	CandidateDepth *int
	Feedback       *bool
	RerankerModel  *string
	Reset          []string
}

// Fields Reset may name.
var resettable = []string{"mode", "vector_weight", "candidate_depth", "feedback", "reranker_model"}

// UpdateSearchSettings changes a knowledge base's search settings.
func (s *Service) UpdateSearchSettings(ctx context.Context, accountID, kbID string, in SearchSettingsInput) (SearchSettingsView, error) {
	kb, err := s.repo().KnowledgeBase(ctx, accountID, kbID)
	if err != nil {
		return SearchSettingsView{}, err
	}
	ss := parseSettings(kb.SearchSettings)
	p := KnowledgeBasePatch{}
	for _, f := range in.Reset {
		switch f {
		case "mode":
			ss.Mode = ""
		case "vector_weight":
			ss.VectorWeight = nil
		case "candidate_depth":
			ss.CandidateDepth = 0
		case "feedback":
			ss.Feedback = nil
		case "reranker_model":
			p.ClearReranker = true
		default:
			return SearchSettingsView{}, invalid("reset", fmt.Sprintf("unknown field %q; reset names %s", f, strings.Join(resettable, ", ")))
		}
	}
	if in.Mode != nil {
		ss.Mode = *in.Mode
		if ss.Mode == "" {
			return SearchSettingsView{}, invalid("mode", fmt.Sprintf("mode is %s, %s or %s", SearchHybrid, SearchFullText, SearchVector))
		}
	}
	if in.VectorWeight != nil {
		ss.VectorWeight = in.VectorWeight
	}
	if in.CandidateDepth != nil {
		ss.CandidateDepth = *in.CandidateDepth
		if ss.CandidateDepth == 0 {
			return SearchSettingsView{}, invalid("candidate_depth", fmt.Sprintf("candidate_depth is between %d and %d", MinCandidateDepth, MaxCandidateDepth))
		}
	}
	if in.Feedback != nil {
		ss.Feedback = in.Feedback
	}
	if err := ss.validate(); err != nil {
		return SearchSettingsView{}, err
	}
	if in.RerankerModel != nil {
		if *in.RerankerModel == "" {
			p.ClearReranker = true
		} else if err := s.checkReranker(in.RerankerModel); err != nil {
			return SearchSettingsView{}, err
		} else {
			p.RerankerModel, p.ClearReranker = in.RerankerModel, false
		}
	}
	raw := ""
	if ss != (SearchSettings{}) {
		b, _ := json.Marshal(ss)
		raw = string(b)
	}
	p.SearchSettings = &raw
	kb, err = s.repo().UpdateKnowledgeBase(ctx, accountID, kbID, p)
	if err != nil {
		return SearchSettingsView{}, err
	}
	return s.settingsView(ctx, kb)
}
