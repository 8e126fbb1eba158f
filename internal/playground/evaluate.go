package playground

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/agentry/agentry/internal/llm"
)

// criteriaOf names what the evaluator scores besides the overall score,
// by complexity: a simple evaluation is one score, a complex one scores
// four aspects and names strengths and weaknesses.
var criteriaOf = map[string][]string{
	ComplexitySimple:  nil,
	ComplexityMedium:  {"relevance", "accuracy"},
	ComplexityComplex: {"relevance", "accuracy", "completeness", "clarity"},
}

// evaluationSchema is the JSON schema the evaluator must answer with. It
// is strict (every property required, nothing else allowed) so that
// providers enforcing schemas accept it as is.
func evaluationSchema(complexity string) json.RawMessage {
	unit := map[string]any{"type": "number", "minimum": 0, "maximum": 1}
	props := map[string]any{
		"score":     unit,
		"reasoning": map[string]any{"type": "string"},
	}
	required := []string{"score", "reasoning"}
	if crit := criteriaOf[complexity]; len(crit) > 0 {
		cp := map[string]any{}
		for _, c := range crit {
			cp[c] = unit
		}
		props["criteria"] = map[string]any{"type": "object", "properties": cp, "required": crit, "additionalProperties": false}
		required = append(required, "criteria")
	}
	if complexity == ComplexityComplex {
		props["strengths"] = map[string]any{"type": "string"}
		props["weaknesses"] = map[string]any{"type": "string"}
		required = append(required, "strengths", "weaknesses")
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false})
	return b
}

// evaluationRequest asks the evaluator to judge output as an answer to
// prompt. Models without structured output get JSON mode and the schema
// in the instructions instead.
func evaluationRequest(model, complexity, prompt, system, stepOutput, output string, structured bool) llm.ChatRequest {
	schema := evaluationSchema(complexity)
	var instr strings.Builder
	instr.WriteString("You are an impartial evaluator of language model answers. Judge how well the response answers the prompt: ")
	instr.WriteString("correctness, relevance and usefulness. Give an overall score between 0 and 1, where 1 is an excellent answer, ")
	instr.WriteString("and a short reasoning.")
	if crit := criteriaOf[complexity]; len(crit) > 0 {
		instr.WriteString(" Also score each criterion (" + strings.Join(crit, ", ") + ") between 0 and 1.")
	}
	if complexity == ComplexityComplex {
		instr.WriteString(" Name the response's main strengths and weaknesses.")
	}
	if stepOutput != "" {
		instr.WriteString(" A reference output is given: judge the response against it too.")
	}
	if !structured {
		instr.WriteString(" Answer with a JSON object only, valid against this schema: " + string(schema))
	}
	var user strings.Builder
	user.WriteString("Prompt:\n" + prompt + "\n\n")
	if strings.TrimSpace(system) != "" {
		user.WriteString("System prompt given to the model:\n" + system + "\n\n")
	}
	if stepOutput != "" {
		user.WriteString("Reference output:\n" + stepOutput + "\n\n")
	}
	user.WriteString("Response to evaluate:\n" + output)
	req := llm.ChatRequest{Model: model, Messages: []llm.Message{llm.System(instr.String()), llm.User(user.String())}}
	if structured {
		req.ResponseFormat = llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: "evaluation", Schema: schema, Strict: true}
	} else {
		req.ResponseFormat = llm.ResponseFormat{Type: llm.FormatJSONObject}
	}
	return req
}

// parseEvaluation reads the evaluator's answer into ev. Scores are held
// to [0, 1]: a judge that strays outside is clamped, not trusted more.
func parseEvaluation(text string, ev *Evaluation) error {
	var v struct {
		Score      *float64       `json:"score"`
		Reasoning  string         `json:"reasoning"`
		Criteria   map[string]any `json:"criteria"`
		Strengths  string         `json:"strengths"`
		Weaknesses string         `json:"weaknesses"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(llm.StripCodeFence(text))), &v); err != nil {
		return fmt.Errorf("the evaluator did not answer with JSON: %v", err)
	}
	if v.Score == nil || math.IsNaN(*v.Score) {
		return errors.New("the evaluator's answer has no score")
	}
	score := clamp(*v.Score)
	ev.Score, ev.Reasoning, ev.Strengths, ev.Weaknesses = &score, v.Reasoning, v.Strengths, v.Weaknesses
	for k, x := range v.Criteria {
		if f, ok := x.(float64); ok {
			if ev.Criteria == nil {
				ev.Criteria = map[string]float64{}
			}
			ev.Criteria[k] = clamp(f)
		}
	}
	return nil
}

func clamp(f float64) float64 { return math.Max(0, math.Min(1, f)) }
