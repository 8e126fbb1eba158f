package agents

import (
	"context"
	"database/sql"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// The extras an agent's export reads back and its import looks up keep
// their SQL here (issue 31's vertical slices): its evaluation criteria and
// the solutions it belongs to. The import writes them with the agent, in
// its transaction (insertExtras, from CreateAgent). Each criterion keeps
// the keys of an imported item this version does not model in Extra, so
// nothing of a payload is lost on a round trip.

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

// insertExtras writes an import's evaluation criteria and solution links
// in the transaction that creates the agent.
func insertExtras(ctx context.Context, tx *sql.Tx, a Agent, in NewAgent, now time.Time) error {
	for _, c := range in.EvaluationCriteria {
		if _, err := tx.ExecContext(ctx, `INSERT INTO evaluation_criteria (id, account_id, agent_id, step_id, description,
			evaluation_mode, enabled, expectation_config, max_retries, retry_on_failure, evaluation_prompt, pass_threshold,
			evaluation_tier, extra, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)`,
			store.NewID(), a.AccountID, a.ID, store.NullIfEmpty(c.StepID), store.NullIfNil(c.Description), c.EvaluationMode, c.Enabled,
			store.NullJSON(c.ExpectationConfig), c.MaxRetries, c.RetryOnFailure, store.NullIfNil(c.EvaluationPrompt), c.PassThreshold,
			store.NullIfNil(c.EvaluationTier), store.NullJSON(c.Extra), now); err != nil {
			return err
		}
	}
	for _, sid := range in.SolutionIDs {
		// The solution must be the account's own: the insert selects it
		// by account, so a foreign id links nothing.
		if _, err := tx.ExecContext(ctx, `INSERT INTO solution_agents (solution_id, agent_id, account_id, created_at)
			SELECT id, $2, account_id, $3 FROM solutions WHERE id = $1 AND account_id = $4
			ON CONFLICT DO NOTHING`, sid, a.ID, now, a.AccountID); err != nil {
			return err
		}
	}
	return nil
}
