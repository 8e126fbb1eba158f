package knowledgerow

import (
	"context"

	"github.com/agentry/agentry/internal/store"
)

// Each question is asked of a knowledge base or of a source alike; the
// statements are literals, one per table, so what a function may touch
// is read here.

// Named is a live resource's id and name.
type Named struct{ ID, Name string }

// LiveBase reports whether id is a live (not deleted) knowledge base of
// the account.
func LiveBase(ctx context.Context, q store.Querier, accountID, id string) (bool, error) {
	return counts(ctx, q, `SELECT COUNT(*) FROM knowledge_bases WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`, accountID, id)
}

// LiveSource reports whether id is a live (not deleted) source of the
// account.
func LiveSource(ctx context.Context, q store.Querier, accountID, id string) (bool, error) {
	return counts(ctx, q, `SELECT COUNT(*) FROM sources WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL`, accountID, id)
}

func counts(ctx context.Context, q store.Querier, query string, args ...any) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, query, args...).Scan(&n)
	return n > 0, err
}

// LiveBaseNamed returns the oldest live knowledge base of the account
// whose name is lowerName in lower case; store.ErrNotFound when there is
// none.
func LiveBaseNamed(ctx context.Context, q store.Querier, accountID, lowerName string) (string, error) {
	return store.One(ctx, q, store.ScanString,
		`SELECT id FROM knowledge_bases WHERE account_id = $1 AND deleted_at IS NULL AND LOWER(name) = $2 ORDER BY id LIMIT 1`, accountID, lowerName)
}

// LiveSourceNamed returns the oldest live source of the account whose
// name is lowerName in lower case; store.ErrNotFound when there is none.
func LiveSourceNamed(ctx context.Context, q store.Querier, accountID, lowerName string) (string, error) {
	return store.One(ctx, q, store.ScanString,
		`SELECT id FROM sources WHERE account_id = $1 AND deleted_at IS NULL AND LOWER(name) = $2 ORDER BY id LIMIT 1`, accountID, lowerName)
}

// LiveBasesAmong returns which of ids are live knowledge bases (of any
// account: the caller's ids are its own account's already).
func LiveBasesAmong(ctx context.Context, q store.Querier, ids []string) (map[string]bool, error) {
	return among(ctx, q, `SELECT id FROM knowledge_bases WHERE deleted_at IS NULL AND id IN (`, ids)
}

// LiveSourcesAmong returns which of ids are live sources (of any account:
// the caller's ids are its own account's already).
func LiveSourcesAmong(ctx context.Context, q store.Querier, ids []string) (map[string]bool, error) {
	return among(ctx, q, `SELECT id FROM sources WHERE deleted_at IS NULL AND id IN (`, ids)
}

// among runs prefix + an IN list + ")" over ids, a chunk at a time, and
// answers the ids it returned.
func among(ctx context.Context, q store.Querier, prefix string, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	err := store.InChunks(ids, func(part []any) error {
		found, err := store.All(ctx, q, store.ScanString, prefix+store.Placeholders(1, len(part))+`)`, part...)
		for _, id := range found {
			out[id] = true
		}
		return err
	})
	return out, err
}

// LiveBasesByName returns those of ids that are live knowledge bases of
// the account, by name (then id), in one statement.
func LiveBasesByName(ctx context.Context, q store.Querier, accountID string, ids []string) ([]Named, error) {
	return byName(ctx, q, `SELECT id, name FROM knowledge_bases WHERE account_id = $1 AND deleted_at IS NULL AND id IN (`, accountID, ids)
}

// LiveSourcesByName returns those of ids that are live sources of the
// account, by name (then id), in one statement.
func LiveSourcesByName(ctx context.Context, q store.Querier, accountID string, ids []string) ([]Named, error) {
	return byName(ctx, q, `SELECT id, name FROM sources WHERE account_id = $1 AND deleted_at IS NULL AND id IN (`, accountID, ids)
}

func byName(ctx context.Context, q store.Querier, prefix, accountID string, ids []string) ([]Named, error) {
	if len(ids) == 0 {
		return []Named{}, nil
	}
	args := make([]any, 0, len(ids)+1)
	args = append(args, accountID)
	for _, id := range ids {
		args = append(args, id)
	}
	return store.All(ctx, q, func(row store.Scanner) (Named, error) {
		var n Named
		return n, row.Scan(&n.ID, &n.Name)
	}, prefix+store.Placeholders(2, len(ids))+`) ORDER BY name, id`, args...)
}

// How the account search (internal/search) finds each table: by name and
// description, live rows only.
var (
	BaseSearch    = store.SearchTable{Table: "knowledge_bases", NameExpr: "name", DescExpr: "description", Where: "deleted_at IS NULL"}
	SourceSearch  = store.SearchTable{Table: "sources", NameExpr: "name", DescExpr: "COALESCE(url, source_type)", Where: "deleted_at IS NULL"}
	ContentSearch = store.SearchTable{Table: "contents", NameExpr: "COALESCE(title, filename)", DescExpr: "description"}
)
