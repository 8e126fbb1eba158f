package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// The extras of an agent: evaluation criteria and solution links (its
// alert configurations and governance policies are the alerts and
// governance areas', written in the same transaction through
// NewAgent.Also). Imports create them with the agent, exports
// read them back. Each row keeps the keys of an imported item this version
// does not model in Extra, so nothing of a payload is lost on a round trip.

// EvaluationCriterion is an evaluation criterion of an agent step
// (EvaluationCriteriaResponse without the computed result summary).
type EvaluationCriterion struct {
	ID                string
	AccountID         string
	AgentID           string
	StepID            string
	Description       *string
	EvaluationMode    string
	Enabled           bool
	ExpectationConfig json.RawMessage
	MaxRetries        int
	RetryOnFailure    bool
	EvaluationPrompt  *string
	PassThreshold     float64
	EvaluationTier    *string
	Extra             json.RawMessage
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// MaxCriteriaPerAgent bounds an agent's evaluation criteria: each one of
// a judged step is judged on every run of it, so the count bounds what a
// run's judging costs the server. Here, not in the evals area, because an
// agent's import creates its criteria too.
const MaxCriteriaPerAgent = 100

// Solution groups resources of an account: the solutions area's row
// (internal/solutions keeps its SQL), read here only as an agent's
// import links and its export names it, in the agents area's queries.
type Solution struct {
	ID          string
	AccountID   string
	Name        string
	Description string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

func insertExtras(ctx context.Context, tx *sql.Tx, a Agent, in NewAgent, now time.Time) error {
	for _, c := range in.EvaluationCriteria {
		if _, err := tx.ExecContext(ctx, `INSERT INTO evaluation_criteria (id, account_id, agent_id, step_id, description,
			evaluation_mode, enabled, expectation_config, max_retries, retry_on_failure, evaluation_prompt, pass_threshold,
			evaluation_tier, extra, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)`,
			NewID(), a.AccountID, a.ID, nullable(c.StepID), nullablePtr(c.Description), c.EvaluationMode, c.Enabled,
			nullableJSON(c.ExpectationConfig), c.MaxRetries, c.RetryOnFailure, nullablePtr(c.EvaluationPrompt), c.PassThreshold,
			nullablePtr(c.EvaluationTier), nullableJSON(c.Extra), now); err != nil {
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

// AgentEvaluationCriteria lists the evaluation criteria of an agent, oldest first.
func (db *DB) AgentEvaluationCriteria(ctx context.Context, accountID, agentID string) ([]EvaluationCriterion, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT id, account_id, agent_id, COALESCE(step_id, ''), description, evaluation_mode,
		enabled, expectation_config, max_retries, retry_on_failure, evaluation_prompt, pass_threshold, evaluation_tier, extra,
		created_at, updated_at FROM evaluation_criteria WHERE account_id = $1 AND agent_id = $2 ORDER BY id`, accountID, agentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []EvaluationCriterion
	for rows.Next() {
		var (
			c                  EvaluationCriterion
			desc, prompt, tier sql.NullString
			expectation, extra sql.NullString
		)
		if err := rows.Scan(&c.ID, &c.AccountID, &c.AgentID, &c.StepID, &desc, &c.EvaluationMode, &c.Enabled, &expectation,
			&c.MaxRetries, &c.RetryOnFailure, &prompt, &c.PassThreshold, &tier, &extra, &c.CreatedAt, &c.UpdatedAt); err != nil {
			return nil, err
		}
		c.Description, c.EvaluationPrompt, c.EvaluationTier = nullString(desc), nullString(prompt), nullString(tier)
		c.ExpectationConfig, c.Extra = rawOrNil(expectation), rawOrNil(extra)
		c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
		out = append(out, c)
	}
	return out, rows.Err()
}

// SolutionsNamed finds the account's solutions with exactly these names;
// the result maps a name to the oldest solution of that name.
func (db *DB) SolutionsNamed(ctx context.Context, accountID string, names []string) (map[string]Solution, error) {
	out := map[string]Solution{}
	if len(names) == 0 {
		return out, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	all, err := db.solutions(ctx, `WHERE account_id = $1 ORDER BY id`, accountID)
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

// AgentSolutions lists the solutions an agent belongs to, by name.
func (db *DB) AgentSolutions(ctx context.Context, accountID, agentID string) ([]Solution, error) {
	return db.solutions(ctx, `WHERE account_id = $1 AND id IN (SELECT solution_id FROM solution_agents WHERE agent_id = $2)
		ORDER BY name, id`, accountID, agentID)
}

func (db *DB) solutions(ctx context.Context, where string, args ...any) ([]Solution, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT id, account_id, name, description, created_at, updated_at FROM solutions `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Solution
	for rows.Next() {
		var s Solution
		if err := rows.Scan(&s.ID, &s.AccountID, &s.Name, &s.Description, &s.CreatedAt, &s.UpdatedAt); err != nil {
			return nil, err
		}
		s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
		out = append(out, s)
	}
	return out, rows.Err()
}

// UserInAccount reports whether a user belongs to an account: alert recipients
// and user references of a definition must.
func (db *DB) UserInAccount(ctx context.Context, accountID, userID string) (bool, error) {
	var n int
	err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM memberships WHERE account_id = $1 AND user_id = $2`, accountID, userID).Scan(&n)
	return n > 0, err
}

func rawOrNil(s sql.NullString) json.RawMessage {
	if !s.Valid {
		return nil
	}
	return json.RawMessage(s.String)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
