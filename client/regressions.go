package client

import (
	"context"
	"iter"
	"net/http"
)

// Regression runs (an Agentry extension; the Agent Platform API has no
// such operations): recorded runs of an agent replayed on a version of its
// workflow in the background, each replay judged with the agent's
// evaluation criteria and compared with its original.

// RegressionRequest starts a regression: the version to replay on (empty:
// the current one) and either LastRuns (the agent's last N finished runs,
// 1–100) or RunIDs (1–100 finished runs of the agent).
type RegressionRequest struct {
	ChangeID string   `json:"change_id,omitempty"`
	LastRuns int      `json:"last_runs,omitempty"`
	RunIDs   []string `json:"run_ids,omitempty"`
}

// Regression is a regression with its progress and report; Runs is set
// when reading one (GetRegression, CancelRegression, StartRegression).
type Regression struct {
	RegressionID     string             `json:"regression_id"`
	AgentID          string             `json:"agent_id"`
	ChangeID         string             `json:"change_id"`
	Status           string             `json:"status"`    // queued, running, completed, cancelled
	Selection        string             `json:"selection"` // last_runs or run_ids
	EstimatedCredits float64            `json:"estimated_credits"`
	CancelRequested  bool               `json:"cancel_requested"`
	CreatedAt        string             `json:"created_at"`
	StartedAt        *string            `json:"started_at"`
	EndedAt          *string            `json:"ended_at"`
	Progress         RegressionProgress `json:"progress"`
	Report           RegressionSummary  `json:"report"`
	Runs             []RegressionRun    `json:"runs,omitempty"`
}

// Ended reports whether the regression is over (completed or cancelled).
func (r *Regression) Ended() bool { return r.Status == "completed" || r.Status == "cancelled" }

// RegressionProgress is how far a regression has got.
type RegressionProgress struct {
	Total    int     `json:"total"`
	Started  int     `json:"started"`
	Finished int     `json:"finished"`
	Percent  float64 `json:"percent"`
}

// RegressionSummary is what a regression found so far; the pass rates are
// nil until a replay is judged.
type RegressionSummary struct {
	PassRateBefore *float64 `json:"pass_rate_before"`
	PassRateAfter  *float64 `json:"pass_rate_after"`
	PassedBefore   int      `json:"passed_before"`
	PassedAfter    int      `json:"passed_after"`
	Unchanged      int      `json:"unchanged"`
	Changed        int      `json:"changed"`
	CreditsSpent   float64  `json:"credits_spent"`
}

// RegressionRun is one recorded run, its replay and the comparison; the
// outputs are set for a changed one only.
type RegressionRun struct {
	SourceRunID       string                 `json:"source_run_id"`
	ReplayRunID       *string                `json:"replay_run_id"`
	Status            string                 `json:"status"`  // pending, replaying, done, cancelled
	Outcome           *string                `json:"outcome"` // unchanged or changed, once done
	Similarity        *float64               `json:"similarity"`
	SourceStatus      string                 `json:"source_status"`
	ReplayStatus      *string                `json:"replay_status"`
	SourcePassed      *bool                  `json:"source_passed"`
	ReplayPassed      *bool                  `json:"replay_passed"`
	SourceOutput      *string                `json:"source_output"`
	ReplayOutput      *string                `json:"replay_output"`
	SourceEvaluations []RegressionEvaluation `json:"source_evaluations"`
	ReplayEvaluations []RegressionEvaluation `json:"replay_evaluations"`
	CreditsSpent      float64                `json:"credits_spent"`
}

// RegressionEvaluation is one criterion's verdict on one run.
type RegressionEvaluation struct {
	CriteriaID  string   `json:"criteria_id"`
	StepID      string   `json:"step_id"`
	Status      string   `json:"status"` // passed, failed, skipped, error, not_run
	Score       *float64 `json:"score"`
	Explanation string   `json:"explanation"`
}

// RegressionListOptions page GET /agents/{agent_id}/regressions.
type RegressionListOptions struct {
	Page  int // 1-based; 1 when zero
	Limit int // 1–100; the server's 20 when zero
}

const maxRegressionPage = 100

// StartRegression starts a regression run (202). A balance below the
// estimate is a 402 (errors.Is ErrInsufficientCredits); a bad selection a
// 422 (POST /agents/{agent_id}/regressions).
func (c *Client) StartRegression(ctx context.Context, agentID string, req RegressionRequest, opts ...CallOption) (*Regression, error) {
	var out Regression
	if err := c.Do(ctx, http.MethodPost, pathf("/agents/%s/regressions", agentID), req, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetRegression returns a regression with its report
// (GET /agents/{agent_id}/regressions/{regression_id}).
func (c *Client) GetRegression(ctx context.Context, agentID, regressionID string, opts ...CallOption) (*Regression, error) {
	var out Regression
	if err := c.Do(ctx, http.MethodGet, pathf("/agents/%s/regressions/%s", agentID, regressionID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// CancelRegression stops a regression; a 409 (errors.Is ErrConflict) when
// it has ended (POST /agents/{agent_id}/regressions/{regression_id}/cancel).
func (c *Client) CancelRegression(ctx context.Context, agentID, regressionID string, opts ...CallOption) (*Regression, error) {
	var out Regression
	if err := c.Do(ctx, http.MethodPost, pathf("/agents/%s/regressions/%s/cancel", agentID, regressionID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListRegressions returns one page of an agent's regressions, newest first
// (GET /agents/{agent_id}/regressions).
func (c *Client) ListRegressions(ctx context.Context, agentID string, o RegressionListOptions, opts ...CallOption) (*Page[Regression], error) {
	return ListPage[Regression](ctx, c, pathf("/agents/%s/regressions", agentID), ListQuery{Page: o.Page, Limit: min(o.Limit, maxRegressionPage)}, opts...)
}

// Regressions iterates over all of an agent's regressions, newest first.
func (c *Client) Regressions(ctx context.Context, agentID string, opts ...CallOption) iter.Seq2[Regression, error] {
	return ListAll[Regression](ctx, c, pathf("/agents/%s/regressions", agentID), ListQuery{Limit: maxRegressionPage}, opts...)
}
