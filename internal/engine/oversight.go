package engine

import (
	"context"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/google/uuid"
)

// Oversight: areas that watch runs (governance checks input and output
// against policies, evaluations judge step outputs) add an Overseer to
// Engine.Overseers, as areas register step types. The engine knows them
// only through these interfaces.

// Overseer watches the runs it has something to say about.
type Overseer interface {
	// Watch returns what watches this run, or nil when nothing applies
	// to it (no policy, no criterion): then the run pays nothing more.
	Watch(ctx context.Context, run *Run) (Watcher, error)
}

// Watcher watches one run.
type Watcher interface {
	// CheckInput sees the run's input before its first step; an error
	// fails the run with that error as its reason.
	CheckInput(ctx context.Context, input string) error
	// HoldStream reports whether the tokens of step stepID must be held
	// until its output is checked (a blocked output is never streamed).
	HoldStream(stepID string) bool
	// AfterStep sees a step's output before it is journaled and handed on.
	AfterStep(ctx context.Context, c StepCheck) (Verdict, error)
}

// StepCheck is a finished step attempt, as an overseer sees it.
type StepCheck struct {
	Step        *definition.Step
	Key         string
	StepRunID   string // the attempt's journal id
	Input       string
	Output      string
	ContentType string
	// Retries is how many times an overseer has already had this step
	// run again (its feedback in each retry).
	Retries int
}

// Verdict is an overseer's decision on a step attempt.
type Verdict struct {
	// Block fails the step (and so the run) with this error, unretried.
	Block error
	// Retry runs the step again, with Feedback added to a model's prompt.
	Retry    bool
	Feedback string
	// Credits the check spent (judge calls), added to the step's.
	Credits float64
}

// watchers starts the engine's overseers on a run.
func (e *Engine) watchers(ctx context.Context, run *Run) ([]Watcher, error) {
	var out []Watcher
	for _, o := range e.Overseers {
		w, err := o.Watch(ctx, run)
		if err != nil {
			return nil, err
		}
		if w != nil {
			out = append(out, w)
		}
	}
	return out, nil
}

// holdStream reports whether any watcher holds step id's stream.
func (x *execution) holdStream(id string) bool {
	for _, w := range x.watch {
		if w.HoldStream(id) {
			return true
		}
	}
	return false
}

// afterStep asks every watcher in turn; the first block or retry wins.
func (x *execution) afterStep(ctx context.Context, c StepCheck) (Verdict, error) {
	var v Verdict
	for _, w := range x.watch {
		wv, err := w.AfterStep(ctx, c)
		v.Credits += wv.Credits
		if err != nil {
			return v, err
		}
		if wv.Block != nil || wv.Retry {
			wv.Credits = v.Credits
			return wv, nil
		}
	}
	return v, nil
}

// newStepRunID names a step attempt (a UUIDv7, like every id).
func newStepRunID() string { return uuid.Must(uuid.NewV7()).String() }

// feedbackPrompt is how an evaluation's feedback reaches a retried model step.
func feedbackPrompt(feedback string) string {
	return "Your previous answer to this request did not pass its evaluation. The evaluator's feedback:\n" + feedback +
		"\n\nAnswer the request again, fixing what the feedback names."
}
