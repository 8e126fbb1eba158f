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
// NewAgent.Also). Imports create them with the agent, here in its
// transaction; exports read them back through the agents area's
// repository (internal/agents/repo_extras.go). Each row keeps the keys of an imported item this version
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

// CriterionColumns are the columns ScanCriterion reads, in its order. The
// scan is here, with the row's type, so that the two areas reading
// criteria (evals, and agents for an export) read them alike.
const CriterionColumns = `id, account_id, agent_id, COALESCE(step_id, ''), description, evaluation_mode, enabled,
	expectation_config, max_retries, retry_on_failure, evaluation_prompt, pass_threshold, evaluation_tier, extra,
	created_at, updated_at`

// ScanCriterion scans a row of CriterionColumns.
func ScanCriterion(row Scanner) (EvaluationCriterion, error) {
	var (
		c                  EvaluationCriterion
		desc, prompt, tier sql.NullString
		expectation, extra sql.NullString
	)
	if err := row.Scan(&c.ID, &c.AccountID, &c.AgentID, &c.StepID, &desc, &c.EvaluationMode, &c.Enabled, &expectation,
		&c.MaxRetries, &c.RetryOnFailure, &prompt, &c.PassThreshold, &tier, &extra, &c.CreatedAt, &c.UpdatedAt); err != nil {
		return c, err
	}
	c.Description, c.EvaluationPrompt, c.EvaluationTier = StringOrNil(desc), StringOrNil(prompt), StringOrNil(tier)
	c.ExpectationConfig, c.Extra = RawOrNil(expectation), RawOrNil(extra)
	c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	return c, nil
}

// MaxCriteriaPerAgent bounds an agent's evaluation criteria: each one of
// a judged step is judged on every run of it, so the count bounds what a
// run's judging costs the server. Here, not in the evals area, because an
// agent's import creates its criteria too.
const MaxCriteriaPerAgent = 100

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
