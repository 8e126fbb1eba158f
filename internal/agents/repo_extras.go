package agents

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// The extras an agent's export reads back and its import looks up keep
// their SQL here (issue 31's vertical slices): its evaluation criteria and
// the solutions it belongs to. The import writes them with the agent, in
// its transaction (the store's CreateAgent, until that moves too).

// Solution is a solution of the account as an agent's import links it and
// its export names it: the solutions area's row (internal/solutions keeps
// its SQL), read here only in the agents area's queries.
type Solution struct {
	ID          string
	AccountID   string
	Name        string
	Description string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// extrasRepo is the SQL of an agent's extras.
type extrasRepo struct{ db *store.DB }

func (s *Service) extras() extrasRepo { return extrasRepo{s.db} }

// criteria lists the evaluation criteria of an agent, oldest first.
func (q extrasRepo) criteria(ctx context.Context, accountID, agentID string) ([]store.EvaluationCriterion, error) {
	return store.All(ctx, q.db.R, store.ScanCriterion, `SELECT `+store.CriterionColumns+`
		FROM evaluation_criteria WHERE account_id = $1 AND agent_id = $2 ORDER BY id`, accountID, agentID)
}

// solutionsNamed finds the account's solutions with exactly these names;
// the result maps a name to the oldest solution of that name.
func (q extrasRepo) solutionsNamed(ctx context.Context, accountID string, names []string) (map[string]Solution, error) {
	out := map[string]Solution{}
	if len(names) == 0 {
		return out, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	all, err := q.solutions(ctx, `WHERE account_id = $1 ORDER BY id`, accountID)
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

// agentSolutions lists the solutions an agent belongs to, by name.
func (q extrasRepo) agentSolutions(ctx context.Context, accountID, agentID string) ([]Solution, error) {
	return q.solutions(ctx, `WHERE account_id = $1 AND id IN (SELECT solution_id FROM solution_agents WHERE agent_id = $2)
		ORDER BY name, id`, accountID, agentID)
}

func (q extrasRepo) solutions(ctx context.Context, where string, args ...any) ([]Solution, error) {
	return store.All(ctx, q.db.R, func(row store.Scanner) (s Solution, err error) {
		if err := row.Scan(&s.ID, &s.AccountID, &s.Name, &s.Description, &s.CreatedAt, &s.UpdatedAt); err != nil {
			return s, err
		}
		s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
		return s, nil
	}, `SELECT id, account_id, name, description, created_at, updated_at FROM solutions `+where, args...)
}
