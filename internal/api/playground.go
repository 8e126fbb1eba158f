package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/playground"
)

// The model playground: one prompt against several models, run as a job.

// PlaygroundCreateRequest is the body of POST /models/playground/experiments.
type PlaygroundCreateRequest struct {
	Prompt                        string   `json:"prompt" doc:"Prompt text for the experiment."`
	SystemPrompt                  string   `json:"system_prompt,omitempty" required:"false" default:"" doc:"Optional system prompt."`
	ModelIDs                      []string `json:"model_ids" minItems:"1" maxItems:"10" doc:"Selected model IDs (1-10)."`
	EvaluationMode                string   `json:"evaluation_mode,omitempty" required:"false" enum:"manual,prompt" default:"manual" doc:"manual or prompt"`
	EvaluationComplexity          string   `json:"evaluation_complexity,omitempty" required:"false" enum:"simple,medium,complex" default:"medium" doc:"simple, medium, or complex"`
	EvaluatorModelID              *string  `json:"evaluator_model_id,omitempty" required:"false" nullable:"true" doc:"Evaluator model ID when evaluation_mode is prompt."`
	IncludeStepOutputInEvaluation bool     `json:"include_step_output_in_evaluation,omitempty" required:"false" default:"false" doc:"Whether to include selected step output as evaluator context."`
	SelectedStepOutput            *string  `json:"selected_step_output,omitempty" required:"false" nullable:"true" doc:"Optional step output text for evaluator context."`
	JSONTemplate                  *string  `json:"json_template,omitempty" required:"false" nullable:"true" doc:"Optional JSON template for advanced mode."`
}

// CreateExperimentResponse answers a create.
type CreateExperimentResponse struct {
	ExperimentID string `json:"experiment_id"`
	Status       string `json:"status"`
}

// ExperimentSummaryResponse is an experiment in a list.
type ExperimentSummaryResponse struct {
	ID                   string   `json:"id"`
	Status               string   `json:"status"`
	CreatedAt            string   `json:"created_at"`
	SelectedModelIDs     []string `json:"selected_model_ids"`
	EvaluationMode       string   `json:"evaluation_mode"`
	EvaluationComplexity string   `json:"evaluation_complexity"`
}

// ExperimentListResponse is the legacy body of the list.
type ExperimentListResponse struct {
	Experiments []ExperimentSummaryResponse `json:"experiments"`
	Total       int                         `json:"total"`
}

// ExperimentDetailResponse is one experiment with its results.
type ExperimentDetailResponse struct {
	ID                            string          `json:"id"`
	Status                        string          `json:"status"`
	CreatedAt                     string          `json:"created_at"`
	SelectedModelIDs              []string        `json:"selected_model_ids"`
	EvaluationMode                string          `json:"evaluation_mode"`
	EvaluationComplexity          string          `json:"evaluation_complexity"`
	Prompt                        string          `json:"prompt"`
	SystemPrompt                  string          `json:"system_prompt"`
	EvaluatorModelID              *string         `json:"evaluator_model_id" nullable:"true"`
	IncludeStepOutputInEvaluation bool            `json:"include_step_output_in_evaluation"`
	SelectedStepOutput            *string         `json:"selected_step_output" nullable:"true"`
	JSONTemplate                  *string         `json:"json_template" nullable:"true"`
	StartedAt                     *string         `json:"started_at" nullable:"true"`
	CompletedAt                   *string         `json:"completed_at" nullable:"true"`
	ErrorMessage                  *string         `json:"error_message" nullable:"true"`
	ProgressCurrent               *int            `json:"progress_current" nullable:"true"`
	ProgressTotal                 *int            `json:"progress_total" nullable:"true"`
	ProgressMessage               *string         `json:"progress_message" nullable:"true"`
	ResultData                    json.RawMessage `json:"result_data" nullable:"true"`
}

// CancelExperimentResponse answers a cancel.
type CancelExperimentResponse struct {
	Status string `json:"status"`
}

func experimentSummary(e playground.Experiment) ExperimentSummaryResponse {
	return ExperimentSummaryResponse{ID: e.ID, Status: e.Status, CreatedAt: modelsTimestamp(e.CreatedAt),
		SelectedModelIDs: orNoModels(e.ModelIDs), EvaluationMode: e.EvaluationMode, EvaluationComplexity: e.EvaluationComplexity}
}

func experimentDetail(e playground.Experiment) ExperimentDetailResponse {
	r := ExperimentDetailResponse{ID: e.ID, Status: e.Status, CreatedAt: modelsTimestamp(e.CreatedAt),
		SelectedModelIDs: orNoModels(e.ModelIDs), EvaluationMode: e.EvaluationMode, EvaluationComplexity: e.EvaluationComplexity,
		Prompt: e.Prompt, SystemPrompt: e.SystemPrompt, IncludeStepOutputInEvaluation: e.IncludeStepOutput,
		SelectedStepOutput: e.SelectedStepOutput, JSONTemplate: e.JSONTemplate, ErrorMessage: e.ErrorMessage,
		ProgressCurrent: e.ProgressCurrent, ProgressTotal: e.ProgressTotal, ProgressMessage: e.ProgressMessage,
		ResultData: e.ResultData}
	if e.EvaluatorModelID != "" {
		r.EvaluatorModelID = &e.EvaluatorModelID
	}
	if e.StartedAt != nil {
		t := modelsTimestamp(*e.StartedAt)
		r.StartedAt = &t
	}
	if e.CompletedAt != nil {
		t := modelsTimestamp(*e.CompletedAt)
		r.CompletedAt = &t
	}
	if len(r.ResultData) == 0 {
		r.ResultData = json.RawMessage("null")
	}
	return r
}

func orNoModels(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

type createExperimentInput struct{ Body PlaygroundCreateRequest }

type createExperimentOutput struct{ Body CreateExperimentResponse }

func (s *Server) createExperiment(ctx context.Context, in *createExperimentInput) (*createExperimentOutput, error) {
	p, b := principal(ctx), in.Body
	e, err := s.deps.Playground.Create(ctx, playground.CreateInput{AccountID: p.AccountID, UserID: p.UserID,
		Prompt: b.Prompt, SystemPrompt: b.SystemPrompt, ModelIDs: b.ModelIDs, EvaluationMode: b.EvaluationMode,
		EvaluationComplexity: b.EvaluationComplexity, EvaluatorModelID: b.EvaluatorModelID,
		IncludeStepOutput: b.IncludeStepOutputInEvaluation, SelectedStepOutput: b.SelectedStepOutput, JSONTemplate: b.JSONTemplate})
	if err != nil {
		return nil, fault.Name(err, "Experiment")
	}
	return &createExperimentOutput{Body: CreateExperimentResponse{ExperimentID: e.ID, Status: e.Status}}, nil
}

type listExperimentsInput struct {
	Days      int    `query:"days" default:"30" minimum:"1" maximum:"730" doc:"Look-back window in days."`
	StartDate string `query:"start_date" format:"date" doc:"Explicit start date (overrides days)."`
	EndDate   string `query:"end_date" format:"date" doc:"Explicit end date (overrides days)."`
	Limit     int    `query:"limit" default:"20" minimum:"1" maximum:"50" doc:"Page size."`
	Offset    int    `query:"offset" default:"0" minimum:"0" maximum:"100000000" doc:"Pagination offset."`
}

// window turns days and the explicit dates into [from, to): an end date
// includes its whole day; a start date alone runs to now; an end date
// alone looks back days from its end.
func (in *listExperimentsInput) window(now time.Time) (time.Time, time.Time, error) {
	to := now.Add(time.Second) // "now" includes what was created this instant
	if in.EndDate != "" {
		d, err := time.Parse(time.DateOnly, in.EndDate)
		if err != nil {
			return time.Time{}, time.Time{}, Invalid([]any{"query", "end_date"}, "end_date must be a date (YYYY-MM-DD)", "date_parsing")
		}
		to = d.AddDate(0, 0, 1)
	}
	from := to.AddDate(0, 0, -in.Days)
	if in.StartDate != "" {
		d, err := time.Parse(time.DateOnly, in.StartDate)
		if err != nil {
			return time.Time{}, time.Time{}, Invalid([]any{"query", "start_date"}, "start_date must be a date (YYYY-MM-DD)", "date_parsing")
		}
		from = d
	}
	if !from.Before(to) {
		if in.StartDate != "" && in.EndDate != "" {
			return time.Time{}, time.Time{}, Invalid([]any{"query", "start_date"}, "start_date must not be after end_date", "value_error")
		}
		return from, from, nil // a start in the future: nothing yet
	}
	return from, to, nil
}

func (s *Server) listExperiments(ctx context.Context, in *listExperimentsInput) (*modelsAnyOutput, error) {
	from, to, err := in.window(time.Now().UTC())
	if err != nil {
		return nil, err
	}
	list, total, err := s.deps.Playground.List(ctx, principal(ctx).AccountID, from, to, in.Offset, in.Limit)
	if err != nil {
		return nil, err
	}
	items := make([]ExperimentSummaryResponse, len(list))
	for i, e := range list {
		items[i] = experimentSummary(e)
	}
	return &modelsAnyOutput{Body: List(ctx, items, PageOf(paging.PageOf(in.Offset, in.Limit), in.Limit, total),
		func(items []ExperimentSummaryResponse, p Pagination) any {
			return ExperimentListResponse{Experiments: items, Total: p.Total}
		})}, nil
}

type experimentIDPath struct {
	ExperimentID string `path:"experiment_id" format:"uuid" doc:"The experiment's id."`
}

type experimentOutput struct{ Body ExperimentDetailResponse }

func (s *Server) getExperiment(ctx context.Context, in *experimentIDPath) (*experimentOutput, error) {
	e, err := s.deps.Playground.Get(ctx, principal(ctx).AccountID, in.ExperimentID)
	if err != nil {
		return nil, fault.Name(err, "Experiment")
	}
	return &experimentOutput{Body: experimentDetail(e)}, nil
}

type cancelExperimentOutput struct{ Body CancelExperimentResponse }

func (s *Server) cancelExperiment(ctx context.Context, in *experimentIDPath) (*cancelExperimentOutput, error) {
	e, err := s.deps.Playground.Cancel(ctx, principal(ctx).AccountID, in.ExperimentID)
	if err != nil {
		return nil, fault.Name(err, "Experiment")
	}
	return &cancelExperimentOutput{Body: CancelExperimentResponse{Status: e.Status}}, nil
}

func (s *Server) deleteExperiment(ctx context.Context, in *experimentIDPath) (*struct{}, error) {
	if err := s.deps.Playground.Delete(ctx, principal(ctx).AccountID, in.ExperimentID); err != nil {
		return nil, fault.Name(err, "Experiment")
	}
	return nil, nil
}
