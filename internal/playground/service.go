package playground

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/models/routing"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Evaluation modes and complexities (PlaygroundCreateRequest).
const (
	ModeManual = "manual" // the user compares the outputs
	ModePrompt = "prompt" // an evaluator model scores each output

	ComplexitySimple  = "simple"
	ComplexityMedium  = "medium"
	ComplexityComplex = "complex"
)

// MaxModels bounds the models of one experiment.
const MaxModels = 10

// Enqueuer inserts jobs (*jobs.Queue).
type Enqueuer interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobRow, error)
}

// Service runs playground experiments.
type Service struct {
	DB      *store.DB
	repo    repo
	Queue   Enqueuer
	Router  *routing.Router // the configured providers, unmetered
	Catalog *catalog.Catalog
	Meter   llm.Meter
	// CancelPoll is how often a running experiment checks the database for
	// a cancel made on another replica (a cancel on this one is immediate).
	CancelPoll time.Duration

	running sync.Map // experiment id → context.CancelCauseFunc of its run here
}

// New builds the service: q takes experiment jobs, router answers them
// (unmetered) and meter charges them.
func New(db *store.DB, q Enqueuer, router *routing.Router, cat *catalog.Catalog, meter llm.Meter) *Service {
	return &Service{DB: db, repo: repo{db}, Queue: q, Router: router, Catalog: cat, Meter: meter}
}

// Problem is one thing wrong with a request, located like a 422 item.
type Problem struct {
	Loc  []any
	Msg  string
	Type string
}

// InvalidError lists what is wrong with a create request (422).
type InvalidError struct{ Problems []Problem }

// As reads the refusal as the fault vocabulary's Invalid.
func (e *InvalidError) As(target any) bool {
	t, ok := target.(**fault.Invalid)
	if ok {
		items := make([]fault.Item, len(e.Problems))
		for i, p := range e.Problems {
			items[i] = fault.Item{Loc: p.Loc, Msg: p.Msg, Type: p.Type}
		}
		*t = &fault.Invalid{Items: items, Err: e}
	}
	return ok
}

func (e *InvalidError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Msg
	}
	return strings.Join(msgs, "; ")
}

// errNoQueue: a process assembled without a job queue cannot run experiments.
var errNoQueue = errors.New("playground: no job queue in this process")

// ErrFinished: a completed or failed experiment cannot be cancelled (409).
var ErrFinished error = &fault.Conflict{Msg: "The experiment has already finished and cannot be canceled", Err: errors.New("the experiment has already finished")}

// CreateInput is a new experiment.
type CreateInput struct {
	AccountID, UserID    string
	Prompt               string
	SystemPrompt         string
	ModelIDs             []string
	EvaluationMode       string
	EvaluationComplexity string
	EvaluatorModelID     *string
	IncludeStepOutput    bool
	SelectedStepOutput   *string
	JSONTemplate         *string
}

// Create validates an experiment, checks that the account can pay for it,
// stores it as pending and schedules its job.
func (s *Service) Create(ctx context.Context, in CreateInput) (Experiment, error) {
	plan, err := s.plan(in)
	if err != nil {
		return Experiment{}, err
	}
	if err := billing.NewCredits(s.DB).Require(ctx, in.AccountID, float64(plan.estimate)); err != nil {
		return Experiment{}, err
	}
	total := plan.total()
	msg := "Queued"
	e, err := s.repo.create(ctx, Experiment{AccountID: in.AccountID, CreatedBy: in.UserID,
		Prompt: in.Prompt, SystemPrompt: in.SystemPrompt, ModelIDs: plan.models, EvaluationMode: plan.mode,
		EvaluationComplexity: plan.complexity, EvaluatorModelID: plan.evaluator, IncludeStepOutput: in.IncludeStepOutput,
		SelectedStepOutput: in.SelectedStepOutput, JSONTemplate: in.JSONTemplate,
		ProgressCurrent: new(int), ProgressTotal: &total, ProgressMessage: &msg})
	if err != nil {
		return Experiment{}, err
	}
	if s.Queue == nil {
		_ = s.fail(ctx, e.ID, "no job queue in this process")
		return Experiment{}, errNoQueue
	}
	if _, err := s.Queue.Insert(ctx, RunArgs{ExperimentID: e.ID}, &river.InsertOpts{MaxAttempts: 3}); err != nil {
		_ = s.fail(context.WithoutCancel(ctx), e.ID, "could not be queued: "+err.Error())
		return Experiment{}, err
	}
	return e, nil
}

func (s *Service) fail(ctx context.Context, id, msg string) error {
	_, err := s.repo.finish(ctx, id, StatusFailed, "Failed", &msg, nil)
	return err
}

// plan is a validated request: canonical model ids and what it may cost.
type plan struct {
	models     []string
	mode       string
	complexity string
	evaluator  string
	estimate   int64
}

// total is the number of steps progress counts: one call per model, and
// one evaluation per model when an evaluator scores them.
func (p plan) total() int {
	if p.mode == ModePrompt {
		return 2 * len(p.models)
	}
	return len(p.models)
}

// plan checks a request against the catalog and the configured providers
// and estimates its cost the way the metered provider will authorise it.
func (s *Service) plan(in CreateInput) (plan, error) {
	var probs []Problem
	bad := func(msg, typ string, loc ...any) {
		probs = append(probs, Problem{Loc: append([]any{"body"}, loc...), Msg: msg, Type: typ})
	}
	p := plan{mode: orDefault(in.EvaluationMode, ModeManual), complexity: orDefault(in.EvaluationComplexity, ComplexityMedium)}
	if strings.TrimSpace(in.Prompt) == "" {
		bad("prompt must not be empty", "value_error", "prompt")
	}
	if p.mode != ModeManual && p.mode != ModePrompt {
		bad("evaluation_mode must be manual or prompt", "enum", "evaluation_mode")
	}
	switch p.complexity {
	case ComplexitySimple, ComplexityMedium, ComplexityComplex:
	default:
		bad("evaluation_complexity must be simple, medium or complex", "enum", "evaluation_complexity")
	}
	if n := len(in.ModelIDs); n < 1 || n > MaxModels {
		bad(fmt.Sprintf("model_ids must list between 1 and %d models", MaxModels), "too_short", "model_ids")
	}
	seen := map[string]bool{}
	for i, id := range in.ModelIDs {
		m, msg := s.usable(id)
		switch {
		case msg != "":
			bad(msg, "value_error", "model_ids", i)
		case seen[m.ID]:
			bad(fmt.Sprintf("model %s is listed twice", m.ID), "value_error", "model_ids", i)
		default:
			seen[m.ID] = true
			p.models = append(p.models, m.ID)
		}
	}
	tpl, err := parseTemplate(in.JSONTemplate)
	if err != nil {
		bad(err.Error(), "value_error", "json_template")
	}
	if p.mode == ModePrompt {
		id := ""
		if in.EvaluatorModelID != nil {
			id = strings.TrimSpace(*in.EvaluatorModelID)
		}
		if id == "" && s.Router != nil {
			id = s.Router.DefaultModel(catalog.KindChat)
		}
		if m, msg := s.usable(id); msg != "" {
			bad(msg, "value_error", "evaluator_model_id")
		} else {
			p.evaluator = m.ID
		}
	} else if in.EvaluatorModelID != nil {
		// Kept as given, so a later look at the experiment shows it; it
		// is not called in manual mode.
		p.evaluator = strings.TrimSpace(*in.EvaluatorModelID)
	}
	if len(probs) > 0 {
		return plan{}, &InvalidError{Problems: probs}
	}
	spec := callSpec{prompt: in.Prompt, system: in.SystemPrompt, template: tpl,
		stepOutput: stepOutput(in.IncludeStepOutput, in.SelectedStepOutput)}
	for _, id := range p.models {
		est, err := billing.EstimateChatCredits(s.Catalog, id, spec.request(id))
		if err != nil {
			return plan{}, err
		}
		p.estimate += est
		if p.mode == ModePrompt {
			// The judge reads the prompt and an answer of up to the
			// estimated output size.
			ev := evaluationRequest(p.evaluator, p.complexity, in.Prompt, in.SystemPrompt, spec.stepOutput,
				strings.Repeat("x ", billing.DefaultOutputEstimate), s.structured(p.evaluator))
			if e, err := billing.EstimateChatCredits(s.Catalog, p.evaluator, ev); err == nil {
				p.estimate += e
			}
		}
	}
	return p, nil
}

// usable resolves a model id (catalog id or provider name) to an enabled
// chat model some configured provider serves, or says why not.
func (s *Service) usable(id string) (catalog.Model, string) {
	m, ok := s.Catalog.Get(strings.TrimSpace(id))
	switch {
	case !ok:
		return m, fmt.Sprintf("unknown model %q: see GET /models", id)
	case !m.Enabled:
		return m, fmt.Sprintf("model %s is not enabled", m.ID)
	case m.Kind != catalog.KindChat:
		return m, fmt.Sprintf("model %s is a %s model; the playground compares chat models", m.ID, m.Kind)
	}
	if s.Router != nil {
		if _, err := s.Router.Resolve(m.ID, catalog.KindChat); err != nil {
			return m, fmt.Sprintf("model %s cannot be called on this server: %v", m.ID, err)
		}
	}
	return m, ""
}

// structured reports whether a model takes a JSON schema for its answer.
func (s *Service) structured(id string) bool {
	m, ok := s.Catalog.Get(id)
	return ok && m.SupportsStructuredOutput
}

func stepOutput(include bool, out *string) string {
	if !include || out == nil {
		return ""
	}
	return *out
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Get returns one of an account's experiments.
func (s *Service) Get(ctx context.Context, accountID, id string) (Experiment, error) {
	return s.repo.experiment(ctx, accountID, id)
}

// List returns a page of an account's experiments created in [from, to).
func (s *Service) List(ctx context.Context, accountID string, from, to time.Time, offset, limit int) ([]Experiment, int, error) {
	return s.repo.list(ctx, accountID, from, to, offset, limit)
}

// Cancel stops a pending or running experiment: it is marked canceled at
// once, and its in-flight model calls are aborted (here at once, on
// another replica within CancelPoll). A finished one is ErrFinished.
func (s *Service) Cancel(ctx context.Context, accountID, id string) (Experiment, error) {
	e, err := s.repo.cancel(ctx, accountID, id)
	if errors.Is(err, store.ErrConflict) {
		return e, ErrFinished
	}
	if err != nil {
		return e, err
	}
	s.abort(id)
	return e, nil
}

// Delete soft-deletes an experiment, cancelling it if it still runs.
func (s *Service) Delete(ctx context.Context, accountID, id string) error {
	if err := s.repo.remove(ctx, accountID, id); err != nil {
		return err
	}
	s.abort(id)
	return nil
}

// errCanceled is the cause of a run's context when the user cancels it.
var errCanceled = errors.New("experiment canceled")

func (s *Service) abort(id string) {
	if c, ok := s.running.Load(id); ok {
		c.(context.CancelCauseFunc)(errCanceled)
	}
}
