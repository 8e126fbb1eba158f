package evals

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/telemetry"
)

// RegisterSteps registers evaluate_step on an engine's registry.
func (s *Service) RegisterSteps(r *engine.Registry) {
	r.Register(definition.StepEvaluateStep, engine.HandlerFunc(s.evaluateStep))
}

// evaluateStep judges the output of target_step_id and emits
// {"score", "passed", "pass_threshold", "explanation", "checks"}. The
// judge's model call is the run's, metered like its other steps.
func (s *Service) evaluateStep(ctx context.Context, x *engine.Exec) (engine.Result, error) {
	target, _ := x.Step.String("target_step_id")
	if target == "" {
		return engine.Result{}, fmt.Errorf("evaluate_step needs target_step_id")
	}
	if err := x.WaitFor(ctx, target); err != nil {
		return engine.Result{}, err
	}
	output, err := x.Render("{{step." + target + ".output}}")
	if err != nil {
		return engine.Result{}, err
	}
	prompt, err := x.Field("evaluation_prompt", "")
	if err != nil {
		return engine.Result{}, err
	}
	threshold, ok := x.Step.Number("pass_threshold")
	if !ok {
		threshold = 0.5
	}
	var cfg json.RawMessage
	if m, ok := x.Step.Config["expectation_config"]; ok && m != nil {
		cfg, _ = json.Marshal(m)
	}
	exp, err := ParseExpectation(cfg)
	if err != nil {
		return engine.Result{}, err
	}
	tier, _ := x.Step.String("evaluation_tier")
	if tier == "" {
		if st, err := s.Agents.AgentSettings(ctx, x.Run.AccountID, x.Run.AgentID); err == nil && st.DefaultEvaluationTier != nil {
			tier = *st.DefaultEvaluationTier
		}
	}
	g := judger{model: x.Host().Model(), cat: s.Catalog, pick: s.pickModel, meta: x.Meta("evaluation")}
	jctx, span := telemetry.StartEvaluation(ctx, "evaluate_step:"+x.Step.ID)
	j := g.judge(jctx, Judging{Prompt: prompt, Tier: tier, Expect: exp, Threshold: threshold, Output: output, AgentInput: x.Run.Input})
	score := j.Score
	span.EvaluationOutcome("evaluate_step:"+x.Step.ID, j.Status, &score)
	span.End(nil)
	if j.Status == "error" {
		return engine.Result{}, fmt.Errorf("evaluate_step: %s", j.Explanation)
	}
	checks := j.Checks
	if checks == nil {
		checks = []Check{}
	}
	b, _ := json.Marshal(map[string]any{"score": j.Score, "passed": j.Passed, "pass_threshold": threshold,
		"explanation": j.Explanation, "checks": checks})
	return engine.Result{Output: string(b), ContentType: "application/json", Credits: j.Credits}, nil
}
