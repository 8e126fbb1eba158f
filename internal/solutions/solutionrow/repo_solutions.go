package solutionrow

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Solution is a solution as stored, without its links (solutions.Record).
type Solution struct {
	ID          string
	AccountID   string
	Name        string
	Description string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Columns are the columns Scan reads, in its order.
const Columns = `id, account_id, name, description, created_at, updated_at`

// Scan scans a row of Columns.
func Scan(row store.Scanner) (Solution, error) {
	var s Solution
	if err := row.Scan(&s.ID, &s.AccountID, &s.Name, &s.Description, &s.CreatedAt, &s.UpdatedAt); err != nil {
		return s, err
	}
	s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
	return s, nil
}

// Named finds the account's solutions with exactly these names; the
// result maps a name to the oldest solution of that name.
func Named(ctx context.Context, q store.Querier, accountID string, names []string) (map[string]Solution, error) {
	out := map[string]Solution{}
	if len(names) == 0 {
		return out, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	all, err := store.All(ctx, q, Scan, `SELECT `+Columns+` FROM solutions WHERE account_id = $1 ORDER BY id`, accountID)
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if _, taken := out[s.Name]; want[s.Name] && !taken {
			out[s.Name] = s
		}
	}
	return out, nil
}

// OfAgent lists the account's solutions an agent belongs to, by name.
func OfAgent(ctx context.Context, q store.Querier, accountID, agentID string) ([]Solution, error) {
	return store.All(ctx, q, Scan, `SELECT `+Columns+` FROM solutions WHERE account_id = $1
		AND id IN (SELECT solution_id FROM solution_agents WHERE agent_id = $2) ORDER BY name, id`, accountID, agentID)
}

// LinkAgent links the account's agent agentID to solution solutionID at
// now, in the caller's transaction (an agent's import, in the one that
// creates the agent). The solution must be the account's own: the insert
// selects it by account, so a foreign or unknown id links nothing, and a
// link already there stays.
func LinkAgent(ctx context.Context, q store.Querier, accountID, solutionID, agentID string, now time.Time) error {
	_, err := q.ExecContext(ctx, `INSERT INTO solution_agents (solution_id, agent_id, account_id, created_at)
		SELECT id, $2, account_id, $3 FROM solutions WHERE id = $1 AND account_id = $4
		ON CONFLICT DO NOTHING`, solutionID, agentID, now, accountID)
	return err
}

// Search is how the account search (internal/search) finds solutions: by
// name and description.
var Search = store.SearchTable{Table: "solutions", NameExpr: "name", DescExpr: "NULLIF(description, '')"}
