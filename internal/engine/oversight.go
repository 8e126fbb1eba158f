package engine

import (
	"context"
	"encoding/json"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/google/uuid"
)

// Oversight: areas that watch runs (governance checks input and output
// against policies, evaluations judge step outputs) add an Overseer to
// the engine (Engine.AddOverseers), as areas register step types. The engine knows them
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
	// Judgments are records the overseer keeps of the check (one JSON
	// value each), journaled with the attempt in the same write, so they
	// are exactly as durable as the attempt they judged and cost no write
	// of their own. The overseer's area reads them back from the journal.
	Judgments []json.RawMessage
}

// watchers starts the engine's overseers on a run.
func (e *Engine) watchers(ctx context.Context, run *Run) ([]Watcher, error) {
	var out []Watcher
	for _, o := range e.overseers {
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

// ContentWithholder is a Watcher that may ask that a step's spans carry no
// message content (telemetry.WithoutContent): a governance policy that
// checks the step's output, whose text it may block.
type ContentWithholder interface {
	WithholdContent(stepID string) bool
}

// withholdContent reports whether any watcher asks that step id's spans
// carry no message content.
func (x *execution) withholdContent(id string) bool {
	for _, w := range x.watch {
		if cw, ok := w.(ContentWithholder); ok && cw.WithholdContent(id) {
			return true
		}
	}
	return false
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
		v.Judgments = append(v.Judgments, wv.Judgments...)
		if err != nil {
			return v, err
		}
		if wv.Block != nil || wv.Retry {
			wv.Credits, wv.Judgments = v.Credits, v.Judgments
			return wv, nil
		}
	}
	return v, nil
}

// journaled is the JSON array of a verdict's judgments, nil when none.
func (v Verdict) journaled() json.RawMessage {
	if len(v.Judgments) == 0 {
		return nil
	}
	// Each is JSON its overseer encoded: joined as they are, not
	// encoded again.
	n := 1
	for _, j := range v.Judgments {
		n += len(j) + 1
	}
	b := make([]byte, 0, n)
	for i, j := range v.Judgments {
		if i == 0 {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		b = append(b, j...)
	}
	return append(b, ']')
}

// newStepRunID names a step attempt (a UUIDv7, like every id).
func newStepRunID() string { return uuid.Must(uuid.NewV7()).String() }

// feedbackPrompt is how an evaluation's feedback reaches a retried model step.
func feedbackPrompt(feedback string) string {
	return "Your previous answer to this request did not pass its evaluation. The evaluator's feedback:\n" + feedback +
		"\n\nAnswer the request again, fixing what the feedback names."
}
