package evals

import (
	"context"
	"errors"

	"github.com/agentry/agentry/internal/llm"
)

// Judging recorded runs after the fact: a regression run (internal/
// regressions) judges both the original run and its replay with the
// agent's criteria, exactly as the overseer judges a step as it runs, and
// records the verdicts in its own report, not as evaluation results (a
// replay is no production run).

// Verdict is one criterion's verdict on one recorded run.
type Verdict struct {
	CriteriaID  string   `json:"criteria_id"`
	StepID      string   `json:"step_id"`
	Status      string   `json:"status"` // passed, failed, skipped, error, or not_run
	Score       *float64 `json:"score"`
	Explanation string   `json:"explanation"`
}

// NotRun is the status of a criterion whose step did not complete in the
// run (it failed, or its branch was not taken).
const NotRun = "not_run"

// RecordedRun is what judging a recorded run reads of it.
type RecordedRun struct {
	Input  string
	Output string // the run's output ("" when it has none)
	Steps  []RecordedStep
}

// RecordedStep is one step attempt of a recorded run's journal, in the
// journal's order: what a criterion needs to find its step's output. The
// caller (internal/regressions) copies them from the runs area's rows.
type RecordedStep struct {
	StepID, Status, Output string
	Superseded             bool
}

// Criteria are an agent's enabled criteria and its default tier, read
// once for every run a regression judges.
type Criteria struct {
	rows        []EvaluationCriterion
	defaultTier *string
}

// Len is the number of enabled criteria.
func (c Criteria) Len() int { return len(c.rows) }

// EnabledCriteria reads an agent's enabled criteria.
func (s *Service) EnabledCriteria(ctx context.Context, accountID, agentID string) (Criteria, error) {
	st, err := s.Agents.AgentSettings(ctx, accountID, agentID)
	if err != nil {
		return Criteria{}, err
	}
	rows, err := s.repo.enabledCriteria(ctx, accountID, agentID)
	return Criteria{rows: rows, defaultTier: st.DefaultEvaluationTier}, err
}

// JudgeRecorded judges a recorded run with each criterion: the output of
// the criterion's step (its last completed attempt that was not
// superseded), or the run's output for a criterion of no step. Judge
// calls are metered to accountID under billedRunID. It answers the
// verdicts, whether the run passed (every criterion that judged an output
// passed) and the credits the judge calls cost.
func (s *Service) JudgeRecorded(ctx context.Context, accountID, billedRunID string, cs Criteria, run RecordedRun) ([]Verdict, bool, float64) {
	out := make([]Verdict, 0, len(cs.rows))
	passed, credits := true, 0.0
	for _, c := range cs.rows {
		output, ok := run.Output, true
		if c.StepID != "" {
			output, ok = lastOutput(run.Steps, c.StepID)
		}
		v := Verdict{CriteriaID: c.ID, StepID: c.StepID}
		if !ok {
			v.Status, v.Explanation = NotRun, "the step did not complete in this run: nothing to judge"
			out = append(out, v)
			continue
		}
		exp, err := ParseExpectation(c.ExpectationConfig)
		if err != nil {
			v.Status, v.Explanation = "error", errors.Join(errors.New("expectation_config"), err).Error()
			passed = false
			out = append(out, v)
			continue
		}
		prompt := ""
		if c.EvaluationPrompt != nil {
			prompt = *c.EvaluationPrompt
		}
		g := judger{model: s.Model, cat: s.Catalog, pick: s.pickModel,
			meta: llm.CallMeta{AccountID: accountID, Purpose: "evaluation", RunID: billedRunID, StepID: c.StepID}}
		j := g.judge(ctx, Judging{Prompt: prompt, Tier: tierOf(c.EvaluationTier, cs.defaultTier), Expect: exp,
			Threshold: c.PassThreshold, Output: output, AgentInput: run.Input})
		credits += j.Credits
		v.Status, v.Explanation = j.Status, j.Explanation
		if j.Status != "skipped" && j.Status != "error" {
			score := j.Score
			v.Score = &score
		}
		if j.Status == "failed" || j.Status == "error" {
			passed = false
		}
		out = append(out, v)
	}
	return out, passed, credits
}

// lastOutput is the output of the last completed, not superseded attempt
// of a step in a run's journal (ordered by id, so by time).
func lastOutput(steps []RecordedStep, stepID string) (string, bool) {
	out, ok := "", false
	for _, st := range steps {
		if st.StepID == stepID && st.Status == "completed" && !st.Superseded {
			out, ok = st.Output, true
		}
	}
	return out, ok
}
