package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Experiment statuses.
const (
	ExperimentPending   = "pending"
	ExperimentRunning   = "running"
	ExperimentCompleted = "completed"
	ExperimentFailed    = "failed"
	ExperimentCanceled  = "canceled"
)

// ExperimentTerminal reports whether an experiment status is final.
func ExperimentTerminal(status string) bool {
	return status == ExperimentCompleted || status == ExperimentFailed || status == ExperimentCanceled
}

// PlaygroundCreateRequest creates an experiment: one prompt run against
// 1–10 models at once. With EvaluationMode "prompt" an evaluator model
// scores each output between 0 and 1.
type PlaygroundCreateRequest struct {
	Prompt       string   `json:"prompt"`
	SystemPrompt string   `json:"system_prompt,omitempty"`
	ModelIDs     []string `json:"model_ids"`
	// EvaluationMode is manual (the default) or prompt.
	EvaluationMode string `json:"evaluation_mode,omitempty"`
	// EvaluationComplexity is simple, medium (the default) or complex.
	EvaluationComplexity string `json:"evaluation_complexity,omitempty"`
	// EvaluatorModelID judges the outputs in prompt mode; the server's
	// default model when empty.
	EvaluatorModelID              string `json:"evaluator_model_id,omitempty"`
	IncludeStepOutputInEvaluation bool   `json:"include_step_output_in_evaluation,omitempty"`
	SelectedStepOutput            string `json:"selected_step_output,omitempty"`
	// JSONTemplate is an advanced-mode payload: a JSON object with a
	// messages list whose contents may name {{prompt}}, {{system_prompt}}
	// and {{step_output}}, and optional max_tokens and temperature.
	JSONTemplate string `json:"json_template,omitempty"`
}

// CreateExperimentResponse answers a create.
type CreateExperimentResponse struct {
	ExperimentID string `json:"experiment_id"`
	Status       string `json:"status"`
}

// ExperimentSummary is an experiment in a list.
type ExperimentSummary struct {
	ID                   string   `json:"id"`
	Status               string   `json:"status"`
	CreatedAt            string   `json:"created_at"`
	SelectedModelIDs     []string `json:"selected_model_ids"`
	EvaluationMode       string   `json:"evaluation_mode"`
	EvaluationComplexity string   `json:"evaluation_complexity"`
}

// Experiment is an experiment with its progress and results.
type Experiment struct {
	ExperimentSummary
	Prompt                        string          `json:"prompt"`
	SystemPrompt                  string          `json:"system_prompt"`
	EvaluatorModelID              *string         `json:"evaluator_model_id"`
	IncludeStepOutputInEvaluation bool            `json:"include_step_output_in_evaluation"`
	SelectedStepOutput            *string         `json:"selected_step_output"`
	JSONTemplate                  *string         `json:"json_template"`
	StartedAt                     *string         `json:"started_at"`
	CompletedAt                   *string         `json:"completed_at"`
	ErrorMessage                  *string         `json:"error_message"`
	ProgressCurrent               *int            `json:"progress_current"`
	ProgressTotal                 *int            `json:"progress_total"`
	ProgressMessage               *string         `json:"progress_message"`
	ResultData                    json.RawMessage `json:"result_data"`
}

// ExperimentResults is an experiment's result_data.
type ExperimentResults struct {
	Models     []ExperimentModelResult `json:"models"`
	Evaluation *ExperimentRanking      `json:"evaluation"`
	Totals     ExperimentTotals        `json:"totals"`
}

// ExperimentModelResult is one model's answer: status is pending,
// completed, failed or canceled.
type ExperimentModelResult struct {
	ModelID      string                `json:"model_id"`
	ModelName    string                `json:"model_name"`
	Provider     string                `json:"provider"`
	Status       string                `json:"status"`
	Output       *string               `json:"output"`
	Error        string                `json:"error"`
	FinishReason string                `json:"finish_reason"`
	LatencyMS    int64                 `json:"latency_ms"`
	InputTokens  int                   `json:"input_tokens"`
	OutputTokens int                   `json:"output_tokens"`
	TotalTokens  int                   `json:"total_tokens"`
	Credits      int64                 `json:"credits"`
	Evaluation   *ExperimentEvaluation `json:"evaluation"`
}

// ExperimentEvaluation is the evaluator's judgement of one output.
type ExperimentEvaluation struct {
	Status           string             `json:"status"`
	Score            *float64           `json:"score"`
	Reasoning        string             `json:"reasoning"`
	Criteria         map[string]float64 `json:"criteria"`
	Strengths        string             `json:"strengths"`
	Weaknesses       string             `json:"weaknesses"`
	EvaluatorModelID string             `json:"evaluator_model_id"`
	Error            string             `json:"error"`
	LatencyMS        int64              `json:"latency_ms"`
	Credits          int64              `json:"credits"`
}

// ExperimentRanking orders the evaluated models, best first.
type ExperimentRanking struct {
	Mode             string   `json:"mode"`
	Complexity       string   `json:"complexity"`
	EvaluatorModelID string   `json:"evaluator_model_id"`
	BestModelID      *string  `json:"best_model_id"`
	Ranking          []string `json:"ranking"`
}

// ExperimentTotals sums the experiment's calls as billed.
type ExperimentTotals struct {
	Calls        int     `json:"calls"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	Credits      float64 `json:"credits"`
}

// Results decodes ResultData; nil before the first model has answered.
func (e *Experiment) Results() (*ExperimentResults, error) {
	if len(e.ResultData) == 0 || string(e.ResultData) == "null" {
		return nil, nil
	}
	var r ExperimentResults
	if err := json.Unmarshal(e.ResultData, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

const experimentsPath = "/models/playground/experiments"

// CreateExperiment schedules an experiment. An account that cannot pay
// for it gets an *InsufficientCreditsError.
func (c *Client) CreateExperiment(ctx context.Context, req PlaygroundCreateRequest, opts ...CallOption) (*CreateExperimentResponse, error) {
	var out CreateExperimentResponse
	if err := c.Do(ctx, http.MethodPost, experimentsPath, req, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetExperiment returns an experiment with its results so far.
func (c *Client) GetExperiment(ctx context.Context, id string, opts ...CallOption) (*Experiment, error) {
	var out Experiment
	if err := c.Do(ctx, http.MethodGet, pathf(experimentsPath+"/%s", id), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// WaitExperiment polls an experiment until it is completed, failed or
// canceled. On timeout it returns the last snapshot with an error
// wrapping ErrPollTimeout.
func (c *Client) WaitExperiment(ctx context.Context, id string, interval, timeout time.Duration, opts ...CallOption) (*Experiment, error) {
	return Poll(ctx, PollOptions{Interval: interval, Timeout: timeout},
		func(ctx context.Context) (*Experiment, error) { return c.GetExperiment(ctx, id, opts...) },
		func(e *Experiment) bool { return ExperimentTerminal(e.Status) })
}

// CancelExperiment stops a pending or running experiment; its in-flight
// model calls are aborted. One that already finished is a 409
// (errors.Is(err, ErrConflict)).
func (c *Client) CancelExperiment(ctx context.Context, id string, opts ...CallOption) (string, error) {
	var out struct {
		Status string `json:"status"`
	}
	if err := c.Do(ctx, http.MethodPost, pathf(experimentsPath+"/%s/cancel", id), nil, &out, opts...); err != nil {
		return "", err
	}
	return out.Status, nil
}

// DeleteExperiment removes an experiment from lists and reads (it stays
// in the server's records); a running one is cancelled.
func (c *Client) DeleteExperiment(ctx context.Context, id string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf(experimentsPath+"/%s", id), nil, nil, opts...)
}

// ExperimentListOptions filter and page the list. StartDate and EndDate
// (YYYY-MM-DD) override Days, the look-back window (30 by default).
type ExperimentListOptions struct {
	Days               int
	StartDate, EndDate string
	Offset             int
	Limit              int // 1–50; the server's 20 when zero (50 for Experiments)
}

// maxExperimentPage is the endpoint's largest page.
const maxExperimentPage = 50

func (o ExperimentListOptions) query() ListQuery {
	q := ListQuery{Paging: Offsets, Offset: o.Offset, Limit: min(o.Limit, maxExperimentPage), Key: "experiments", Params: url.Values{}}
	if o.Days > 0 {
		q.Params.Set("days", strconv.Itoa(o.Days))
	}
	if o.StartDate != "" {
		q.Params.Set("start_date", o.StartDate)
	}
	if o.EndDate != "" {
		q.Params.Set("end_date", o.EndDate)
	}
	return q
}

// ListExperiments returns one page of experiments, newest first.
func (c *Client) ListExperiments(ctx context.Context, o ExperimentListOptions, opts ...CallOption) (*Page[ExperimentSummary], error) {
	return ListPage[ExperimentSummary](ctx, c, experimentsPath, o.query(), opts...)
}

// Experiments iterates over every experiment in the window.
func (c *Client) Experiments(ctx context.Context, o ExperimentListOptions, opts ...CallOption) iter.Seq2[ExperimentSummary, error] {
	if o.Limit <= 0 {
		o.Limit = maxExperimentPage
	}
	return ListAll[ExperimentSummary](ctx, c, experimentsPath, o.query(), opts...)
}
