package engine

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/llm"
)

// Exec is a step handler's view of the run: the step, its input, template
// rendering, sub-trees, events and the host.
type Exec struct {
	x     *execution
	Run   *Run
	Step  *definition.Step
	Key   string
	Input string
	Scope string
	// Extra carries values the engine hands a step (a join's branch outputs).
	Extra map[string]any
	// Feedback is an evaluation's feedback on the step's previous
	// attempt, which a model step adds to its prompt.
	Feedback string

	credits float64
	// model and usage are the step's model calls (the last model named,
	// the tokens of all), for its journal record.
	model string
	usage llm.Usage
}

// Host returns the platform services.
func (ex *Exec) Host() Host { return ex.x.host }

// Engine returns the engine.
func (ex *Exec) Engine() *Engine { return ex.x.e }

// Render renders a template against the run's state, with vars as extra
// placeholders (such as {{findings}} or {{item}}).
func (ex *Exec) Render(tpl string, vars ...map[string]string) (string, error) {
	var extra map[string]string
	if len(vars) > 0 {
		extra = vars[0]
	}
	return render(tpl, ex.lookup(extra), ex.x.budget.limits.MaxStepOutputBytes)
}

// Field renders a template field of the step, or def when absent.
func (ex *Exec) Field(name, def string) (string, error) {
	tpl, ok := ex.Step.String(name)
	if !ok {
		tpl = def
	}
	return ex.Render(tpl)
}

// RunSteps runs a sub-tree (a branch, a loop body) with input and returns
// its result; scope qualifies the keys of its steps (loop items).
func (ex *Exec) RunSteps(ctx context.Context, steps []*definition.Step, input, scope string) (output string, stopped bool, err error) {
	r, err := ex.x.runList(ctx, steps, input, ex.Scope+scope)
	return r.output, r.stopped, err
}

// WaitFor blocks until another step has run.
func (ex *Exec) WaitFor(ctx context.Context, stepID string) error { return ex.x.waitFor(ctx, stepID) }

// Emit sends run events.
func (ex *Exec) Emit(ctx context.Context, evs ...Event) error {
	for i := range evs {
		if evs[i].Data == nil {
			evs[i].Data = map[string]any{}
		}
		evs[i].Data["run_id"] = ex.Run.ID
		evs[i].Data["step_id"] = ex.Step.ID
	}
	return ex.x.journal.Emit(context.WithoutCancel(ctx), evs...)
}

// Charge adds model usage to the step's credits.
func (ex *Exec) Charge(model string, u llm.Usage) {
	ex.credits += ex.x.host.Price(model, u)
	ex.model = model
	ex.usage.Add(u)
}

// Meta says who pays for a model call of this step.
func (ex *Exec) Meta(purpose string) llm.CallMeta {
	return llm.CallMeta{AccountID: ex.Run.AccountID, Purpose: purpose, RunID: ex.Run.ID, StepID: ex.Step.ID}
}

// tokenStream batches stream tokens into few journal writes: a token is
// held at most TokenFlush, so the stream stays live while 100 tokens a
// second cost a handful of inserts rather than a hundred.
type tokenStream struct {
	ex      *Exec
	ctx     context.Context
	mu      sync.Mutex
	pending []Event
	timer   *time.Timer
	err     error
}

func (ex *Exec) newTokenStream(ctx context.Context) *tokenStream {
	return &tokenStream{ex: ex, ctx: ctx}
}

func (t *tokenStream) add(token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending = append(t.pending, Event{Type: "stream_token", Data: map[string]any{"token": token}})
	if t.timer == nil {
		t.timer = time.AfterFunc(t.ex.x.e.tokenFlush, t.flush)
	}
}

func (t *tokenStream) flush() {
	t.mu.Lock()
	evs := t.pending
	t.pending = nil
	t.timer = nil
	t.mu.Unlock()
	if len(evs) > 0 {
		if err := t.ex.Emit(t.ctx, evs...); err != nil {
			t.mu.Lock()
			t.err = err
			t.mu.Unlock()
		}
	}
}

func (t *tokenStream) close(tokens int) error {
	t.mu.Lock()
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	t.mu.Unlock()
	t.flush()
	_ = t.ex.Emit(t.ctx, Event{Type: "stream_end", Data: map[string]any{"tokens": strconv.Itoa(tokens)}})
	return t.err
}
