package evals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/offline"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/oversight"
)

// A judgment combines the deterministic checks of expectation_config, each
// a requirement, with an LLM-as-judge score when the criterion has an
// evaluation_prompt (or the expectation a reference answer):
//
//   - checks only: the score is the share of checks passed;
//   - judge only: the judge's score;
//   - both: the judge's score times the share of checks passed.
//
// It passes when every check passes and the score reaches pass_threshold.

// Judging is what to judge and how.
type Judging struct {
	Prompt     string // evaluation_prompt: the rubric; "" for none
	Tier       string
	Expect     *Expectation
	Threshold  float64
	Output     string
	AgentInput string
}

// Judgment is the verdict.
type Judgment struct {
	Score       float64
	Passed      bool
	Status      string // passed, failed, error
	Explanation string
	Checks      []Check
	JudgeModel  string
	JudgeScore  *float64
	Credits     float64
}

// Feedback is what a retried step is told.
func (j Judgment) Feedback() string {
	var parts []string
	for _, c := range j.Checks {
		if !c.Passed {
			parts = append(parts, "- "+c.Detail)
		}
	}
	if j.JudgeScore != nil || len(parts) == 0 {
		parts = append(parts, "- "+j.Explanation)
	}
	return strings.Join(parts, "\n")
}

// Details is the result's details object.
func (j Judgment) Details(threshold float64) ResultDetails {
	d := ResultDetails{Checks: j.Checks, Explanation: j.Explanation, JudgeModel: j.JudgeModel, JudgeScore: j.JudgeScore, PassThreshold: threshold}
	if d.Checks == nil {
		d.Checks = []Check{}
	}
	return d
}

// ResultDetails is a result's details object; a struct, not a map, so a
// judgment encodes without sorting keys at every step (its fields are in
// the order a map's sorted keys gave before).
type ResultDetails struct {
	Checks        []Check  `json:"checks"`
	Explanation   string   `json:"explanation"`
	JudgeModel    string   `json:"judge_model,omitempty"`
	JudgeScore    *float64 `json:"judge_score,omitempty"`
	PassThreshold float64  `json:"pass_threshold"`
}

var judgeSchema = json.RawMessage(`{"type":"object","properties":{"score":{"type":"number","minimum":0,"maximum":1},"reasoning":{"type":"string"}},"required":["score","reasoning"],"additionalProperties":false}`)

// judger calls the judge model: the metered provider for recorded
// evaluations, the unmetered router for drafts.
type judger struct {
	model llm.Provider
	cat   *catalog.Catalog
	pick  func(tier string) string
	meta  llm.CallMeta
}

// judge evaluates j.
func (g judger) judge(ctx context.Context, j Judging) Judgment {
	var out Judgment
	if j.Expect == nil {
		j.Expect = &Expectation{}
	}
	out.Checks = j.Expect.Check(j.Output)
	passed := 0
	for _, c := range out.Checks {
		if c.Passed {
			passed++
		}
	}
	share := 1.0
	var why []string
	if len(out.Checks) > 0 {
		share = float64(passed) / float64(len(out.Checks))
		why = append(why, fmt.Sprintf("%d of %d expectation checks passed.", passed, len(out.Checks)))
		for _, c := range out.Checks {
			if !c.Passed {
				why = append(why, strings.ToUpper(c.Detail[:1])+c.Detail[1:]+".")
			}
		}
	}
	out.Score = share
	if strings.TrimSpace(j.Prompt) != "" || j.Expect.Reference != "" {
		score, reasoning, model, credits, err := g.callJudge(ctx, j)
		out.JudgeModel, out.Credits = model, credits
		if err != nil {
			out.Status, out.Score = "error", 0
			msg := "the judge could not score the output: " + err.Error()
			if errors.Is(err, offline.ErrCannotJudge) {
				msg = err.Error()
			}
			out.Explanation = strings.Join(append(why, msg), " ")
			return out
		}
		out.JudgeScore = &score
		out.Score = score * share
		why = append(why, fmt.Sprintf("The judge (%s) scored %.2f: %s", model, score, reasoning))
	} else if len(out.Checks) == 0 {
		out.Status, out.Explanation = "skipped", "The criterion has neither an evaluation prompt nor expectation checks: nothing to judge."
		return out
	}
	out.Score = math.Round(out.Score*1000) / 1000
	out.Passed = passed == len(out.Checks) && out.Score >= j.Threshold
	out.Status = "failed"
	if out.Passed {
		out.Status = "passed"
	}
	why = append(why, fmt.Sprintf("Score %.2f against a pass threshold of %.2f: %s.", out.Score, j.Threshold, out.Status))
	out.Explanation = strings.Join(why, " ")
	return out
}

func (g judger) callJudge(ctx context.Context, j Judging) (float64, string, string, float64, error) {
	model := g.pick(j.Tier)
	var user strings.Builder
	if strings.TrimSpace(j.Prompt) != "" {
		user.WriteString("Evaluation criteria:\n" + j.Prompt + "\n\n")
	}
	if j.AgentInput != "" {
		user.WriteString("Input:\n" + j.AgentInput + "\n\n")
	}
	if j.Expect.Reference != "" {
		user.WriteString("Reference output:\n" + j.Expect.Reference + "\n\n")
	}
	user.WriteString("Response to evaluate:\n" + j.Output)
	req := llm.ChatRequest{Model: model, MaxTokens: 500, Meta: g.meta,
		Messages: []llm.Message{
			llm.System("You are an impartial evaluator of an AI agent's step output. Judge the response against the evaluation criteria " +
				"(and the reference output when one is given). Give a score between 0 and 1, where 1 fully meets the criteria, " +
				"and reasoning that names what to fix."),
			llm.User(user.String()),
		},
		ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: "evaluation", Schema: judgeSchema, Strict: true},
	}
	resp, err := g.model.Chat(ctx, req)
	if err != nil {
		return 0, "", model, 0, err
	}
	credits := 0.0
	if g.cat != nil && g.meta.AccountID != "" {
		if c, err := g.cat.Price(model, catalog.TokenUsage{Input: resp.Usage.InputTokens, Output: resp.Usage.OutputTokens}); err == nil {
			credits = float64(c.Credits)
		}
	}
	var v struct {
		Score     float64 `json:"score"`
		Reasoning string  `json:"reasoning"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(llm.StripCodeFence(resp.Text()))), &v); err != nil {
		return 0, "", model, credits, fmt.Errorf("the judge's answer is not the JSON asked for: %v", err)
	}
	if math.IsNaN(v.Score) || v.Score < 0 || v.Score > 1 {
		return 0, "", model, credits, fmt.Errorf("the judge's score %v is outside [0, 1]", v.Score)
	}
	return v.Score, clip(v.Reasoning), model, credits, nil
}

// pickModel is oversight.JudgeModel on the service's router.
func (s *Service) pickModel(tier string) string { return oversight.JudgeModel(s.Router, tier) }
