package runs

import (
	"context"
	"sort"
	"strings"
	"unicode"

	"github.com/agentry/agentry/internal/llm/offline"
)

// TraceMatch is AgentTraceMatchResponse.
type TraceMatch struct {
	AgentRunID     *string `json:"agent_run_id"`
	AgentStepRunID *string `json:"agent_step_run_id"`
	AgentID        *string `json:"agent_id"`
	AgentStepID    *string `json:"agent_step_id"`
	AgentStepType  *string `json:"agent_step_type"`
	AgentRunStatus *string `json:"agent_run_status"`
	Title          *string `json:"title"`
	Text           string  `json:"text"`
	Score          float64 `json:"score"`
}

// SearchRequest filters a trace search.
type SearchRequest struct {
	Query, AgentID, RunStatus, StepType string
	TopN                                int
}

// searchWindow bounds how many recent step attempts a search ranks.
const searchWindow = 5000

var traceEmbedder = offline.NewEmbedder(384)

// SearchDescription is what POST /agents/runs/search promises. The
// ranking is lexical: the built-in embedder hashes words and word pieces,
// so a paraphrase that shares no words with a trace is not found.
const SearchDescription = "Search agent traces by the words they share with the query.\n\n" +
	"Ranks the inputs and outputs of the account's most recent 5,000 step attempts: similarity of the " +
	"built-in lexical embedding (shared words and word pieces) blended with the share of the query's words " +
	"found. It matches wording, identifiers and word forms, not meaning: a paraphrase or synonym that shares " +
	"no words with a trace is not found. Results include the matching text, agent and step metadata, and a " +
	"score between 0 and 1."

// Search ranks the account's recent step inputs and outputs against the
// query: cosine similarity of the lexical embedder's vectors (shared words
// and word pieces) blended with exact keyword coverage. It finds wording
// and identifiers; it does not find paraphrases, and says so
// (SearchDescription).
func (s *Service) Search(ctx context.Context, accountID string, req SearchRequest) ([]TraceMatch, error) {
	cands, err := s.Repo.TraceCandidates(ctx, accountID, req.AgentID, req.RunStatus, req.StepType, searchWindow)
	if err != nil {
		return nil, err
	}
	q := traceEmbedder.Embed(req.Query)
	terms := words(req.Query)
	type scored struct {
		i     int
		text  string
		score float64
	}
	var ranked []scored
	for i, c := range cands {
		for _, text := range []string{c.Output, c.Input} {
			if strings.TrimSpace(text) == "" {
				continue
			}
			score := traceScore(q, terms, text)
			if score <= minTraceScore {
				continue
			}
			ranked = append(ranked, scored{i: i, text: text, score: score})
			break // one match per step attempt: its output, else its input
		}
	}
	sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].score > ranked[b].score })
	if len(ranked) > req.TopN {
		ranked = ranked[:req.TopN]
	}
	out := make([]TraceMatch, 0, len(ranked))
	for _, r := range ranked {
		c := cands[r.i]
		title := c.StepType + " " + c.StepID
		score := r.score
		if score > 1 {
			score = 1
		}
		out = append(out, TraceMatch{AgentRunID: &c.RunID, AgentStepRunID: &c.StepRowID, AgentID: &c.AgentID, AgentStepID: &c.StepID,
			AgentStepType: &c.StepType, AgentRunStatus: &c.RunStatus, Title: &title, Text: snippet(r.text, 1000), Score: score})
	}
	return out, nil
}

// minTraceScore is the score a text must exceed to be a match.
const minTraceScore = 0.05

// traceScore blends lexical-embedding similarity with keyword coverage.
func traceScore(q []float32, terms []string, text string) float64 {
	sem := float64(offline.Cosine(q, traceEmbedder.Embed(text)))
	return 0.6*sem + 0.4*coverage(terms, text)
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// coverage is the share of query terms present in text.
func coverage(terms []string, text string) float64 {
	if len(terms) == 0 {
		return 0
	}
	lower := strings.ToLower(text)
	hit := 0
	for _, t := range terms {
		if strings.Contains(lower, t) {
			hit++
		}
	}
	return float64(hit) / float64(len(terms))
}

func snippet(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
