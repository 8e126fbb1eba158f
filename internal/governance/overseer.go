package governance

import (
	"context"
	"log/slog"

	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/telemetry"
)

// Overseer applies the policies that govern an agent to its runs: the
// run's input before the first step, and every step's output that differs
// from its input (a step that passes its input on unchanged has nothing new
// to check). A flag is recorded and alerted and the run goes on; a block
// fails the run with the policy's reason, and the blocked output is neither
// journaled nor handed on nor streamed.
type Overseer struct{ S *Service }

// Watch loads the run's policies, once per oversight revision of the
// agent; nil when none has rules.
func (o Overseer) Watch(ctx context.Context, run *engine.Run) (engine.Watcher, error) {
	ps, ok := o.S.watching.Get(run.AccountID, run.AgentID, run.OversightRev)
	if !ok {
		var err error
		if ps, err = o.S.policiesFor(ctx, run.AccountID, run.AgentID); err != nil {
			return nil, err
		}
		o.S.watching.Put(run.AccountID, run.AgentID, run.OversightRev, ps)
	}
	if len(ps) == 0 {
		return nil, nil
	}
	return &watcher{s: o.S, run: run, policies: ps}, nil
}

type watcher struct {
	s        *Service
	run      *engine.Run
	policies []*Policy
}

func (w *watcher) at(stepID string) where {
	return where{accountID: w.run.AccountID, agentID: w.run.AgentID, runID: w.run.ID, stepID: stepID}
}

func (w *watcher) CheckInput(ctx context.Context, input string) error {
	checks := false
	for _, p := range w.policies {
		checks = checks || p.HasStage(StageInput)
	}
	if !checks {
		return nil
	}
	if input == "" {
		w.setInput(ctx, "skipped", nil)
		return nil
	}
	v, _, err := w.check(ctx, w.at(""), StageInput, input)
	if err != nil {
		return err
	}
	if v.Action != ActionBlock {
		w.setInput(ctx, "safe", nil)
	} else {
		// The stored input keeps no copy of what was blocked: each match
		// is replaced by its kind before the run fails (and so before its
		// snapshot, done event and search index are written).
		redacted := Redact(w.policies, StageInput, v, input)
		if w.s.RunInputs != nil {
			if err := w.s.RunInputs.SetRunGovernanceInput(context.WithoutCancel(ctx), w.run.AccountID, w.run.ID, "blocked", &redacted); err != nil {
				return err
			}
		}
	}
	if v.Action == "" {
		return nil
	}
	w.s.report(ctx, w.at(""), StageInput, v)
	if v.Action == ActionBlock {
		return &BlockedError{Verdict: v}
	}
	return nil
}

// setInput records the input check's outcome on the run; the run goes on
// whether or not that write succeeds.
func (w *watcher) setInput(ctx context.Context, status string, redacted *string) {
	if w.s.RunInputs == nil {
		return
	}
	if err := w.s.RunInputs.SetRunGovernanceInput(context.WithoutCancel(ctx), w.run.AccountID, w.run.ID, status, redacted); err != nil {
		slog.WarnContext(ctx, "recording the governance input status", "run_id", w.run.ID, "err", err)
	}
}

// WithholdContent: while a policy checks a step's output, the step's
// spans carry no prompt or completion text, even with content capture on,
// since the text may be what the policy then blocks.
func (w *watcher) WithholdContent(string) bool { return w.HoldStream("") }

// HoldStream: tokens wait for the output check when a policy checks output.
func (w *watcher) HoldStream(string) bool {
	for _, p := range w.policies {
		if p.HasStage(StageOutput) {
			return true
		}
	}
	return false
}

func (w *watcher) AfterStep(ctx context.Context, c engine.StepCheck) (engine.Verdict, error) {
	if c.Output == "" || c.Output == c.Input {
		return engine.Verdict{}, nil
	}
	at := w.at(c.Step.ID)
	v, credits, err := w.check(ctx, at, StageOutput, c.Output)
	if err != nil || v.Action == "" {
		return engine.Verdict{Credits: credits}, err
	}
	w.s.report(ctx, at, StageOutput, v)
	if v.Action == ActionBlock {
		if w.s.OutputBlocked != nil {
			w.s.OutputBlocked(context.WithoutCancel(ctx), w.run.AccountID, w.run.Metadata, v)
		}
		return engine.Verdict{Block: &BlockedError{Verdict: v}, Credits: credits}, nil
	}
	return engine.Verdict{Credits: credits}, nil
}

// check evaluates the run's policies inside a policy_check span, counting
// the outcome (allow, flag, block, error).
func (w *watcher) check(ctx context.Context, at where, stage, text string) (Verdict, float64, error) {
	ctx, span := telemetry.StartPolicyCheck(ctx, stage)
	v, credits, err := w.s.evaluate(ctx, at, w.policies, stage, text)
	outcome := v.Action
	switch {
	case err != nil:
		outcome = "error"
	case outcome == "":
		outcome = "allow"
	}
	span.PolicyOutcome(stage, outcome, v.PolicyID, v.Rule)
	span.End(err)
	return v, credits, err
}
