package api

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/version"
	"github.com/danielgtaylor/huma/v2"
)

// Evaluation criteria and results (the agent-evaluations operations).

// EvaluationCriteriaResponse is a criterion with its result counts.
type EvaluationCriteriaResponse struct {
	ID                string          `json:"id" format:"uuid"`
	AgentID           string          `json:"agent_id" format:"uuid"`
	AccountID         string          `json:"account_id" format:"uuid"`
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

// CreateEvaluationCriteriaRequest creates a criterion.
type CreateEvaluationCriteriaRequest struct {
	StepID            string         `json:"step_id" minLength:"1" maxLength:"255"`
	Description       *string        `json:"description,omitempty" required:"false" nullable:"true" maxLength:"2000"`
	Enabled           *bool          `json:"enabled,omitempty" required:"false"`
	EvaluationPrompt  *string        `json:"evaluation_prompt,omitempty" required:"false" nullable:"true" maxLength:"20000"`
	ExpectationConfig map[string]any `json:"expectation_config,omitempty" required:"false" nullable:"true"`
	PassThreshold     *float64       `json:"pass_threshold,omitempty" required:"false" minimum:"0" maximum:"1"`
	EvaluationTier    *string        `json:"evaluation_tier,omitempty" required:"false" nullable:"true" enum:"fast,balanced,thorough"`
}

// UpdateEvaluationCriteriaRequest changes a criterion.
type UpdateEvaluationCriteriaRequest struct {
	Description       OptionalString  `json:"description,omitempty" required:"false"`
	Enabled           *bool           `json:"enabled,omitempty" required:"false" nullable:"true"`
	EvaluationPrompt  OptionalString  `json:"evaluation_prompt,omitempty" required:"false"`
	ExpectationConfig json.RawMessage `json:"expectation_config,omitempty" required:"false"`
	PassThreshold     *float64        `json:"pass_threshold,omitempty" required:"false" nullable:"true" minimum:"0" maximum:"1"`
	EvaluationTier    OptionalString  `json:"evaluation_tier,omitempty" required:"false"`
	StepID            *string         `json:"step_id,omitempty" required:"false" nullable:"true" maxLength:"255"`
}

// EvaluationResultResponse is one result.
type EvaluationResultResponse struct {
	ID             string          `json:"id" format:"uuid"`
	CriteriaID     string          `json:"criteria_id" format:"uuid"`
	AgentRunID     string          `json:"agent_run_id" format:"uuid"`
	AgentStepRunID *string         `json:"agent_step_run_id"`
	Status         string          `json:"status"`
	Score          *float64        `json:"score"`
	Details        json.RawMessage `json:"details"`
	RetryTriggered bool            `json:"retry_triggered"`
	RetryCount     int             `json:"retry_count"`
	Flagged        bool            `json:"flagged"`
	EvaluatedAt    string          `json:"evaluated_at"`
	CreatedAt      string          `json:"created_at"`
}

// EvaluationResultWithCriteriaResponse adds the criterion's step and description.
type EvaluationResultWithCriteriaResponse struct {
	EvaluationResultResponse
	StepID              *string `json:"step_id"`
	CriteriaDescription *string `json:"criteria_description"`
}

// CreateEvaluationResultRequest is a result pushed by a harness.
type CreateEvaluationResultRequest struct {
	AgentRunID     string         `json:"agent_run_id" format:"uuid"`
	AgentStepRunID *string        `json:"agent_step_run_id,omitempty" required:"false" nullable:"true" format:"uuid"`
	Status         string         `json:"status" enum:"pending,passed,failed,skipped,error"`
	Score          *float64       `json:"score,omitempty" required:"false" nullable:"true" minimum:"0" maximum:"1"`
	Details        map[string]any `json:"details,omitempty" required:"false" nullable:"true"`
	Flagged        bool           `json:"flagged,omitempty" required:"false"`
	RetryTriggered bool           `json:"retry_triggered,omitempty" required:"false"`
	RetryCount     int            `json:"retry_count,omitempty" required:"false" minimum:"0" maximum:"1000"`
}

// TestDraftEvaluationRequest is an ephemeral evaluation.
type TestDraftEvaluationRequest struct {
	StepOutput        *string        `json:"step_output,omitempty" required:"false" nullable:"true" minLength:"1" maxLength:"1048576"`
	AgentStepRunID    *string        `json:"agent_step_run_id,omitempty" required:"false" nullable:"true" format:"uuid"`
	AgentInput        *string        `json:"agent_input,omitempty" required:"false" nullable:"true" maxLength:"1048576"`
	EvaluationPrompt  *string        `json:"evaluation_prompt,omitempty" required:"false" nullable:"true" maxLength:"20000"`
	ExpectationConfig map[string]any `json:"expectation_config,omitempty" required:"false" nullable:"true"`
	PassThreshold     *float64       `json:"pass_threshold,omitempty" required:"false" minimum:"0" maximum:"1"`
	EvaluationTier    *string        `json:"evaluation_tier,omitempty" required:"false" nullable:"true" enum:"fast,balanced,thorough"`
}

// TestDraftEvaluationResponse is a draft's verdict.
type TestDraftEvaluationResponse struct {
	Score       float64 `json:"score"`
	Passed      bool    `json:"passed"`
	Explanation *string `json:"explanation"`
}

// EvaluationResultSummaryResponse counts a criterion's results.
type EvaluationResultSummaryResponse struct {
	Total        int      `json:"total"`
	Passed       int      `json:"passed"`
	Failed       int      `json:"failed"`
	Error        int      `json:"error"`
	Flagged      int      `json:"flagged"`
	AverageScore *float64 `json:"average_score"`
}

// NonManualEvaluationModeStatResponse is one mode's counts.
type NonManualEvaluationModeStatResponse struct {
	Mode        string  `json:"mode"`
	Total       int     `json:"total"`
	Passed      int     `json:"passed"`
	Failed      int     `json:"failed"`
	Flagged     int     `json:"flagged"`
	PassRate    float64 `json:"pass_rate"`
	FailureRate float64 `json:"failure_rate"`
}

// NonManualEvaluationSummaryResponse rolls up the automatic modes.
type NonManualEvaluationSummaryResponse struct {
	Total       int                                   `json:"total"`
	Passed      int                                   `json:"passed"`
	Failed      int                                   `json:"failed"`
	Flagged     int                                   `json:"flagged"`
	PassRate    float64                               `json:"pass_rate"`
	FailureRate float64                               `json:"failure_rate"`
	ByMode      []NonManualEvaluationModeStatResponse `json:"by_mode"`
}

// EvaluationRunSummaryResponse is one run's rollup.
type EvaluationRunSummaryResponse struct {
	AgentRunID       string `json:"agent_run_id" format:"uuid"`
	RunStatus        string `json:"run_status"`
	RunCreatedAt     string `json:"run_created_at"`
	TotalEvaluations int    `json:"total_evaluations"`
	PassedCount      int    `json:"passed_count"`
	FailedCount      int    `json:"failed_count"`
	ErrorCount       int    `json:"error_count"`
	SkippedCount     int    `json:"skipped_count"`
	FlaggedCount     int    `json:"flagged_count"`
}

// CompatibleRunResponse is a run whose step output a criterion can judge.
type CompatibleRunResponse struct {
	AgentRunID       string  `json:"agent_run_id" format:"uuid"`
	AgentStepRunID   string  `json:"agent_step_run_id" format:"uuid"`
	RunStatus        *string `json:"run_status"`
	InputPreview     *string `json:"input_preview"`
	StartedAt        *string `json:"started_at"`
	CompletedAt      *string `json:"completed_at"`
	OutputStorageKey *string `json:"output_storage_key" doc:"Always null: step outputs are kept inline with the step, not in blob storage."`
}

// LegacyList is the {data, total, page, limit} shape of the evaluation lists
// before 2026-07-27.
type LegacyList[T any] struct {
	Data  []T `json:"data"`
	Total int `json:"total"`
	Page  int `json:"page"`
	Limit int `json:"limit"`
}

func evalgovLegacyList[T any](items []T, p Pagination) any {
	return LegacyList[T]{Data: items, Total: p.Total, Page: p.Page, Limit: p.Limit}
}

func evalgovBareArray[T any](items []T, _ Pagination) any { return items }

type CriteriaPathParam struct {
	CriteriaID string `path:"criteria_id" format:"uuid"`
}

type AgentPathParam struct {
	AgentID string `path:"agent_id" format:"uuid"`
}

type PageParams struct {
	Page  int `query:"page" default:"1" minimum:"1" maximum:"1000000"`
	Limit int `query:"limit" default:"20" minimum:"1" maximum:"100"`
}

type ResultFilterParams struct {
	Status   string `query:"status" required:"false" doc:"pending, passed, failed, skipped or error"`
	TimeFrom string `query:"time_from" required:"false" doc:"RFC 3339 time or YYYY-MM-DD"`
	TimeTo   string `query:"time_to" required:"false" doc:"RFC 3339 time or YYYY-MM-DD"`
}

type (
	createCriteriaInput struct {
		AgentPathParam
		Body CreateEvaluationCriteriaRequest
	}
	listCriteriaInput struct {
		AgentPathParam
		PageParams
	}
	criteriaInput       struct{ CriteriaPathParam }
	updateCriteriaInput struct {
		CriteriaPathParam
		Body UpdateEvaluationCriteriaRequest
	}
	criteriaOutput       struct{ Body EvaluationCriteriaResponse }
	evalgovListOutput    struct{ Body any }
	evalgovNoContent     struct{}
	criteriaResultsInput struct {
		CriteriaPathParam
		ResultFilterParams
		FlaggedOnly bool `query:"flagged_only" default:"false"`
		PageParams
	}
	createResultInput struct {
		CriteriaPathParam
		Body CreateEvaluationResultRequest
	}
	resultOutput  struct{ Body EvaluationResultResponse }
	summaryOutput struct {
		Body EvaluationResultSummaryResponse
	}
	compatibleRunsInput struct {
		CriteriaPathParam
		PageParams
		StartedAfter string `query:"started_after" required:"false" doc:"RFC 3339 time"`
	}
	nonManualInput struct {
		AgentID   string `query:"agent_id" required:"false" doc:"Scope the summary to a single agent (from 2026-07-27). Omit for account-wide."`
		Days      int    `query:"days" default:"30" minimum:"1" maximum:"730"`
		StartDate string `query:"start_date" required:"false"`
		EndDate   string `query:"end_date" required:"false"`
	}
	nonManualOutput struct {
		Body NonManualEvaluationSummaryResponse
	}
	testDraftInput struct {
		AgentPathParam
		Body TestDraftEvaluationRequest
	}
	testDraftOutput   struct{ Body TestDraftEvaluationResponse }
	agentResultsInput struct {
		AgentPathParam
		ResultFilterParams
		Step        string `query:"step" required:"false" doc:"Only results of this step id."`
		FlaggedOnly bool   `query:"flagged_only" default:"false"`
		PageParams
	}
	evaluationRunsInput struct {
		AgentPathParam
		ResultFilterParams
		Step string `query:"step" required:"false" doc:"Only results of this step id."`
		PageParams
	}
	runResultsInput struct {
		AgentPathParam
		RunID string `path:"run_id" format:"uuid"`
		PageParams
	}
)

func evalgovTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func criteriaResponse(c evals.EvaluationCriterion, counts map[string]int) EvaluationCriteriaResponse {
	out := EvaluationCriteriaResponse{ID: c.ID, AgentID: c.AgentID, AccountID: c.AccountID, Description: c.Description,
		EvaluationMode: c.EvaluationMode, Enabled: c.Enabled, ExpectationConfig: c.ExpectationConfig, MaxRetries: c.MaxRetries,
		RetryOnFailure: c.RetryOnFailure, EvaluationPrompt: c.EvaluationPrompt, PassThreshold: c.PassThreshold,
		EvaluationTier: c.EvaluationTier, CreatedAt: evalgovTime(c.CreatedAt), UpdatedAt: evalgovTime(c.UpdatedAt), ResultSummary: map[string]int{}}
	if c.StepID != "" {
		out.StepID = &c.StepID
	}
	if len(out.ExpectationConfig) == 0 {
		out.ExpectationConfig = json.RawMessage("null")
	}
	total := 0
	for _, st := range evals.Statuses {
		out.ResultSummary[st] = counts[st]
		total += counts[st]
	}
	out.ResultSummary["total"] = total
	return out
}

func resultResponse(r evals.EvaluationResult) EvaluationResultResponse {
	out := EvaluationResultResponse{ID: r.ID, CriteriaID: r.CriteriaID, AgentRunID: r.AgentRunID, Status: r.Status, Score: r.Score,
		Details: r.Details, RetryTriggered: r.RetryTriggered, RetryCount: r.RetryCount, Flagged: r.Flagged,
		EvaluatedAt: evalgovTime(r.EvaluatedAt), CreatedAt: evalgovTime(r.CreatedAt)}
	if r.AgentStepRunID != "" {
		out.AgentStepRunID = &r.AgentStepRunID
	}
	if len(out.Details) == 0 {
		out.Details = json.RawMessage("null")
	}
	return out
}

func resultWithCriteria(r evals.EvaluationResult) EvaluationResultWithCriteriaResponse {
	out := EvaluationResultWithCriteriaResponse{EvaluationResultResponse: resultResponse(r), CriteriaDescription: r.CriteriaDescription}
	if r.StepID != "" {
		out.StepID = &r.StepID
	}
	return out
}

func evalgovObject(m map[string]any) json.RawMessage {
	if m == nil {
		return nil
	}
	b, _ := json.Marshal(m)
	return b
}

func (s *Server) createEvaluationCriteria(ctx context.Context, in *createCriteriaInput) (*criteriaOutput, error) {
	b := in.Body
	ci := evals.CriterionInput{StepID: &b.StepID, Description: b.Description, Enabled: b.Enabled, EvaluationPrompt: b.EvaluationPrompt,
		ExpectationConfig: evalgovObject(b.ExpectationConfig), PassThreshold: b.PassThreshold, EvaluationTier: b.EvaluationTier}
	c, err := s.deps.Evals.CreateCriterion(ctx, principal(ctx).AccountID, in.AgentID, ci)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &criteriaOutput{Body: criteriaResponse(c, nil)}, nil
}

func (s *Server) listEvaluationCriteria(ctx context.Context, in *listCriteriaInput) (*evalgovListOutput, error) {
	page, limit := in.Page, in.Limit
	if !version.Strict(Version(ctx)) {
		page, limit = 1, -1 // the legacy shape is every criterion, unpaginated
	}
	cs, counts, total, err := s.deps.Evals.Criteria(ctx, principal(ctx).AccountID, in.AgentID, page, limit)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	items := make([]EvaluationCriteriaResponse, len(cs))
	for i, c := range cs {
		items[i] = criteriaResponse(c, counts[c.ID])
	}
	return &evalgovListOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), evalgovBareArray[EvaluationCriteriaResponse])}, nil
}

func (s *Server) getEvaluationCriteria(ctx context.Context, in *criteriaInput) (*criteriaOutput, error) {
	c, counts, err := s.deps.Evals.Criterion(ctx, principal(ctx).AccountID, in.CriteriaID)
	if err != nil {
		return nil, fault.Name(err, "Evaluation criteria")
	}
	return &criteriaOutput{Body: criteriaResponse(c, counts)}, nil
}

func (s *Server) updateEvaluationCriteria(ctx context.Context, in *updateCriteriaInput) (*criteriaOutput, error) {
	b := in.Body
	ci := evals.CriterionInput{Enabled: b.Enabled, PassThreshold: b.PassThreshold, StepID: b.StepID, Set: map[string]bool{}}
	for name, f := range map[string]OptionalString{"description": b.Description, "evaluation_prompt": b.EvaluationPrompt, "evaluation_tier": b.EvaluationTier} {
		if !f.Set {
			continue
		}
		ci.Set[name] = true
		switch name {
		case "description":
			ci.Description = f.Value
		case "evaluation_prompt":
			ci.EvaluationPrompt = f.Value
		case "evaluation_tier":
			ci.EvaluationTier = f.Value
		}
	}
	if len(b.ExpectationConfig) > 0 {
		var m any
		if err := json.Unmarshal(b.ExpectationConfig, &m); err != nil {
			return nil, Invalid([]any{"body", "expectation_config"}, "expectation_config must be an object or null", "type_error")
		}
		if _, ok := m.(map[string]any); !ok && m != nil {
			return nil, Invalid([]any{"body", "expectation_config"}, "expectation_config must be an object or null", "type_error")
		}
		ci.ExpectationConfig = b.ExpectationConfig
	}
	c, counts, err := s.deps.Evals.UpdateCriterion(ctx, principal(ctx).AccountID, in.CriteriaID, ci)
	if err != nil {
		return nil, fault.Name(err, "Evaluation criteria")
	}
	return &criteriaOutput{Body: criteriaResponse(c, counts)}, nil
}

func (s *Server) deleteEvaluationCriteria(ctx context.Context, in *criteriaInput) (*evalgovNoContent, error) {
	if err := s.deps.Evals.DeleteCriterion(ctx, principal(ctx).AccountID, in.CriteriaID); err != nil {
		return nil, fault.Name(err, "Evaluation criteria")
	}
	return &evalgovNoContent{}, nil
}

// evalgovTimeParam reads an RFC 3339 time or a date; loc names the parameter.
func evalgovTimeParam(v, loc string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, Invalid([]any{"query", loc}, "must be an RFC 3339 date-time or YYYY-MM-DD", "value_error.datetime")
}

func (q ResultFilterParams) filter(accountID string) (evals.ResultFilter, error) {
	f := evals.ResultFilter{AccountID: accountID, Status: q.Status}
	if q.Status != "" && !slices.Contains(evals.Statuses, q.Status) {
		return f, Invalid([]any{"query", "status"}, "status must be one of pending, passed, failed, skipped, error", "value_error")
	}
	var err error
	if f.From, err = evalgovTimeParam(q.TimeFrom, "time_from"); err != nil {
		return f, err
	}
	if f.To, err = evalgovTimeParam(q.TimeTo, "time_to"); err != nil {
		return f, err
	}
	return f, nil
}

func (s *Server) listCriteriaResults(ctx context.Context, in *criteriaResultsInput) (*evalgovListOutput, error) {
	f, err := in.filter(principal(ctx).AccountID)
	if err != nil {
		return nil, err
	}
	f.CriteriaID, f.FlaggedOnly, f.Offset, f.Limit = in.CriteriaID, in.FlaggedOnly, paging.Offset(in.Page, in.Limit), in.Limit
	rs, total, err := s.deps.Evals.CriterionResults(ctx, f)
	if err != nil {
		return nil, fault.Name(err, "Evaluation criteria")
	}
	items := make([]EvaluationResultResponse, len(rs))
	for i, r := range rs {
		items[i] = resultResponse(r)
	}
	return &evalgovListOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), evalgovLegacyList[EvaluationResultResponse])}, nil
}

func (s *Server) createEvaluationResult(ctx context.Context, in *createResultInput) (*resultOutput, error) {
	b := in.Body
	ri := evals.ResultInput{AgentRunID: b.AgentRunID, Status: b.Status, Score: b.Score, Flagged: b.Flagged,
		RetryTriggered: b.RetryTriggered, RetryCount: b.RetryCount, Details: evalgovObject(b.Details)}
	if b.AgentStepRunID != nil {
		ri.AgentStepRunID = *b.AgentStepRunID
	}
	r, err := s.deps.Evals.CreateResult(ctx, principal(ctx).AccountID, in.CriteriaID, ri)
	if err != nil {
		return nil, fault.Name(err, "Evaluation criteria")
	}
	return &resultOutput{Body: resultResponse(r)}, nil
}

func (s *Server) getEvaluationSummary(ctx context.Context, in *criteriaInput) (*summaryOutput, error) {
	c, err := s.deps.Evals.Summary(ctx, principal(ctx).AccountID, in.CriteriaID)
	if err != nil {
		return nil, fault.Name(err, "Evaluation criteria")
	}
	return &summaryOutput{Body: EvaluationResultSummaryResponse{Total: c.Total, Passed: c.Passed, Failed: c.Failed, Error: c.Error,
		Flagged: c.Flagged, AverageScore: c.AverageScore}}, nil
}

func (s *Server) listCompatibleRuns(ctx context.Context, in *compatibleRunsInput) (*evalgovListOutput, error) {
	after, err := evalgovTimeParam(in.StartedAfter, "started_after")
	if err != nil {
		return nil, err
	}
	rs, total, err := s.deps.Evals.CompatibleRuns(ctx, principal(ctx).AccountID, in.CriteriaID, after, in.Page, in.Limit)
	if err != nil {
		return nil, fault.Name(err, "Evaluation criteria")
	}
	items := make([]CompatibleRunResponse, len(rs))
	for i, r := range rs {
		st := r.RunStatus
		items[i] = CompatibleRunResponse{AgentRunID: r.RunID, AgentStepRunID: r.StepRunID, RunStatus: &st}
		if r.Input != nil {
			p := evalgovPreview(*r.Input, 200)
			items[i].InputPreview = &p
		}
		if r.StartedAt != nil {
			v := evalgovTime(*r.StartedAt)
			items[i].StartedAt = &v
		}
		if r.CompletedAt != nil {
			v := evalgovTime(*r.CompletedAt)
			items[i].CompletedAt = &v
		}
	}
	return &evalgovListOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), evalgovLegacyList[CompatibleRunResponse])}, nil
}

func evalgovPreview(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func evalgovShare(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

func (s *Server) getNonManualSummary(ctx context.Context, in *nonManualInput) (*nonManualOutput, error) {
	agentID := ""
	if version.Strict(Version(ctx)) && in.AgentID != "" {
		if !evalgovLooksLikeUUID(in.AgentID) {
			return nil, NotFound("Agent")
		}
		agentID = in.AgentID
	}
	to, err := evalgovTimeParam(in.EndDate, "end_date")
	if err != nil {
		return nil, err
	}
	from, err := evalgovTimeParam(in.StartDate, "start_date")
	if err != nil {
		return nil, err
	}
	if from == nil {
		end := time.Now().UTC()
		if to != nil {
			end = *to
		}
		f := end.AddDate(0, 0, -in.Days)
		from = &f
	}
	if to != nil && len(in.EndDate) == len("2006-01-02") {
		t := to.Add(24*time.Hour - time.Nanosecond) // the whole end day
		to = &t
	}
	ms, err := s.deps.Evals.NonManualSummary(ctx, principal(ctx).AccountID, agentID, *from, to)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	out := NonManualEvaluationSummaryResponse{ByMode: []NonManualEvaluationModeStatResponse{}}
	for _, mode := range []string{evals.ModeRetry, evals.ModeSample} {
		st := NonManualEvaluationModeStatResponse{Mode: mode}
		for _, m := range ms {
			if m.Mode == mode {
				st.Total, st.Passed, st.Failed, st.Flagged = m.Total, m.Passed, m.Failed, m.Flagged
			}
		}
		st.PassRate, st.FailureRate = evalgovShare(st.Passed, st.Total), evalgovShare(st.Failed, st.Total)
		out.Total += st.Total
		out.Passed += st.Passed
		out.Failed += st.Failed
		out.Flagged += st.Flagged
		out.ByMode = append(out.ByMode, st)
	}
	out.PassRate, out.FailureRate = evalgovShare(out.Passed, out.Total), evalgovShare(out.Failed, out.Total)
	return &nonManualOutput{Body: out}, nil
}

func evalgovLooksLikeUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'):
		default:
			return false
		}
	}
	return true
}

func (s *Server) testDraftEvaluation(ctx context.Context, in *testDraftInput) (*testDraftOutput, error) {
	b := in.Body
	d := evals.Draft{StepOutput: b.StepOutput, AgentInput: b.AgentInput, EvaluationPrompt: b.EvaluationPrompt,
		Expectation: evalgovObject(b.ExpectationConfig), PassThreshold: 0.5, Tier: b.EvaluationTier}
	if b.PassThreshold != nil {
		d.PassThreshold = *b.PassThreshold
	}
	if b.AgentStepRunID != nil {
		d.AgentStepRunID = *b.AgentStepRunID
	}
	j, err := s.deps.Evals.TestDraft(ctx, principal(ctx).AccountID, in.AgentID, d)
	if err != nil {
		return nil, fault.Name(err, "Agent or step run")
	}
	expl := j.Explanation
	return &testDraftOutput{Body: TestDraftEvaluationResponse{Score: j.Score, Passed: j.Passed, Explanation: &expl}}, nil
}

func (s *Server) listAgentEvaluationResults(ctx context.Context, in *agentResultsInput) (*evalgovListOutput, error) {
	f, err := in.filter(principal(ctx).AccountID)
	if err != nil {
		return nil, err
	}
	f.AgentID, f.StepID, f.FlaggedOnly, f.Offset, f.Limit = in.AgentID, in.Step, in.FlaggedOnly, paging.Offset(in.Page, in.Limit), in.Limit
	rs, total, err := s.deps.Evals.AgentResults(ctx, f)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	items := make([]EvaluationResultWithCriteriaResponse, len(rs))
	for i, r := range rs {
		items[i] = resultWithCriteria(r)
	}
	return &evalgovListOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), evalgovLegacyList[EvaluationResultWithCriteriaResponse])}, nil
}

func (s *Server) listEvaluationRuns(ctx context.Context, in *evaluationRunsInput) (*evalgovListOutput, error) {
	f, err := in.filter(principal(ctx).AccountID)
	if err != nil {
		return nil, err
	}
	f.AgentID, f.StepID, f.Offset, f.Limit = in.AgentID, in.Step, paging.Offset(in.Page, in.Limit), in.Limit
	rs, total, err := s.deps.Evals.Runs(ctx, f)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	items := make([]EvaluationRunSummaryResponse, len(rs))
	for i, r := range rs {
		items[i] = EvaluationRunSummaryResponse{AgentRunID: r.RunID, RunStatus: r.RunStatus, RunCreatedAt: evalgovTime(r.RunCreatedAt),
			TotalEvaluations: r.Total, PassedCount: r.Passed, FailedCount: r.Failed, ErrorCount: r.Error, SkippedCount: r.Skipped,
			FlaggedCount: r.Flagged}
	}
	return &evalgovListOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), evalgovLegacyList[EvaluationRunSummaryResponse])}, nil
}

func (s *Server) listRunEvaluationResults(ctx context.Context, in *runResultsInput) (*evalgovListOutput, error) {
	f := evals.ResultFilter{AccountID: principal(ctx).AccountID, AgentID: in.AgentID, RunID: in.RunID, Limit: -1}
	if version.Strict(Version(ctx)) {
		f.Offset, f.Limit = paging.Offset(in.Page, in.Limit), in.Limit
	}
	rs, total, err := s.deps.Evals.RunResults(ctx, f)
	if err != nil {
		return nil, fault.Name(err, "Agent run")
	}
	items := make([]EvaluationResultWithCriteriaResponse, len(rs))
	for i, r := range rs {
		items[i] = resultWithCriteria(r)
	}
	return &evalgovListOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), evalgovBareArray[EvaluationResultWithCriteriaResponse])}, nil
}

// OptionalString is a nullable string field of a partial update that tells
// "left out" (Set false) from "null" (Set, Value nil).
type OptionalString struct {
	Set   bool
	Value *string
}

// UnmarshalJSON records that the field was present.
func (o *OptionalString) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Value = nil
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	o.Value = &s
	return nil
}

// Schema declares the field as a string or null.
func (OptionalString) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{AnyOf: []*huma.Schema{{Type: "string", MaxLength: evalgovIntPtr(20000)}, {Type: "null"}}}
}

func evalgovIntPtr(i int) *int { return &i }
