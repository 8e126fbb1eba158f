package search

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/evals/evalrow"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/knowledge/knowledgerow"
	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/runs/runrow"
	"github.com/agentry/agentry/internal/solutions/solutionrow"
	"github.com/agentry/agentry/internal/store"
)

// Result is one resource found.
type Result struct {
	EntityType  string
	ID, Name    string
	Description *string
	rank        int
}

// Searchers are the searchable resource types: one entry per type, in the
// order results of equal rank are listed. A type is searched by name and
// description (ranked name-prefix > name-substring > description), or only
// by exact id; a UUID query matches ids exactly in every type. Adding a
// type (MCP clients, when they exist) is one entry here. Every area
// describes its own table (governance.PolicySearch,
// knowledgerow.BaseSearch…), so only it names the table.
var Searchers = []Searcher{
	{Type: "agent", Table: agentrow.Search},
	{Type: "knowledge_base", Table: knowledgerow.BaseSearch},
	{Type: "source_connection", Table: knowledgerow.SourceSearch},
	{Type: "content", Table: knowledgerow.ContentSearch},
	{Type: "solution", Table: solutionrow.Search},
	{Type: "memory_bank", Table: memory.BankSearch},
	{Type: "evaluation_criteria", Table: evalrow.CriteriaSearch},
	{Type: "alert", Table: alerts.Search},
	{Type: "governance_policy", Table: governance.PolicySearch},
	{Type: "api_key", Table: auth.KeySearch},
	{Type: "run", Table: runrow.Search},
}

// Searcher searches one resource type.
type Searcher struct {
	Type  string
	Table store.SearchTable
}

var reUUID = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// Account searches the account. entityType "" searches every type; an
// unknown type finds nothing.
func Account(ctx context.Context, db *store.DB, accountID, q, entityType string, limit int) ([]Result, error) {
	q = strings.TrimSpace(q)
	tables := make([]store.SearchTable, 0, len(Searchers))
	types := make([]string, 0, len(Searchers))
	for _, s := range Searchers {
		if entityType == "" || entityType == s.Type {
			tables = append(tables, s.Table)
			types = append(types, s.Type)
		}
	}
	if len(tables) == 0 {
		return nil, nil
	}
	hits, err := searchTables(ctx, db, tables, accountID, q, reUUID.MatchString(q), limit)
	if err != nil {
		return nil, err
	}
	all := make([]Result, 0, len(hits))
	for _, h := range hits {
		all = append(all, Result{EntityType: types[h.Table], ID: h.ID, Name: h.Name, Description: h.Description, rank: h.Rank*100 + h.Table})
	}
	slices.SortStableFunc(all, func(a, b Result) int {
		if a.rank/100 != b.rank/100 {
			return a.rank/100 - b.rank/100
		}
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return a.rank%100 - b.rank%100
	})
	if len(all) > limit {
		all = all[:limit]
	}
	return all, nil
}
