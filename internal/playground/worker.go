package playground

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/offline"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// RunArgs is the job that runs one experiment.
type RunArgs struct {
	ExperimentID string `json:"experiment_id"`
}

// Kind names the job.
func (RunArgs) Kind() string { return "playground_experiment" }

// Worker runs experiments.
type Worker struct {
	river.WorkerDefaults[RunArgs]
	S *Service
}

// Work implements river.Worker. Problems with the models are recorded in
// the experiment and end the job; only database failures are returned,
// so River retries the job (which then resumes: models already answered
// are not called, nor billed, again).
func (w *Worker) Work(ctx context.Context, job *river.Job[RunArgs]) error {
	return w.S.execute(ctx, job.Args.ExperimentID, job.Attempt < job.MaxAttempts)
}

// AddWorkers registers the area's job kinds.
func AddWorkers(workers *river.Workers, s *Service) {
	river.AddWorker(workers, &Worker{S: s})
}

// execute runs an experiment. canRetry says whether River will run the
// job again if it returns an error.
func (s *Service) execute(ctx context.Context, id string, canRetry bool) error {
	e, err := s.repo.forWorker(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil // deleted with its account
	}
	if err != nil {
		return err
	}
	r := &runner{s: s, e: e, meta: llm.CallMeta{AccountID: e.AccountID, Purpose: "playground", ExperimentID: e.ID}}
	r.load()
	ok, err := s.repo.start(ctx, id, r.total(), fmt.Sprintf("Running %d models", len(e.ModelIDs)))
	if err != nil || !ok {
		return err // cancelled or finished before it started
	}

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.running.Store(id, cancel)
	defer s.running.Delete(id)
	go s.watchCancel(runCtx, id, cancel)

	r.run(runCtx)

	if errors.Is(ctx.Err(), context.Canceled) && canRetry {
		// The process is shutting down: keep what answered and let the
		// job run again elsewhere, where it resumes with the rest.
		r.save(context.WithoutCancel(ctx))
		return ctx.Err()
	}
	// The outcome is written even if the job's context ended: the calls
	// were made and billed, and their results belong to the experiment.
	return r.finish(context.WithoutCancel(ctx), context.Cause(runCtx))
}

// watchCancel polls for a cancel made on another replica.
func (s *Service) watchCancel(ctx context.Context, id string, cancel context.CancelCauseFunc) {
	every := s.CancelPoll
	if every <= 0 {
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if c, err := s.repo.cancelRequested(ctx, id); err == nil && c {
				cancel(errCanceled)
				return
			}
		}
	}
}

// runner is one execution of an experiment.
type runner struct {
	s    *Service
	e    Experiment
	meta llm.CallMeta

	mu      sync.Mutex
	res     Results
	done    int // progress steps finished
	model   llm.Provider
	spec    callSpec
	evalOn  bool
	structd bool
}

// load prepares the results, keeping those a previous attempt finished.
func (r *runner) load() {
	var prev Results
	if len(r.e.ResultData) > 0 {
		_ = json.Unmarshal(r.e.ResultData, &prev)
	}
	kept := map[string]ModelResult{}
	for _, m := range prev.Models {
		if m.Status == CallCompleted {
			kept[m.ModelID] = m
		}
	}
	r.evalOn = r.e.EvaluationMode == ModePrompt && r.e.EvaluatorModelID != ""
	r.structd = r.s.structured(r.e.EvaluatorModelID)
	for _, id := range r.e.ModelIDs {
		mr, ok := kept[id]
		if !ok || (r.evalOn && !evaluationFinal(mr.Evaluation)) {
			mr = ModelResult{ModelID: id, Status: CallPending}
			if m, found := r.s.Catalog.Get(id); found {
				mr.ModelName, mr.Provider = m.Name, m.Provider
			}
		} else {
			r.done += r.steps()
		}
		r.res.Models = append(r.res.Models, mr)
	}
	tpl, _ := parseTemplate(r.e.JSONTemplate) // validated at creation
	r.spec = callSpec{prompt: r.e.Prompt, system: r.e.SystemPrompt, template: tpl,
		stepOutput: stepOutput(r.e.IncludeStepOutput, r.e.SelectedStepOutput)}
	r.model = billing.NewMetered(r.s.Router, r.s.Meter, r.s.Catalog)
}

// steps is how many progress steps one model takes.
func (r *runner) steps() int {
	if r.evalOn {
		return 2
	}
	return 1
}

func (r *runner) total() int { return len(r.e.ModelIDs) * r.steps() }

// run calls every pending model at once, each followed by its evaluation.
func (r *runner) run(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range r.res.Models {
		if r.res.Models[i].Status != CallPending {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.callModel(ctx, i)
			if r.evalOn {
				r.evaluate(ctx, i)
			}
		}()
	}
	wg.Wait()
}

func (r *runner) callModel(ctx context.Context, i int) {
	r.mu.Lock()
	id := r.res.Models[i].ModelID
	r.mu.Unlock()
	req := r.spec.request(id)
	req.Meta = r.meta
	start := time.Now()
	resp, err := r.model.Chat(ctx, req)
	var rec *billing.RecordError
	if errors.As(err, &rec) && resp != nil {
		// The call succeeded; only its bookkeeping failed. Keep the answer.
		slog.ErrorContext(ctx, "playground usage not recorded", "experiment_id", r.e.ID, "model", id, "err", err)
		err = nil
	}
	r.mu.Lock()
	mr := &r.res.Models[i]
	mr.LatencyMS = time.Since(start).Milliseconds()
	if err != nil {
		mr.Status, mr.Error = callStatus(ctx, err), callError(ctx, err)
	} else {
		out := resp.Text()
		mr.Status, mr.Output, mr.FinishReason = CallCompleted, &out, string(resp.FinishReason)
		mr.InputTokens, mr.OutputTokens, mr.TotalTokens = resp.Usage.InputTokens, resp.Usage.OutputTokens, resp.Usage.Total()
		mr.Credits = r.credits(id, resp.Usage)
	}
	r.mu.Unlock()
	r.step(ctx, "model calls")
}

func (r *runner) evaluate(ctx context.Context, i int) {
	r.mu.Lock()
	mr := r.res.Models[i]
	r.mu.Unlock()
	ev := &Evaluation{EvaluatorModelID: r.e.EvaluatorModelID, Status: CallSkipped}
	if mr.Status == CallCompleted && mr.Output != nil {
		req := evaluationRequest(r.e.EvaluatorModelID, r.e.EvaluationComplexity, r.e.Prompt, r.e.SystemPrompt,
			r.spec.stepOutput, *mr.Output, r.structd)
		req.Meta = r.meta
		start := time.Now()
		resp, err := r.model.Chat(ctx, req)
		var rec *billing.RecordError
		if errors.As(err, &rec) && resp != nil {
			err = nil
		}
		ev.LatencyMS = time.Since(start).Milliseconds()
		if err == nil {
			ev.InputTokens, ev.OutputTokens = resp.Usage.InputTokens, resp.Usage.OutputTokens
			ev.Credits = r.credits(r.e.EvaluatorModelID, resp.Usage)
			err = parseEvaluation(resp.Text(), ev)
		}
		switch {
		case errors.Is(err, offline.ErrCannotJudge):
			ev.Status, ev.Error = CallUnavailable, err.Error()
		case err != nil:
			ev.Status, ev.Error = callStatus(ctx, err), callError(ctx, err)
		default:
			ev.Status = CallCompleted
		}
	}
	r.mu.Lock()
	r.res.Models[i].Evaluation = ev
	r.mu.Unlock()
	r.step(ctx, "steps")
}

// step counts one finished step and saves the progress with the results
// so far, so a client polling the experiment sees outputs as they come.
func (r *runner) step(ctx context.Context, what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done++
	msg := fmt.Sprintf("%d of %d %s finished", r.done, r.total(), what)
	if r.evalOn {
		msg = fmt.Sprintf("%d of %d calls and evaluations finished", r.done, r.total())
	}
	body, _ := json.Marshal(r.res)
	if err := r.s.repo.progress(context.WithoutCancel(ctx), r.e.ID, r.done, msg, body); err != nil {
		slog.WarnContext(ctx, "playground progress not saved", "experiment_id", r.e.ID, "err", err)
	}
}

// save stores the results so far, dropping the calls a shutdown broke off
// so the next attempt makes them again.
func (r *runner) save(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	done := 0
	for i, m := range r.res.Models {
		if m.Status != CallCompleted || r.evalOn && !evaluationFinal(m.Evaluation) {
			r.res.Models[i] = ModelResult{ModelID: m.ModelID, ModelName: m.ModelName, Provider: m.Provider, Status: CallPending}
			continue
		}
		done += r.steps()
	}
	body, _ := json.Marshal(r.res)
	if err := r.s.repo.progress(ctx, r.e.ID, done, "Interrupted; resuming", body); err != nil {
		slog.WarnContext(ctx, "playground progress not saved", "experiment_id", r.e.ID, "err", err)
	}
}

// credits is what a call was billed: the catalog price the metered
// provider charged.
func (r *runner) credits(model string, u llm.Usage) int64 {
	c, err := r.s.Catalog.Price(model, catalog.TokenUsage{Input: u.InputTokens, Output: u.OutputTokens,
		CachedInput: u.CachedInputTokens, CacheWrite: u.CacheWriteTokens})
	if err != nil {
		return 0
	}
	return c.Credits
}

// finish writes the outcome: canceled when the user stopped it, failed
// when no model answered, completed otherwise; with the ranking and the
// totals as billed.
func (r *runner) finish(ctx context.Context, cause error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	answered, firstErr := 0, ""
	for _, m := range r.res.Models {
		if m.Status == CallCompleted {
			answered++
		} else if firstErr == "" && m.Error != "" {
			firstErr = fmt.Sprintf("%s: %s", m.ModelID, m.Error)
		}
	}
	if r.evalOn {
		r.res.Evaluation = r.summary()
	}
	if t, err := billing.NewCredits(r.s.DB).UsageOf(ctx, r.e.AccountID, "experiment", r.e.ID); err == nil {
		r.res.Totals = Totals{Calls: t.Calls, InputTokens: t.InputTokens, OutputTokens: t.OutputTokens, Credits: t.Credits}
	}
	body, err := json.Marshal(r.res)
	if err != nil {
		return err
	}
	status, msg := StatusCompleted, "Completed"
	var errMsg *string
	switch {
	case errors.Is(cause, errCanceled):
		status, msg = StatusCanceled, "Canceled"
	case answered == 0:
		e := fmt.Sprintf("no model answered (%s)", firstErr)
		if cause != nil {
			e = fmt.Sprintf("no model answered: %v", cause)
		}
		status, msg, errMsg = StatusFailed, "Failed", &e
	}
	_, err = r.s.repo.finish(ctx, r.e.ID, status, msg, errMsg, body)
	return err
}

// evaluationFinal says an evaluation needs no new attempt.
func evaluationFinal(ev *Evaluation) bool {
	return ev != nil && (ev.Status == CallCompleted || ev.Status == CallUnavailable)
}

// summary ranks the evaluated models, best first. A best model is named
// only when the evaluator judged every answer and one score is strictly
// highest: on a tie, or with an answer it could not judge, the ranking
// cannot single one out.
func (r *runner) summary() *EvaluationSummary {
	sum := &EvaluationSummary{Mode: ModePrompt, Complexity: r.e.EvaluationComplexity, EvaluatorModelID: r.e.EvaluatorModelID, Ranking: []string{}}
	type scored struct {
		id    string
		score float64
	}
	var list []scored
	unjudged := 0
	for _, m := range r.res.Models {
		switch {
		case m.Evaluation != nil && m.Evaluation.Score != nil:
			list = append(list, scored{m.ModelID, *m.Evaluation.Score})
		case m.Status == CallCompleted:
			unjudged++ // answered, but the evaluator gave no score
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].score > list[j].score })
	for _, x := range list {
		sum.Ranking = append(sum.Ranking, x.id)
	}
	if len(list) > 0 && unjudged == 0 && (len(list) == 1 || list[0].score > list[1].score) {
		best := list[0].id
		sum.BestModelID = &best
	}
	return sum
}

// callStatus names how a failed call ended: canceled when the user
// stopped the experiment, failed otherwise.
func callStatus(ctx context.Context, err error) string {
	if errors.Is(context.Cause(ctx), errCanceled) {
		return CallCanceled
	}
	return CallFailed
}

// callError says why a call failed, in words a user can act on.
func callError(ctx context.Context, err error) string {
	switch {
	case errors.Is(context.Cause(ctx), errCanceled):
		return "canceled"
	case errors.Is(err, llm.ErrInsufficientCredits):
		return "insufficient credits: the account cannot pay for this call"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	}
	return err.Error()
}
