package api

import (
	"context"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/knowledge"
)

// A knowledge base's search settings, an extension
// (knowledge_search_settings.go).
const searchSettingsDoc = `A knowledge base's search settings: how its search (the search extension and the retrieval step) ranks passages.
mode: hybrid (full text and vectors, fused), full_text (BM25F only) or vector (cosine similarity only). vector_weight (0 to 1):
the vector side's share of the fused score in hybrid mode. candidate_depth (10 to 1000): how many candidates each side
contributes before fusion. feedback: RM3 pseudo-relevance feedback, which expands the query with the terms of its first
results (about twice the full-text work). reranker_model: the knowledge base's reranker (offline, or one the operator
configured), as on the knowledge base itself. Settings not set explicitly take defaults that depend on the embedders of the
knowledge base's sources: with the offline embedder only, full text alone (mode full_text; vector_weight 0.1 and
candidate_depth 30 apply when hybrid is chosen); with an embedding model, hybrid with half the weight to the vectors (0.5,
candidate_depth 100). defaults shows them and basis says which applied; bench/retrieval measures a collection of
one's own (docs/retrieval-quality.md).`

// SearchSettingsValues are search settings.
type SearchSettingsValues struct {
	Mode           string  `json:"mode" enum:"hybrid,full_text,vector"`
	VectorWeight   float64 `json:"vector_weight"`
	CandidateDepth int     `json:"candidate_depth"`
	Feedback       bool    `json:"feedback"`
	RerankerModel  *string `json:"reranker_model" nullable:"true"`
}

func settingsValues(e knowledge.EffectiveSettings) SearchSettingsValues {
	v := SearchSettingsValues{Mode: e.Mode, VectorWeight: e.VectorWeight, CandidateDepth: e.CandidateDepth, Feedback: e.Feedback}
	if e.RerankerModel != "" {
		v.RerankerModel = &e.RerankerModel
	}
	return v
}

// SearchSettingsResponse is a knowledge base's search settings.
type SearchSettingsResponse struct {
	KnowledgeBaseID string               `json:"knowledge_base_id"`
	Mode            string               `json:"mode" enum:"hybrid,full_text,vector"`
	VectorWeight    float64              `json:"vector_weight"`
	CandidateDepth  int                  `json:"candidate_depth"`
	Feedback        bool                 `json:"feedback"`
	RerankerModel   *string              `json:"reranker_model" nullable:"true"`
	Explicit        []string             `json:"explicit" doc:"The settings set explicitly; the others take the defaults."`
	Defaults        SearchSettingsValues `json:"defaults" doc:"What the settings not set explicitly take."`
	Basis           string               `json:"basis" enum:"offline_embedder,embedding_model" doc:"What the defaults were chosen for: every source on the offline embedder, or an embedding model."`
}

func searchSettingsResponse(kbID string, v knowledge.SearchSettingsView) SearchSettingsResponse {
	e := settingsValues(v.Effective)
	r := SearchSettingsResponse{KnowledgeBaseID: kbID, Mode: e.Mode, VectorWeight: e.VectorWeight, CandidateDepth: e.CandidateDepth,
		Feedback: e.Feedback, RerankerModel: e.RerankerModel, Explicit: []string{}, Defaults: settingsValues(v.Defaults), Basis: v.Basis}
	x := v.Explicit
	if x.Mode != "" {
		r.Explicit = append(r.Explicit, "mode")
	}
	if x.VectorWeight != nil {
		r.Explicit = append(r.Explicit, "vector_weight")
	}
	if x.CandidateDepth != 0 {
		r.Explicit = append(r.Explicit, "candidate_depth")
	}
	if x.Feedback != nil {
		r.Explicit = append(r.Explicit, "feedback")
	}
	if e.RerankerModel != nil {
		r.Explicit = append(r.Explicit, "reranker_model")
	}
	return r
}

type searchSettingsOutput struct{ Body SearchSettingsResponse }

func (s *Server) getSearchSettings(ctx context.Context, in *kbIDInput) (*searchSettingsOutput, error) {
	v, err := s.deps.Knowledge.SearchSettings(ctx, principal(ctx).AccountID, in.KBID)
	if err != nil {
		return nil, fault.Name(err, "Knowledge base")
	}
	return &searchSettingsOutput{Body: searchSettingsResponse(in.KBID, v)}, nil
}

// UpdateSearchSettingsBody is PUT /knowledge_bases/{id}/search-settings:
// omitted fields stay; reset returns fields to their defaults.
type UpdateSearchSettingsBody struct {
	Mode           *string  `json:"mode,omitempty" nullable:"true" enum:"hybrid,full_text,vector"`
	VectorWeight   *float64 `json:"vector_weight,omitempty" nullable:"true" minimum:"0" maximum:"1"`
	CandidateDepth *int     `json:"candidate_depth,omitempty" nullable:"true" minimum:"10" maximum:"1000"`
	Feedback       *bool    `json:"feedback,omitempty" nullable:"true"`
	RerankerModel  *string  `json:"reranker_model,omitempty" nullable:"true" maxLength:"200" doc:"Empty string removes the reranker."`
	Reset          []string `json:"reset,omitempty" nullable:"true" maxItems:"5" doc:"Fields to return to their defaults: mode, vector_weight, candidate_depth, feedback, reranker_model (removed)."`
}

type updateSearchSettingsInput struct {
	KBID string `path:"knowledge_base_id" format:"uuid" doc:"The knowledge base's id."`
	Body UpdateSearchSettingsBody
}

func (s *Server) updateSearchSettings(ctx context.Context, in *updateSearchSettingsInput) (*searchSettingsOutput, error) {
	b := in.Body
	v, err := s.deps.Knowledge.UpdateSearchSettings(ctx, principal(ctx).AccountID, in.KBID, knowledge.SearchSettingsInput{
		Mode: b.Mode, VectorWeight: b.VectorWeight, CandidateDepth: b.CandidateDepth, Feedback: b.Feedback,
		RerankerModel: b.RerankerModel, Reset: b.Reset})
	if err != nil {
		return nil, fault.Name(err, "Knowledge base")
	}
	return &searchSettingsOutput{Body: searchSettingsResponse(in.KBID, v)}, nil
}
