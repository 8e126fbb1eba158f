package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// Evaluations: criteria per agent step, their results (recorded by the
// server or pushed by a harness), summaries and ephemeral drafts.

// EvaluationCriteria is a criterion of an agent step.
type EvaluationCriteria struct {
	ID                string          `json:"id"`
	AgentID           string          `json:"agent_id"`
	AccountID         string          `json:"account_id"`
	Description       *string         `json:"description"`
	EvaluationMode    string          `json:"evaluation_mode"`
	Enabled           bool            `json:"enabled"`
	StepID            *string         `json:"step_id"`
	ExpectationConfig json.RawMessage `json:"expectation_config"`
	MaxRetries        int             `json:"max_retries"`
	RetryOnFailure    bool            `json:"retry_on_failure"`
	EvaluationPrompt  *string         `json:"evaluation_prompt"`
	PassThreshold     float64         `json:"pass_threshold"`
	EvaluationTier    *string         `json:"evaluation_tier"`
	CreatedAt         string          `json:"created_at"`
	UpdatedAt         string          `json:"updated_at"`
	ResultSummary     map[string]int  `json:"result_summary"`
}

// EvaluationCriteriaInput creates a criterion (StepID required) or, for
// UpdateEvaluationCriteria, changes the fields that are set.
type EvaluationCriteriaInput struct {
	StepID            string          `json:"step_id,omitempty"`
	Description       *string         `json:"description,omitempty"`
	Enabled           *bool           `json:"enabled,omitempty"`
	EvaluationPrompt  *string         `json:"evaluation_prompt,omitempty"`
	ExpectationConfig json.RawMessage `json:"expectation_config,omitempty"`
	PassThreshold     *float64        `json:"pass_threshold,omitempty"`
	EvaluationTier    *string         `json:"evaluation_tier,omitempty"`
}

// EvaluationResult is one judgment; StepID and CriteriaDescription are set
// in agent- and run-wide lists.
type EvaluationResult struct {
	ID                  string          `json:"id"`
	CriteriaID          string          `json:"criteria_id"`
	AgentRunID          string          `json:"agent_run_id"`
	AgentStepRunID      *string         `json:"agent_step_run_id"`
	Status              string          `json:"status"`
	Score               *float64        `json:"score"`
	Details             json.RawMessage `json:"details"`
	RetryTriggered      bool            `json:"retry_triggered"`
	RetryCount          int             `json:"retry_count"`
	Flagged             bool            `json:"flagged"`
	EvaluatedAt         string          `json:"evaluated_at"`
	CreatedAt           string          `json:"created_at"`
	StepID              *string         `json:"step_id,omitempty"`
	CriteriaDescription *string         `json:"criteria_description,omitempty"`
}

// EvaluationResultInput is a result pushed by a harness.
type EvaluationResultInput struct {
	AgentRunID     string         `json:"agent_run_id"`
	AgentStepRunID *string        `json:"agent_step_run_id,omitempty"`
	Status         string         `json:"status"` // pending, passed, failed, skipped, error
	Score          *float64       `json:"score,omitempty"`
	Details        map[string]any `json:"details,omitempty"`
	Flagged        bool           `json:"flagged,omitempty"`
	RetryTriggered bool           `json:"retry_triggered,omitempty"`
	RetryCount     int            `json:"retry_count,omitempty"`
}

// EvaluationSummary counts a criterion's results.
type EvaluationSummary struct {
	Total        int      `json:"total"`
	Passed       int      `json:"passed"`
	Failed       int      `json:"failed"`
	Error        int      `json:"error"`
	Flagged      int      `json:"flagged"`
	AverageScore *float64 `json:"average_score"`
}

// NonManualEvaluationSummary rolls up the automatic evaluation modes.
type NonManualEvaluationSummary struct {
	Total       int     `json:"total"`
	Passed      int     `json:"passed"`
	Failed      int     `json:"failed"`
	Flagged     int     `json:"flagged"`
	PassRate    float64 `json:"pass_rate"`
	FailureRate float64 `json:"failure_rate"`
	ByMode      []struct {
		Mode        string  `json:"mode"`
		Total       int     `json:"total"`
		Passed      int     `json:"passed"`
		Failed      int     `json:"failed"`
		Flagged     int     `json:"flagged"`
		PassRate    float64 `json:"pass_rate"`
		FailureRate float64 `json:"failure_rate"`
	} `json:"by_mode"`
}

// EvaluationRun is one run's rollup.
type EvaluationRun struct {
	AgentRunID       string `json:"agent_run_id"`
	RunStatus        string `json:"run_status"`
	RunCreatedAt     string `json:"run_created_at"`
	TotalEvaluations int    `json:"total_evaluations"`
	PassedCount      int    `json:"passed_count"`
	FailedCount      int    `json:"failed_count"`
	ErrorCount       int    `json:"error_count"`
	SkippedCount     int    `json:"skipped_count"`
	FlaggedCount     int    `json:"flagged_count"`
}

// CompatibleRun is a run whose step output a criterion can judge.
type CompatibleRun struct {
	AgentRunID     string  `json:"agent_run_id"`
	AgentStepRunID string  `json:"agent_step_run_id"`
	RunStatus      *string `json:"run_status"`
	InputPreview   *string `json:"input_preview"`
	StartedAt      *string `json:"started_at"`
	CompletedAt    *string `json:"completed_at"`
}

// DraftEvaluation is an ephemeral evaluation: give StepOutput or
// AgentStepRunID.
type DraftEvaluation struct {
	StepOutput        *string         `json:"step_output,omitempty"`
	AgentStepRunID    *string         `json:"agent_step_run_id,omitempty"`
	AgentInput        *string         `json:"agent_input,omitempty"`
	EvaluationPrompt  *string         `json:"evaluation_prompt,omitempty"`
	ExpectationConfig json.RawMessage `json:"expectation_config,omitempty"`
	PassThreshold     *float64        `json:"pass_threshold,omitempty"`
	EvaluationTier    *string         `json:"evaluation_tier,omitempty"`
}

// DraftVerdict is a draft's outcome.
type DraftVerdict struct {
	Score       float64 `json:"score"`
	Passed      bool    `json:"passed"`
	Explanation *string `json:"explanation"`
}

// EvaluationResultFilter filters result lists; zero values are left out.
type EvaluationResultFilter struct {
	Status      string
	Step        string // agent-wide lists only
	FlaggedOnly bool
	TimeFrom    string
	TimeTo      string
	Page, Limit int // Limit up to 100
}

func (f EvaluationResultFilter) query(withFlagged bool) ListQuery {
	p := url.Values{}
	for k, v := range map[string]string{"status": f.Status, "step": f.Step, "time_from": f.TimeFrom, "time_to": f.TimeTo} {
		if v != "" {
			p.Set(k, v)
		}
	}
	if withFlagged && f.FlaggedOnly {
		p.Set("flagged_only", "true")
	}
	return ListQuery{Params: p, Paging: PageNumbers, Page: f.Page, Limit: min(f.Limit, 100)}
}

// CreateEvaluationCriteria adds a criterion to an agent step.
func (c *Client) CreateEvaluationCriteria(ctx context.Context, agentID string, in EvaluationCriteriaInput, opts ...CallOption) (*EvaluationCriteria, error) {
	var out EvaluationCriteria
	return &out, c.Do(ctx, http.MethodPost, pathf("/agents/%s/evaluation-criteria", agentID), in, &out, opts...)
}

// ListEvaluationCriteria returns an agent's criteria (every one before
// 2026-07-27; a page from it).
func (c *Client) ListEvaluationCriteria(ctx context.Context, agentID string, page, limit int, opts ...CallOption) (*Page[EvaluationCriteria], error) {
	return ListPage[EvaluationCriteria](ctx, c, pathf("/agents/%s/evaluation-criteria", agentID), ListQuery{Paging: PageNumbers, Page: page, Limit: min(limit, 100)}, opts...)
}

// GetEvaluationCriteria returns a criterion with its result counts.
func (c *Client) GetEvaluationCriteria(ctx context.Context, criteriaID string, opts ...CallOption) (*EvaluationCriteria, error) {
	var out EvaluationCriteria
	return &out, c.Do(ctx, http.MethodGet, pathf("/agents/evaluation-criteria/%s", criteriaID), nil, &out, opts...)
}

// UpdateEvaluationCriteria changes the fields of in that are set; body
// replaces in when a field must be cleared (sent as JSON as is).
func (c *Client) UpdateEvaluationCriteria(ctx context.Context, criteriaID string, body any, opts ...CallOption) (*EvaluationCriteria, error) {
	var out EvaluationCriteria
	return &out, c.Do(ctx, http.MethodPatch, pathf("/agents/evaluation-criteria/%s", criteriaID), body, &out, opts...)
}

// DeleteEvaluationCriteria deletes a criterion and its results.
func (c *Client) DeleteEvaluationCriteria(ctx context.Context, criteriaID string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/agents/evaluation-criteria/%s", criteriaID), nil, nil, opts...)
}

// ListCompatibleRuns returns runs with a completed attempt of the criterion's step.
func (c *Client) ListCompatibleRuns(ctx context.Context, criteriaID, startedAfter string, page, limit int, opts ...CallOption) (*Page[CompatibleRun], error) {
	q := ListQuery{Params: url.Values{}, Paging: PageNumbers, Page: page, Limit: min(limit, 100)}
	if startedAfter != "" {
		q.Params.Set("started_after", startedAfter)
	}
	return ListPage[CompatibleRun](ctx, c, pathf("/agents/evaluation-criteria/%s/compatible-runs", criteriaID), q, opts...)
}

// ListEvaluationResults returns a criterion's results, newest first.
func (c *Client) ListEvaluationResults(ctx context.Context, criteriaID string, f EvaluationResultFilter, opts ...CallOption) (*Page[EvaluationResult], error) {
	f.Step = ""
	return ListPage[EvaluationResult](ctx, c, pathf("/agents/evaluation-criteria/%s/results", criteriaID), f.query(true), opts...)
}

// CreateEvaluationResult records a result from an external harness.
func (c *Client) CreateEvaluationResult(ctx context.Context, criteriaID string, in EvaluationResultInput, opts ...CallOption) (*EvaluationResult, error) {
	var out EvaluationResult
	return &out, c.Do(ctx, http.MethodPost, pathf("/agents/evaluation-criteria/%s/results", criteriaID), in, &out, opts...)
}

// GetEvaluationSummary counts a criterion's results.
func (c *Client) GetEvaluationSummary(ctx context.Context, criteriaID string, opts ...CallOption) (*EvaluationSummary, error) {
	var out EvaluationSummary
	return &out, c.Do(ctx, http.MethodGet, pathf("/agents/evaluation-criteria/%s/summary", criteriaID), nil, &out, opts...)
}

// GetNonManualEvaluationSummary rolls up eval_and_retry and sample_and_flag
// results over the last days (30 when zero); agentID scopes it from
// Service-Version 2026-07-27 on.
func (c *Client) GetNonManualEvaluationSummary(ctx context.Context, agentID string, days int, opts ...CallOption) (*NonManualEvaluationSummary, error) {
	q := url.Values{}
	if agentID != "" {
		q.Set("agent_id", agentID)
	}
	if days > 0 {
		q.Set("days", strconv.Itoa(days))
	}
	var out NonManualEvaluationSummary
	return &out, c.Do(ctx, http.MethodGet, "/agents/evaluation-results/non-manual-summary", nil, &out, append([]CallOption{WithQuery(q)}, opts...)...)
}

// EvaluationDay is one UTC day of an agent's results (an extension).
type EvaluationDay struct {
	Date     string   `json:"date"`
	Total    int      `json:"total"`
	Passed   int      `json:"passed"`
	Failed   int      `json:"failed"`
	Error    int      `json:"error"`
	Skipped  int      `json:"skipped"`
	Pending  int      `json:"pending"`
	Flagged  int      `json:"flagged"`
	PassRate *float64 `json:"pass_rate"` // passed / (total - skipped - pending); nil when none was judged
}

// EvaluationDaily is an agent's results per day, oldest first, days
// without results left out.
type EvaluationDaily struct {
	AgentID string          `json:"agent_id"`
	From    string          `json:"from"`
	To      string          `json:"to"`
	Days    []EvaluationDay `json:"days"`
}

// GetEvaluationDaily adds up an agent's results per UTC day over the last
// days days (30 when zero), today included: the pass rate over time in one
// call (an extension).
func (c *Client) GetEvaluationDaily(ctx context.Context, agentID string, days int, opts ...CallOption) (*EvaluationDaily, error) {
	q := url.Values{}
	if days > 0 {
		q.Set("days", strconv.Itoa(days))
	}
	var out EvaluationDaily
	return &out, c.Do(ctx, http.MethodGet, pathf("/agents/%s/evaluation-results/daily", agentID), nil, &out, append([]CallOption{WithQuery(q)}, opts...)...)
}

// TestDraftEvaluation judges a draft without recording it or charging credits.
func (c *Client) TestDraftEvaluation(ctx context.Context, agentID string, d DraftEvaluation, opts ...CallOption) (*DraftVerdict, error) {
	var out DraftVerdict
	return &out, c.Do(ctx, http.MethodPost, pathf("/agents/%s/evaluation-criteria/test-draft", agentID), d, &out, opts...)
}

// ListAgentEvaluationResults returns results across an agent's criteria.
func (c *Client) ListAgentEvaluationResults(ctx context.Context, agentID string, f EvaluationResultFilter, opts ...CallOption) (*Page[EvaluationResult], error) {
	return ListPage[EvaluationResult](ctx, c, pathf("/agents/%s/evaluation-results", agentID), f.query(true), opts...)
}

// ListEvaluationRuns returns an agent's results grouped by run.
func (c *Client) ListEvaluationRuns(ctx context.Context, agentID string, f EvaluationResultFilter, opts ...CallOption) (*Page[EvaluationRun], error) {
	return ListPage[EvaluationRun](ctx, c, pathf("/agents/%s/evaluation-runs", agentID), f.query(false), opts...)
}

// ListRunEvaluationResults returns a run's results (every one before
// 2026-07-27; a page from it).
func (c *Client) ListRunEvaluationResults(ctx context.Context, agentID, runID string, page, limit int, opts ...CallOption) (*Page[EvaluationResult], error) {
	return ListPage[EvaluationResult](ctx, c, pathf("/agents/%s/runs/%s/evaluation-results", agentID, runID), ListQuery{Paging: PageNumbers, Page: page, Limit: min(limit, 100)}, opts...)
}
