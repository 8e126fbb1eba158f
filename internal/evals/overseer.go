package evals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/telemetry"
)

// Overseer judges the steps that have enabled criteria, as the agent's
// evaluation_mode says:
//
//   - eval_and_retry: every run. A failed judgment runs the step again
//     with the judge's feedback added to its prompt, up to max_retries
//     times when retry_on_failure is on; if it still fails, the run fails
//     with the judgment as its reason. With retry_on_failure off, the
//     failure is recorded (and alerted) and the run continues.
//   - sample_and_flag: a sample of runs (sampling_config.sample_rate, a
//     share from 0 to 1, default 0.1; chosen from the run id, so the same
//     run is always in or out). A failed judgment is recorded flagged,
//     and the run continues.
//   - output_expectation: nothing automatic; results are pushed or drafted.
//
// Every judgment is recorded as an evaluation result, and its model calls
// are metered to the account as evaluation credits.
type Overseer struct{ S *Service }

// Watch loads the agent's settings and criteria, once per oversight
// revision of the agent (see revcache): a run of an agent whose criteria
// and settings did not change reads nothing.
func (o Overseer) Watch(ctx context.Context, run *engine.Run) (engine.Watcher, error) {
	ov, ok := o.S.watching.Get(run.AccountID, run.AgentID, run.OversightRev)
	if !ok {
		var err error
		if ov, err = o.S.loadOversight(ctx, run.AccountID, run.AgentID); err != nil {
			return nil, err
		}
		o.S.watching.Put(run.AccountID, run.AgentID, run.OversightRev, ov)
	}
	if len(ov.byStep) == 0 {
		return nil, nil
	}
	if ov.settings.EvaluationMode == ModeSample && !sampled(run.ID, sampleRate(ov.settings.SamplingConfig)) {
		return nil, nil
	}
	return &watcher{s: o.S, run: run, mode: ov.settings.EvaluationMode, settings: ov.settings, byStep: ov.byStep}, nil
}

// agentOversight is what Watch loads for an agent: its settings and, when
// its mode judges runs, its enabled criteria by step, compiled. Runs share
// it; nothing changes it once loaded.
type agentOversight struct {
	settings agentrow.Settings
	byStep   map[string][]criterion
}

func (s *Service) loadOversight(ctx context.Context, accountID, agentID string) (*agentOversight, error) {
	st, err := s.Agents.AgentSettings(ctx, accountID, agentID)
	if errors.Is(err, store.ErrNotFound) {
		return &agentOversight{}, nil // a deleted agent's run: the runs area reports it
	}
	if err != nil {
		return nil, err
	}
	ov := &agentOversight{settings: st}
	if mode := st.EvaluationMode; mode != ModeRetry && mode != ModeSample {
		return ov, nil
	}
	cs, err := s.repo.enabledCriteria(ctx, accountID, agentID)
	if err != nil {
		return nil, err
	}
	ov.byStep = map[string][]criterion{}
	for _, c := range cs {
		exp, err := ParseExpectation(c.ExpectationConfig)
		if err != nil {
			// Imported criteria are not checked on import: one whose
			// config does not compile is judged by its prompt alone.
			exp = &Expectation{}
		}
		ov.byStep[c.StepID] = append(ov.byStep[c.StepID], criterion{row: c, exp: exp})
	}
	return ov, nil
}

// sampleRate reads sampling_config: sample_rate (0–1) or sample_percentage
// (0–100); 0.1 when absent.
func sampleRate(cfg json.RawMessage) float64 {
	var v struct {
		Rate    *float64 `json:"sample_rate"`
		Percent *float64 `json:"sample_percentage"`
	}
	_ = json.Unmarshal(cfg, &v)
	switch {
	case v.Rate != nil:
		return min(max(*v.Rate, 0), 1)
	case v.Percent != nil:
		return min(max(*v.Percent/100, 0), 1)
	}
	return 0.1
}

// sampled decides from the run id whether a run is in the sample.
func sampled(runID string, rate float64) bool {
	if rate >= 1 {
		return true
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(runID))
	return float64(h.Sum32()%10000) < rate*10000
}

type criterion struct {
	row EvaluationCriterion
	exp *Expectation
}

type watcher struct {
	s        *Service
	run      *engine.Run
	mode     string
	settings agentrow.Settings
	byStep   map[string][]criterion
}

func (w *watcher) CheckInput(context.Context, string) error { return nil }

// HoldStream: in eval_and_retry a judged step's tokens wait for its
// judgment, so a rejected attempt is never streamed.
func (w *watcher) HoldStream(stepID string) bool {
	return w.mode == ModeRetry && len(w.byStep[stepID]) > 0
}

func (w *watcher) AfterStep(ctx context.Context, c engine.StepCheck) (engine.Verdict, error) {
	cs := w.byStep[c.Step.ID]
	if len(cs) == 0 {
		return engine.Verdict{}, nil
	}
	g := judger{model: w.s.Model, cat: w.s.Catalog, pick: w.s.pickModel,
		meta: llm.CallMeta{AccountID: w.run.AccountID, Purpose: "evaluation", RunID: w.run.ID, StepID: c.Step.ID}}
	var v engine.Verdict
	var failed []string
	retriesLeft := w.mode == ModeRetry && w.settings.RetryOnFailure && c.Retries < w.settings.MaxRetries
	for _, cr := range cs {
		prompt := ""
		if cr.row.EvaluationPrompt != nil {
			prompt = *cr.row.EvaluationPrompt
		}
		jctx, span := telemetry.StartEvaluation(ctx, cr.row.ID)
		j := g.judge(jctx, Judging{Prompt: prompt, Tier: tierOf(cr.row.EvaluationTier, w.settings.DefaultEvaluationTier),
			Expect: cr.exp, Threshold: cr.row.PassThreshold, Output: c.Output, AgentInput: w.run.Input})
		v.Credits += j.Credits
		bad := j.Status == "failed"
		r := StepJudgment{ID: store.NewID(), CriteriaID: cr.row.ID, EvaluationMode: w.mode, Status: j.Status, RetryCount: c.Retries, RetryTriggered: bad && retriesLeft,
			Flagged: bad && (w.mode == ModeSample || !w.settings.RetryOnFailure), EvaluatedAt: store.Now()}
		if j.Status != "skipped" && j.Status != "error" {
			score := j.Score
			r.Score = &score
		}
		span.EvaluationOutcome(cr.row.ID, j.Status, r.Score)
		span.End(nil)
		// Journaled with the attempt (see repo.materializeJudgments):
		// the run writes nothing more for its judgments.
		b, err := json.Marshal(journaledJudgment{StepJudgment: r, Details: j.Details(cr.row.PassThreshold)})
		if err != nil {
			return v, fmt.Errorf("recording the evaluation of step %s: %w", c.Step.ID, err)
		}
		v.Judgments = append(v.Judgments, b)
		w.s.alert(ctx, EvaluationResult{ID: r.ID, AccountID: w.run.AccountID, AgentID: w.run.AgentID, CriteriaID: r.CriteriaID,
			AgentRunID: w.run.ID, AgentStepRunID: c.StepRunID, StepID: c.Step.ID, EvaluationMode: r.EvaluationMode, Status: r.Status,
			Score: r.Score, Flagged: r.Flagged}, j.Explanation)
		if bad {
			label := "criterion " + cr.row.ID
			if cr.row.Description != nil && *cr.row.Description != "" {
				label = fmt.Sprintf("criterion %q", *cr.row.Description)
			}
			failed = append(failed, label+":\n"+j.Feedback())
		}
	}
	if len(failed) == 0 || w.mode != ModeRetry || !w.settings.RetryOnFailure {
		return v, nil
	}
	feedback := strings.Join(failed, "\n")
	if retriesLeft {
		v.Retry, v.Feedback = true, feedback
		return v, nil
	}
	v.Block = &FailedError{StepID: c.Step.ID, Retries: c.Retries, Feedback: feedback}
	return v, nil
}

// journaledJudgment encodes as StepJudgment, its details encoded in
// the same pass (the outer Details hides the embedded one).
type journaledJudgment struct {
	StepJudgment
	Details ResultDetails `json:"details"`
}

// FailedError ends a run whose step kept failing its evaluation.
type FailedError struct {
	StepID   string
	Retries  int
	Feedback string
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("the output of step %s failed its evaluation after %d retries: %s", e.StepID, e.Retries, e.Feedback)
}
