package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/telemetry"
	"golang.org/x/sync/errgroup"
)

// execution is the state of one Execute call.
type execution struct {
	e       *Engine
	def     *definition.Definition
	run     *Run
	journal Journal
	host    Host
	parents map[string]*definition.Step // step id → parent step (nil for roots)

	mu      sync.Mutex
	done    map[string]StepRecord // resumable completions by key
	outputs map[string]stepIO     // by key, for {{step.<id>…}}
	retries map[string]int        // retry target id → retries taken
	final   *branchResult
	credits float64
	errors  int
	waiters map[string][]chan struct{}
	budget  *runBudget
	watch   []Watcher
}

type stepIO struct{ input, output string }

// branchResult is what a chain of steps hands on.
type branchResult struct {
	output      string
	contentType string
	stopped     bool // the chain ended quietly (gate closed)
}

// retrySignal travels up from a retry step to its target ancestor.
type retrySignal struct {
	target string
	max    int
}

func (r *retrySignal) Error() string { return "retry from step " + r.target }

func parentIndex(def *definition.Definition) map[string]*definition.Step {
	idx := map[string]*definition.Step{}
	var walk func(parent *definition.Step, steps []*definition.Step)
	walk = func(parent *definition.Step, steps []*definition.Step) {
		for _, s := range steps {
			if s == nil {
				continue
			}
			idx[s.ID] = parent
			walk(s, s.Children)
			walk(s, s.Then)
			walk(s, s.Else)
			walk(s, s.Body)
			for _, c := range s.Cases {
				if c != nil {
					walk(s, c.Steps)
				}
			}
		}
	}
	walk(nil, def.Steps)
	return idx
}

// runList runs sibling steps. Non-join siblings are parallel branches; a
// join among them waits for all of them and combines their outputs. The
// list's result is the join's, or else the last branch's.
func (x *execution) runList(ctx context.Context, steps []*definition.Step, input, scope string) (branchResult, error) {
	var branches, joins []*definition.Step
	for _, s := range steps {
		if s == nil {
			continue
		}
		if s.Type == definition.StepJoin {
			joins = append(joins, s)
		} else {
			branches = append(branches, s)
		}
	}
	results := make([]branchResult, len(branches))
	if len(branches) == 1 {
		r, err := x.runStep(ctx, branches[0], input, scope)
		if err != nil {
			return branchResult{}, err
		}
		results[0] = r
	} else if len(branches) > 1 {
		g, gctx := errgroup.WithContext(ctx)
		for i, s := range branches {
			g.Go(func() error {
				r, err := x.runStep(gctx, s, input, scope)
				results[i] = r
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return branchResult{}, err
		}
	}
	var last branchResult
	for _, r := range results {
		if !r.stopped {
			last = r
		}
	}
	if len(branches) > 0 && last == (branchResult{}) {
		last = results[len(results)-1]
	}
	for _, j := range joins {
		outs := make([]string, 0, len(results))
		for _, r := range results {
			if !r.stopped {
				outs = append(outs, r.output)
			}
		}
		r, err := x.runStepWith(ctx, j, input, scope, map[string]any{"branch_outputs": outs})
		if err != nil {
			return branchResult{}, err
		}
		last = r
	}
	return last, nil
}

func (x *execution) runStep(ctx context.Context, s *definition.Step, input, scope string) (branchResult, error) {
	return x.runStepWith(ctx, s, input, scope, nil)
}

// runStepWith runs one step, then its children, and is where a retry aimed
// at this step lands: the step's subtree is invalidated and run again.
func (x *execution) runStepWith(ctx context.Context, s *definition.Step, input, scope string, extra map[string]any) (branchResult, error) {
	for {
		r, err := x.runOnce(ctx, s, input, scope, extra)
		var sig *retrySignal
		if !errors.As(err, &sig) || sig.target != s.ID {
			return r, err
		}
		x.mu.Lock()
		x.retries[s.ID]++
		n := x.retries[s.ID]
		x.mu.Unlock()
		if n > sig.max {
			return branchResult{}, &StepError{StepID: s.ID, StepType: string(s.Type), Err: fmt.Errorf("retried %d times without success", sig.max)}
		}
		telemetry.RetryFrom(ctx, s.ID, n, sig.max)
		keys := subtreeKeys(s, scope)
		if err := x.journal.Supersede(ctx, keys); err != nil {
			return branchResult{}, err
		}
		x.mu.Lock()
		for _, k := range keys {
			delete(x.done, k)
		}
		x.mu.Unlock()
	}
}

func subtreeKeys(s *definition.Step, scope string) []string {
	var keys []string
	var walk func(steps []*definition.Step)
	add := func(st *definition.Step) {
		keys = append(keys, scope+st.ID)
		walk(st.Children)
		walk(st.Then)
		walk(st.Else)
		walk(st.Body) // body items are scoped deeper; their keys carry the item
		for _, c := range st.Cases {
			if c != nil {
				walk(c.Steps)
			}
		}
	}
	walk = func(steps []*definition.Step) {
		for _, st := range steps {
			if st != nil {
				add(st)
			}
		}
	}
	add(s)
	return keys
}

func (x *execution) runOnce(ctx context.Context, s *definition.Step, input, scope string, extra map[string]any) (branchResult, error) {
	if err := ctx.Err(); err != nil {
		return branchResult{}, err
	}
	key := scope + s.ID
	if err := x.budget.step(); err != nil {
		return branchResult{}, &StepError{StepID: s.ID, StepType: string(s.Type), Err: err}
	}
	x.mu.Lock()
	rec, resumed := x.done[key]
	x.mu.Unlock()
	var res Result
	if in, ok := x.run.StepInputs[key]; ok {
		input = in
	}
	if resumed {
		res = Result{Output: rec.Output, ContentType: rec.ContentType, Stop: rec.Stopped, Final: rec.Final}
	} else {
		var err error
		res, err = x.attempt(ctx, s, key, input, scope, extra)
		if err != nil {
			return branchResult{}, err
		}
	}
	x.setOutput(key, s.ID, input, res.Output)
	out := branchResult{output: res.Output, contentType: res.ContentType, stopped: res.Stop}
	if res.Final {
		x.mu.Lock()
		f := out
		x.final = &f
		x.mu.Unlock()
	}
	if res.Stop || res.SkipChildren || len(s.Children) == 0 {
		return out, nil
	}
	child, err := x.runList(ctx, s.Children, res.Output, scope)
	if err != nil {
		return branchResult{}, err
	}
	return child, nil
}

// attempt runs a step's handler, journaling each attempt, retrying
// transient failures with backoff. Overseers see each successful attempt's
// output before it is journaled: they may block it (the step fails) or
// have the step run again with their feedback (evaluations).
func (x *execution) attempt(ctx context.Context, s *definition.Step, key, input, scope string, extra map[string]any) (Result, error) {
	h, _ := x.e.Registry.Handler(s.Type)
	backoff := x.e.backoff
	feedback, judged := "", 0
	for n, tries := 1, 1; ; n++ {
		if n > 1 {
			// A further attempt is one more step run.
			if err := x.budget.step(); err != nil {
				return Result{}, &StepError{StepID: s.ID, StepType: string(s.Type), Err: err}
			}
		}
		rec := StepRecord{ID: newStepRunID(), Key: key, StepID: s.ID, StepType: string(s.Type), Status: StatusProcessing, Input: input, StartedAt: time.Now().UTC(), Attempt: n}
		if err := x.journal.StepStarted(ctx, rec); err != nil {
			return Result{}, err
		}
		ex := &Exec{x: x, Run: x.run, Step: s, Key: key, Input: input, Scope: scope, Extra: extra, Feedback: feedback}
		sctx, span := telemetry.StartStep(ctx, s.ID, key, string(s.Type), n)
		if x.withholdContent(s.ID) {
			sctx = telemetry.WithoutContent(sctx)
		}
		res, err := h.Execute(sctx, ex)
		if lerr := x.checkOutput(res, err); lerr != nil {
			res.Output, err = "", lerr
		}
		var verdict Verdict
		if err == nil && len(x.watch) > 0 {
			var verr error
			verdict, verr = x.afterStep(sctx, StepCheck{Step: s, Key: key, StepRunID: rec.ID, Input: input, Output: res.Output,
				ContentType: res.ContentType, Retries: judged})
			switch {
			case verr != nil:
				err = verr
			case verdict.Block != nil:
				res.Output, err = "", verdict.Block
			}
		}
		span.End(sctx, stepStatus(err, verdict), len(res.Output), err, verdict.Block != nil)
		rec.EndedAt = time.Now().UTC()
		rec.Credits = res.Credits + ex.credits + verdict.Credits
		rec.Model, rec.InputTokens, rec.OutputTokens = ex.model, ex.usage.InputTokens, ex.usage.OutputTokens
		rec.Judgments = verdict.journaled()
		rec.ToolCalls = res.ToolCalls
		x.mu.Lock()
		x.credits += rec.Credits
		x.mu.Unlock()
		if err == nil && verdict.Retry {
			// The output did not pass its evaluation: this attempt is
			// kept as failed, and the step runs again with the feedback.
			rec.Status, rec.Output, rec.ContentType = StatusFailed, res.Output, res.ContentType
			rec.Error = "evaluation failed; running the step again with the judge's feedback: " + verdict.Feedback
			if ferr := x.journal.StepFinished(context.WithoutCancel(ctx), rec); ferr != nil {
				return Result{}, ferr
			}
			feedback, judged = verdict.Feedback, judged+1
			telemetry.EvaluationRetry(sctx, n+1)
			continue
		}
		var sig *retrySignal
		if err == nil || errors.As(err, &sig) || errors.Is(err, ErrParked) {
			rec.Status, rec.Output, rec.ContentType, rec.Stopped, rec.Final = StatusCompleted, res.Output, res.ContentType, res.Stop, res.Final
			if errors.Is(err, ErrParked) {
				rec.Status = StatusProcessing
			}
			if ferr := x.journal.StepFinished(ctx, rec); ferr != nil {
				return Result{}, ferr
			}
			return res, err
		}
		rec.Status, rec.Error = StatusFailed, err.Error()
		x.mu.Lock()
		x.errors++
		x.mu.Unlock()
		if ferr := x.journal.StepFinished(context.WithoutCancel(ctx), rec); ferr != nil {
			return Result{}, ferr
		}
		if tries >= x.e.stepAttempts || !transient(err) || ctx.Err() != nil {
			return Result{}, &StepError{StepID: s.ID, StepType: string(s.Type), Err: err}
		}
		tries++
		telemetry.StepRetry(sctx, n+1, backoff, err)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
		backoff *= 2
	}
}

// stepStatus is an attempt's status for its span: completed, waiting
// (parked for a review), or failed (an error, a block, or an evaluation
// that sends the step round again).
func stepStatus(err error, v Verdict) string {
	var sig *retrySignal
	switch {
	case errors.Is(err, ErrParked):
		return "waiting"
	case err == nil && v.Retry:
		return StatusFailed
	case err == nil || errors.As(err, &sig):
		return StatusCompleted
	}
	return StatusFailed
}

// checkOutput holds a step's output to the step and run limits. Handlers
// that build output stop at the step limit themselves; this catches every
// other step type, areas' included, before the output is journaled.
func (x *execution) checkOutput(res Result, err error) error {
	var sig *retrySignal
	if err != nil && !errors.As(err, &sig) && !errors.Is(err, ErrParked) {
		return nil // a failure: its output is not kept
	}
	return x.budget.output(res.Output)
}

func (x *execution) setOutput(key, id, input, output string) {
	x.mu.Lock()
	x.outputs[key] = stepIO{input: input, output: output}
	if key != id {
		// The latest item's values also answer unscoped references.
		x.outputs[id] = stepIO{input: input, output: output}
	}
	ws := x.waiters[id]
	delete(x.waiters, id)
	x.mu.Unlock()
	for _, w := range ws {
		close(w)
	}
}

// waitFor blocks until step id has an output (merge waits for the steps it
// references in other branches).
func (x *execution) waitFor(ctx context.Context, id string) error {
	x.mu.Lock()
	if _, ok := x.outputs[id]; ok {
		x.mu.Unlock()
		return nil
	}
	if x.waiters == nil {
		x.waiters = map[string][]chan struct{}{}
	}
	ch := make(chan struct{})
	x.waiters[id] = append(x.waiters[id], ch)
	x.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
