// Package evals owns evaluations: criteria per agent step (evaluation
// prompt, expectation_config checks, pass threshold, judge tier), their
// results (recorded by the engine or pushed by external harnesses),
// summaries, the engine overseer that judges steps in eval_and_retry and
// sample_and_flag mode, and the evaluate_step step type. What other areas
// need of its tables (an agent's import and export of its criteria, the
// account search, the runs grouped with their results) is in its leaf
// package, evalrow.
package evals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/evals/evalrow"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/lifecycle"
	"github.com/agentry/agentry/internal/models/routing"
	"github.com/agentry/agentry/internal/oversight"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/revcache"
	"github.com/agentry/agentry/internal/store"
)

// Deps is what the evaluations service is built from (New).
type Deps struct {
	DB *store.DB
	// Agents answers for the agents whose criteria and runs are judged
	// (evals → agents; the server supplies the agents' repository).
	Agents Agents
	// Model judges recorded evaluations, metered to the account
	// (evaluation credits); Router judges drafts, unmetered.
	Model   llm.Provider
	Router  *routing.Router
	Catalog *catalog.Catalog
	// Alerts receives non_manual_eval_failed / _flagged (nil: none).
	Alerts oversight.Alerter
	// Signals records a failed evaluation for the model rollback rules
	// (the model alerts area's RecordSignal; nil: none).
	Signals func(ctx context.Context, accountID, agentID string, signal lifecycle.Signal, at time.Time) error
	// Replays tells a regression's replay, which raises no alert, from a
	// production run (the runs area's repository; nil: every run is a
	// production run).
	Replays RunRegressions
}

// RunRegressions names the regression a run replays for ("" for a
// production run, or a run that does not exist).
type RunRegressions interface {
	RunRegressionID(ctx context.Context, runID string) (string, error)
}

// Agents is what this area reads of the agents area. Both answer only
// for a live agent of the account; AgentSettings answers
// store.ErrNotFound for any other.
type Agents interface {
	AgentExists(ctx context.Context, accountID, agentID string) (bool, error)
	// AgentSettings are the agent's evaluation settings (its mode, retries
	// and default tier), read without its definition.
	AgentSettings(ctx context.Context, accountID, agentID string) (agentrow.Settings, error)
}

// Service is the evaluations area.
type Service struct {
	Deps

	// materializing lets one pass copy journaled judgments at a time in
	// this process (materialize.go): readers that arrive during a pass
	// wait for it, then find little or nothing left.
	materializing sync.Mutex
	watching      revcache.Cache[*agentOversight] // what Watch loaded, by agent revision (overseer.go)
	repo          repo
}

// New builds the service from its dependencies.
func New(d Deps) *Service { return &Service{Deps: d, repo: repo{db: d.DB}} }

// Evaluation modes.
const (
	ModeManual   = "output_expectation"
	ModeRetry    = "eval_and_retry"
	ModeSample   = "sample_and_flag"
	maxPromptLen = 20_000
)

// Result statuses.
var Statuses = []string{"pending", "passed", "failed", "skipped", "error"}

// ErrInvalid is matched by every input the service refuses: a
// fault.Invalid at the body whose sentence says what is wrong.
var ErrInvalid = errors.New("invalid")

func invalid(msg string) error { return invalidBecause(errors.New(msg)) }

// invalidBecause refuses the body with err's text; the error matches both
// ErrInvalid and err.
func invalidBecause(err error) error {
	return &fault.Invalid{Items: []fault.Item{{Loc: []any{"body"}, Msg: err.Error(), Type: "value_error"}}, Err: errors.Join(ErrInvalid, err)}
}

// CriterionInput creates or changes a criterion (nil: unchanged).
type CriterionInput struct {
	StepID            *string
	Description       *string
	Enabled           *bool
	EvaluationPrompt  *string
	ExpectationConfig json.RawMessage // nil: unchanged; "null": cleared
	PassThreshold     *float64
	EvaluationTier    *string
	// Set lists the nullable fields the request named (to clear them).
	Set map[string]bool
}

func (in CriterionInput) validate() error {
	if in.EvaluationPrompt != nil && len(*in.EvaluationPrompt) > maxPromptLen {
		return invalid("evaluation_prompt is at most 20000 characters")
	}
	if in.Description != nil && len(*in.Description) > 2000 {
		return invalid("description is at most 2000 characters")
	}
	if in.ExpectationConfig != nil {
		if _, err := ParseExpectation(in.ExpectationConfig); err != nil {
			return invalidBecause(err)
		}
	}
	if in.EvaluationTier != nil && !slices.Contains(definition.EvaluationTiers, *in.EvaluationTier) {
		return invalid("evaluation_tier must be fast, balanced or thorough")
	}
	return nil
}

// CreateCriterion adds a criterion to an agent. Its evaluation mode and
// retry settings are the agent's, stored on the row for the record.
func (s *Service) CreateCriterion(ctx context.Context, accountID, agentID string, in CriterionInput) (EvaluationCriterion, error) {
	if err := in.validate(); err != nil {
		return EvaluationCriterion{}, err
	}
	st, err := s.Agents.AgentSettings(ctx, accountID, agentID)
	if err != nil {
		return EvaluationCriterion{}, err
	}
	c := EvaluationCriterion{AccountID: accountID, AgentID: agentID, Enabled: true, PassThreshold: 0.5,
		EvaluationMode: st.EvaluationMode, MaxRetries: st.MaxRetries, RetryOnFailure: st.RetryOnFailure}
	applyCriterion(&c, in)
	c, err = s.repo.createCriterion(ctx, c)
	if errors.Is(err, ErrTooManyCriteria) {
		return c, invalid(fmt.Sprintf("an agent has at most %d evaluation criteria; delete one before adding another", evalrow.MaxCriteriaPerAgent))
	}
	return c, err
}

func applyCriterion(c *EvaluationCriterion, in CriterionInput) {
	if in.StepID != nil {
		c.StepID = *in.StepID
	}
	if in.Description != nil || in.Set["description"] {
		c.Description = in.Description
	}
	if in.Enabled != nil {
		c.Enabled = *in.Enabled
	}
	if in.EvaluationPrompt != nil || in.Set["evaluation_prompt"] {
		c.EvaluationPrompt = in.EvaluationPrompt
	}
	if in.ExpectationConfig != nil {
		c.ExpectationConfig = in.ExpectationConfig
		if string(in.ExpectationConfig) == "null" {
			c.ExpectationConfig = nil
		}
	}
	if in.PassThreshold != nil {
		c.PassThreshold = *in.PassThreshold
	}
	if in.EvaluationTier != nil || in.Set["evaluation_tier"] {
		c.EvaluationTier = in.EvaluationTier
	}
}

// Criterion returns one criterion with its result counts.
func (s *Service) Criterion(ctx context.Context, accountID, id string) (EvaluationCriterion, map[string]int, error) {
	c, err := s.repo.criterion(ctx, accountID, id)
	if err != nil {
		return c, nil, err
	}
	s.beforeRead(ctx)
	counts, err := s.repo.criteriaResultCounts(ctx, accountID, []string{id})
	return c, counts[id], err
}

// UpdateCriterion changes the fields in sets.
func (s *Service) UpdateCriterion(ctx context.Context, accountID, id string, in CriterionInput) (EvaluationCriterion, map[string]int, error) {
	if err := in.validate(); err != nil {
		return EvaluationCriterion{}, nil, err
	}
	if in.StepID != nil && strings.TrimSpace(*in.StepID) == "" {
		return EvaluationCriterion{}, nil, invalid("step_id cannot be empty")
	}
	c, err := s.repo.criterion(ctx, accountID, id)
	if err != nil {
		return c, nil, err
	}
	applyCriterion(&c, in)
	if c, err = s.repo.updateCriterion(ctx, c); err != nil {
		return c, nil, err
	}
	s.beforeRead(ctx)
	counts, err := s.repo.criteriaResultCounts(ctx, accountID, []string{id})
	return c, counts[id], err
}

// DeleteCriterion removes a criterion and its results.
func (s *Service) DeleteCriterion(ctx context.Context, accountID, id string) error {
	if _, err := s.repo.criterion(ctx, accountID, id); err != nil {
		return err
	}
	return s.repo.deleteCriterion(ctx, accountID, id)
}

// Criteria lists an agent's criteria (a page, or all when limit < 0) with
// their result counts.
func (s *Service) Criteria(ctx context.Context, accountID, agentID string, page, limit int) ([]EvaluationCriterion, map[string]map[string]int, int, error) {
	if ok, err := s.Agents.AgentExists(ctx, accountID, agentID); err != nil || !ok {
		if err == nil {
			err = store.ErrNotFound
		}
		return nil, nil, 0, err
	}
	cs, total, err := s.repo.criteriaPage(ctx, accountID, agentID, paging.Offset(page, limit), limit)
	if err != nil {
		return nil, nil, 0, err
	}
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	s.beforeRead(ctx)
	counts, err := s.repo.criteriaResultCounts(ctx, accountID, ids)
	return cs, counts, total, err
}

// ResultInput is a result pushed by an external harness.
type ResultInput struct {
	AgentRunID     string
	AgentStepRunID string
	Status         string
	Score          *float64
	Flagged        bool
	RetryTriggered bool
	RetryCount     int
	Details        json.RawMessage
}

// ErrRunMismatch: the run is not a run of the criterion's agent, or the
// step run not of that run.
var ErrRunMismatch = fault.FieldSentinel([]any{"body", "agent_run_id"}, "value_error", "agent_run_id is not a run of this criterion's agent")

// ErrStepRunMismatch: the step run is not of the run.
var ErrStepRunMismatch = fault.FieldSentinel([]any{"body", "agent_step_run_id"}, "value_error", "agent_step_run_id is not a step of agent_run_id")

// CreateResult records a pushed result.
func (s *Service) CreateResult(ctx context.Context, accountID, criteriaID string, in ResultInput) (EvaluationResult, error) {
	c, err := s.repo.criterion(ctx, accountID, criteriaID)
	if err != nil {
		return EvaluationResult{}, err
	}
	if ok, err := s.repo.runOfAgent(ctx, accountID, c.AgentID, in.AgentRunID); err != nil {
		return EvaluationResult{}, err
	} else if !ok {
		return EvaluationResult{}, ErrRunMismatch
	}
	if in.AgentStepRunID != "" {
		if ok, err := s.repo.stepRunOfRun(ctx, accountID, in.AgentRunID, in.AgentStepRunID); err != nil {
			return EvaluationResult{}, err
		} else if !ok {
			return EvaluationResult{}, ErrStepRunMismatch
		}
	}
	r, err := s.repo.insertResult(ctx, EvaluationResult{AccountID: accountID, AgentID: c.AgentID, CriteriaID: c.ID,
		AgentRunID: in.AgentRunID, AgentStepRunID: in.AgentStepRunID, StepID: c.StepID, EvaluationMode: c.EvaluationMode,
		Status: in.Status, Score: in.Score, Flagged: in.Flagged, RetryTriggered: in.RetryTriggered, RetryCount: in.RetryCount,
		Details: in.Details})
	if err == nil {
		s.alert(ctx, r, "")
	}
	return r, err
}

// alert raises the alert a non-manual failed or flagged result is worth.
func (s *Service) alert(ctx context.Context, r EvaluationResult, explanation string) {
	if r.EvaluationMode != ModeRetry && r.EvaluationMode != ModeSample {
		return
	}
	if s.Replays != nil {
		if reg, err := s.Replays.RunRegressionID(ctx, r.AgentRunID); err != nil || reg != "" {
			return // a regression's replay raises no alert nor rollback signal
		}
	}
	typ := ""
	switch {
	case r.Status == "failed":
		typ = oversight.AlertEvalFailed
	case r.Flagged:
		typ = oversight.AlertEvalFlagged
	default:
		return
	}
	msg := "evaluation of step " + r.StepID + " " + r.Status
	if r.Flagged && r.Status != "failed" {
		msg = "evaluation of step " + r.StepID + " flagged for review"
	}
	if explanation != "" {
		msg += ": " + clip(explanation)
	}
	if r.Status == "failed" && s.Signals != nil {
		if err := s.Signals(context.WithoutCancel(ctx), r.AccountID, r.AgentID, lifecycle.SignalEvalFail, time.Now()); err != nil && !errors.Is(err, store.ErrNotFound) {
			_ = err // the signal feeds model rollback only; the result stands
		}
	}
	oversight.Raise(ctx, s.Alerts, oversight.Signal{AccountID: r.AccountID, Type: typ, AgentID: r.AgentID, RunID: r.AgentRunID,
		Message: msg, Details: map[string]any{"criteria_id": r.CriteriaID, "result_id": r.ID, "step_id": r.StepID,
			"evaluation_mode": r.EvaluationMode, "score": r.Score}})
}

// Results lists results by filter.
func (s *Service) Results(ctx context.Context, f ResultFilter) ([]EvaluationResult, int, error) {
	s.beforeRead(ctx)
	return s.repo.results(ctx, f)
}

// CriterionResults lists a criterion's results (404 for another account's).
func (s *Service) CriterionResults(ctx context.Context, f ResultFilter) ([]EvaluationResult, int, error) {
	if _, err := s.repo.criterion(ctx, f.AccountID, f.CriteriaID); err != nil {
		return nil, 0, err
	}
	s.beforeRead(ctx)
	return s.repo.results(ctx, f)
}

// AgentResults lists an agent's results.
func (s *Service) AgentResults(ctx context.Context, f ResultFilter) ([]EvaluationResult, int, error) {
	if err := s.agentExists(ctx, f.AccountID, f.AgentID); err != nil {
		return nil, 0, err
	}
	s.beforeRead(ctx)
	return s.repo.results(ctx, f)
}

// RunResults lists a run's results (the run must be the agent's).
func (s *Service) RunResults(ctx context.Context, f ResultFilter) ([]EvaluationResult, int, error) {
	if err := s.agentExists(ctx, f.AccountID, f.AgentID); err != nil {
		return nil, 0, err
	}
	if ok, err := s.repo.runOfAgent(ctx, f.AccountID, f.AgentID, f.RunID); err != nil {
		return nil, 0, err
	} else if !ok {
		return nil, 0, store.ErrNotFound
	}
	s.beforeRead(ctx)
	// A run still going has marked nothing yet: what it has journaled so
	// far is copied for this read.
	if _, err := s.repo.materializeRunJudgments(ctx, f.AccountID, f.RunID); err != nil && ctx.Err() == nil {
		slog.Warn("materializing a run's evaluation results before a read", "run", f.RunID, "err", err)
	}
	return s.repo.results(ctx, f)
}

// Runs groups an agent's results by run.
func (s *Service) Runs(ctx context.Context, f ResultFilter) ([]RunEvaluations, int, error) {
	if err := s.agentExists(ctx, f.AccountID, f.AgentID); err != nil {
		return nil, 0, err
	}
	s.beforeRead(ctx)
	return s.repo.resultRuns(ctx, f)
}

func (s *Service) agentExists(ctx context.Context, accountID, agentID string) error {
	ok, err := s.Agents.AgentExists(ctx, accountID, agentID)
	if err == nil && !ok {
		err = store.ErrNotFound
	}
	return err
}

// Summary counts a criterion's results.
func (s *Service) Summary(ctx context.Context, accountID, criteriaID string) (ResultCounts, error) {
	if _, err := s.repo.criterion(ctx, accountID, criteriaID); err != nil {
		return ResultCounts{}, err
	}
	s.beforeRead(ctx)
	return s.repo.summary(ctx, accountID, criteriaID)
}

// NonManualSummary counts results of the automatic modes since from, for
// the account or one agent (which must exist).
func (s *Service) NonManualSummary(ctx context.Context, accountID, agentID string, from time.Time, to *time.Time) ([]ModeCounts, error) {
	if agentID != "" {
		if err := s.agentExists(ctx, accountID, agentID); err != nil {
			return nil, err
		}
	}
	s.beforeRead(ctx)
	return s.repo.nonManualCounts(ctx, accountID, agentID, from, to)
}

// DailyResults adds up an agent's results per UTC day of the last days
// days (today the last of them).
func (s *Service) DailyResults(ctx context.Context, accountID, agentID string, days int, now time.Time) ([]DayResultCounts, error) {
	if err := s.agentExists(ctx, accountID, agentID); err != nil {
		return nil, err
	}
	s.beforeRead(ctx)
	return s.repo.dailyResultCounts(ctx, accountID, agentID, now.UTC().AddDate(0, 0, 1-days))
}

// CompatibleRuns lists runs with a completed attempt of the criterion's step.
func (s *Service) CompatibleRuns(ctx context.Context, accountID, criteriaID string, startedAfter *time.Time, page, limit int) ([]CompatibleRun, int, error) {
	c, err := s.repo.criterion(ctx, accountID, criteriaID)
	if err != nil {
		return nil, 0, err
	}
	if c.StepID == "" {
		return nil, 0, nil
	}
	return s.repo.compatibleRuns(ctx, accountID, c.AgentID, c.StepID, startedAfter, paging.Offset(page, limit), limit)
}

// Draft is an ephemeral evaluation.
type Draft struct {
	StepOutput       *string
	AgentInput       *string
	AgentStepRunID   string
	EvaluationPrompt *string
	Expectation      json.RawMessage
	PassThreshold    float64
	Tier             *string
}

// ErrNothingToEvaluate: a draft names neither output nor a step run.
var ErrNothingToEvaluate = fault.FieldSentinel([]any{"body", "step_output"}, "value_error", "give step_output or agent_step_run_id")

// TestDraft judges a draft without recording anything and without
// charging credits: the judge runs on the unmetered router.
func (s *Service) TestDraft(ctx context.Context, accountID, agentID string, d Draft) (Judgment, error) {
	st, err := s.Agents.AgentSettings(ctx, accountID, agentID)
	if err != nil {
		return Judgment{}, err
	}
	if d.EvaluationPrompt != nil && len(*d.EvaluationPrompt) > maxPromptLen {
		return Judgment{}, invalid("evaluation_prompt is at most 20000 characters")
	}
	exp, err := ParseExpectation(d.Expectation)
	if err != nil {
		return Judgment{}, invalidBecause(err)
	}
	j := Judging{Expect: exp, Threshold: d.PassThreshold}
	if d.EvaluationPrompt != nil {
		j.Prompt = *d.EvaluationPrompt
	}
	if d.AgentInput != nil {
		j.AgentInput = *d.AgentInput
	}
	switch {
	case d.StepOutput != nil:
		j.Output = *d.StepOutput
	case d.AgentStepRunID != "":
		out, in, _, err := s.repo.stepRunOutput(ctx, accountID, agentID, d.AgentStepRunID)
		if err != nil {
			return Judgment{}, err
		}
		j.Output = out
		if d.AgentInput == nil {
			j.AgentInput = in
		}
	default:
		return Judgment{}, ErrNothingToEvaluate
	}
	j.Tier = tierOf(d.Tier, st.DefaultEvaluationTier)
	var router llm.Provider = s.Router
	if s.Router == nil {
		router = s.Model
	}
	g := judger{model: router, pick: s.pickModel}
	return g.judge(ctx, j), nil
}

func tierOf(t, def *string) string {
	if t != nil && *t != "" {
		return *t
	}
	if def != nil {
		return *def
	}
	return ""
}
