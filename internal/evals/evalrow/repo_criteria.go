package evalrow

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// An evaluation criterion's row is the evaluations area's (internal/evals
// manages criteria); the agents area writes an imported agent's criteria
// in the transaction that creates the agent and reads them back for its
// export. Neither may import the other, so the row, its scan, its insert
// and its bound are here.

// Criterion is an evaluation criterion of an agent step
// (EvaluationCriteriaResponse without the computed result summary).
type Criterion struct {
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
func ScanCriterion(row store.Scanner) (Criterion, error) {
	var (
		c                  Criterion
		desc, prompt, tier sql.NullString
		expectation, extra sql.NullString
	)
	if err := row.Scan(&c.ID, &c.AccountID, &c.AgentID, &c.StepID, &desc, &c.EvaluationMode, &c.Enabled, &expectation,
		&c.MaxRetries, &c.RetryOnFailure, &prompt, &c.PassThreshold, &tier, &extra, &c.CreatedAt, &c.UpdatedAt); err != nil {
		return c, err
	}
	c.Description, c.EvaluationPrompt, c.EvaluationTier = store.StringOrNil(desc), store.StringOrNil(prompt), store.StringOrNil(tier)
	c.ExpectationConfig, c.Extra = store.RawOrNil(expectation), store.RawOrNil(extra)
	c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	return c, nil
}

// MaxCriteriaPerAgent bounds an agent's evaluation criteria: each one of
// a judged step is judged on every run of it, so the count bounds what a
// run's judging costs the server. Here, beside the row, because an
// agent's import creates its criteria too.
const MaxCriteriaPerAgent = 100

// AgentCriteria lists the evaluation criteria of an agent of the account,
// oldest first.
func AgentCriteria(ctx context.Context, q store.Querier, accountID, agentID string) ([]Criterion, error) {
	return store.All(ctx, q, ScanCriterion, `SELECT `+CriterionColumns+`
		FROM evaluation_criteria WHERE account_id = $1 AND agent_id = $2 ORDER BY id`, accountID, agentID)
}

// InsertCriterion writes c (its id, account, agent and fields) created
// and updated at now, in the caller's transaction: the evaluations area's
// create, or an agent's import in the transaction that creates the agent.
// The caller checks the agent and the bound.
func InsertCriterion(ctx context.Context, q store.Querier, c Criterion, now time.Time) error {
	_, err := q.ExecContext(ctx, `INSERT INTO evaluation_criteria (id, account_id, agent_id, step_id, description,
		evaluation_mode, enabled, expectation_config, max_retries, retry_on_failure, evaluation_prompt, pass_threshold,
		evaluation_tier, extra, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)`,
		c.ID, c.AccountID, c.AgentID, store.NullIfEmpty(c.StepID), store.NullIfNil(c.Description), c.EvaluationMode, c.Enabled,
		store.NullJSON(c.ExpectationConfig), c.MaxRetries, c.RetryOnFailure, store.NullIfNil(c.EvaluationPrompt), c.PassThreshold,
		store.NullIfNil(c.EvaluationTier), store.NullJSON(c.Extra), now)
	return err
}

// CriteriaSearch is how the account search (internal/search) finds
// criteria: by description (the mode when none) and prompt.
var CriteriaSearch = store.SearchTable{Table: "evaluation_criteria", NameExpr: "COALESCE(description, evaluation_mode)", DescExpr: "evaluation_prompt"}

// Results is the evaluation results' table as runrow.ResultRuns reads it:
// the results are grouped and paged by their run there, in one statement
// with the runs, so this area hands it the source of its rows.
const Results = "evaluation_results"
