package store

import (
	"database/sql"
	"encoding/json"
	"time"
)

// An evaluation criterion's row is shared by two areas: the evaluations
// area manages criteria (internal/evals), and the agents area writes an
// imported agent's criteria in the transaction that creates the agent
// and reads them back for its export (internal/agents/repo_extras.go).
// Neither may import the other, so the row, its scan and its bound stay
// here.

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
