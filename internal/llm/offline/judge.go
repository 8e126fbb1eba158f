package offline

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/agentry/agentry/internal/llm"
)

// Asked to grade an answer, the offline model cannot weigh meaning. It
// gives a deterministic, explained judgment instead: the words the
// response shares with the reference answer (or, without one, with the
// facts stated in the prompt it answered), and format checks. When it has
// neither a reference nor facts to compare with, it says it cannot judge
// (ErrCannotJudge) rather than invent a score.

// ErrCannotJudge reports a grading request the offline model has no basis
// to judge. Callers show the evaluation as unavailable.
var ErrCannotJudge = errors.New("the offline model cannot judge this response")

var reJudgeWords = regexp.MustCompile(`(?i)\b(evaluat\w*|judge\w*|grad(e|er|ing)|assess\w*|rate the|score (the|each|how|between))\b`)

// isJudgeRequest: the request asks for a score (in its schema, or in the
// schema its instructions embed) and its instructions ask to evaluate.
func isJudgeRequest(req llm.ChatRequest, p prompt) bool {
	steer := p.system + "\n" + p.steer
	if !reJudgeWords.MatchString(steer) {
		return false
	}
	schema := req.ResponseFormat.Schema
	if req.ResponseFormat.Type != llm.FormatJSONSchema {
		schema = embeddedSchema(steer)
	}
	if len(schema) == 0 {
		return strings.Contains(strings.ToLower(steer), "score")
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	_, ok := s.Properties["score"]
	return ok
}

// judgeSections are the parts of a grading prompt, by label.
var judgeLabels = map[string]string{
	"prompt": "prompt", "question": "prompt", "task": "prompt", "input": "prompt", "original prompt": "prompt",
	"system prompt given to the model": "system", "system prompt": "system",
	"reference output": "reference", "reference answer": "reference", "reference": "reference",
	"expected output": "reference", "expected answer": "reference", "expected": "reference",
	"ground truth": "reference", "gold answer": "reference", "ideal answer": "reference",
	"response to evaluate": "response", "response": "response", "answer to evaluate": "response",
	"answer": "response", "output": "response", "model output": "response", "candidate": "response",
	"actual output": "response", "model response": "response", "model answer": "response",
	"evaluation criteria": "rubric", "rubric": "rubric", "criteria": "rubric", "evaluation prompt": "rubric",
}

var reResponseToEvaluate = regexp.MustCompile(`(?mi)^\s*response to evaluate\s*:`)

var reJudgeLabel = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z ]{0,40}?)\s*:\s*(.*)$`)

// judgeSections splits the grading request's user text into its labelled
// parts. Labels inside the response are its own text: once the response
// starts, nothing else is read as a label.
func judgeSections(text string) map[string]string {
	out := map[string]string{}
	cur := ""
	var buf []string
	flush := func() {
		if cur != "" {
			if _, seen := out[cur]; !seen {
				out[cur] = strings.TrimSpace(strings.Join(buf, "\n"))
			}
		}
		buf = nil
	}
	// When the request uses the explicit label, an "Answer:" line inside
	// the prompt is the prompt's text, not the response.
	explicit := reResponseToEvaluate.MatchString(text)
	for _, line := range strings.Split(text, "\n") {
		if cur != "response" {
			if m := reJudgeLabel.FindStringSubmatch(line); m != nil {
				label := strings.ToLower(strings.TrimSpace(m[1]))
				sec, ok := judgeLabels[label]
				_, seen := out[sec]
				// A label of the section being read, or of one already
				// read, is text ("Question:" inside the prompt).
				if ok && sec != cur && !seen && (!explicit || sec != "response" || label == "response to evaluate") {
					flush()
					cur = sec
					buf = append(buf, m[2])
					continue
				}
			}
		}
		buf = append(buf, line)
	}
	flush()
	return out
}

// judgment is the offline model's verdict in numbers and words.
type judgment struct {
	score      float64
	criteria   map[string]float64
	reasoning  string
	strengths  string
	weaknesses string
}

// wordSet folds plurals so "refunds" matches "refund".
func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range contentWords(s) {
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out[w] = true
	}
	return out
}

func shared(a, b map[string]bool) int {
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return n
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// grade computes the judgment of a response.
func grade(sec map[string]string) (judgment, error) {
	resp, ok := sec["response"]
	if !ok {
		return judgment{}, fmt.Errorf("%w: the request names no response to evaluate", ErrCannotJudge)
	}
	_, question, mat := splitUserText(sec["prompt"])
	facts := strings.Join(append(mat, factsOf(sec["system"])...), "\n")
	expectJSON := strings.Contains(strings.ToLower(sec["prompt"]+" "+sec["system"]+" "+sec["rubric"]), "json")
	R, Q := wordSet(resp), wordSet(question)
	if question == "" {
		Q = wordSet(strings.Join(splitInstructionsOnly(sec["prompt"]), " "))
	}
	var j judgment
	j.criteria = map[string]float64{}
	var why, good, bad []string
	switch {
	case strings.TrimSpace(resp) == "":
		j.score = 0
		why = append(why, "The response is empty.")
		bad = append(bad, "empty response")
		for _, c := range []string{"relevance", "accuracy", "completeness", "clarity"} {
			j.criteria[c] = 0
		}
	case strings.TrimSpace(sec["reference"]) != "":
		F := wordSet(sec["reference"])
		n := shared(R, F)
		recall, precision := ratio(n, len(F)), ratio(n, len(R))
		f1 := 0.0
		if recall+precision > 0 {
			f1 = 2 * recall * precision / (recall + precision)
		}
		j.score = f1
		rel := precision
		if len(Q) > 0 {
			rel = math.Max(ratio(shared(R, Q), len(Q)), precision)
		}
		j.criteria["relevance"], j.criteria["accuracy"], j.criteria["completeness"] = rel, precision, recall
		why = append(why, fmt.Sprintf("%d of %d content words of the reference output appear in the response (recall %.2f), and %d of %d content words of the response are in the reference (precision %.2f): F1 %.2f.",
			n, len(F), recall, n, len(R), precision, f1))
		if recall >= 0.8 {
			good = append(good, "covers the reference output's words")
		} else {
			bad = append(bad, fmt.Sprintf("misses %d of the reference output's %d content words", len(F)-n, len(F)))
		}
		if precision < 0.5 {
			bad = append(bad, "much of it is not in the reference output")
		}
	case strings.TrimSpace(sec["rubric"]) != "":
		j.score, why, good, bad = gradeByRubric(sec["rubric"], resp)
		for _, c := range []string{"relevance", "accuracy", "completeness"} {
			j.criteria[c] = j.score
		}
	case strings.TrimSpace(facts) != "":
		P := wordSet(facts + " " + question)
		n := shared(R, P)
		support := ratio(n, len(R))
		rel := support
		if len(Q) > 0 {
			rel = ratio(shared(R, Q), len(Q))
		}
		j.score = (support + rel) / 2
		j.criteria["relevance"], j.criteria["accuracy"], j.criteria["completeness"] = rel, support, rel
		why = append(why, fmt.Sprintf("No reference output: %d of %d content words of the response are found in the prompt's text (support %.2f), and it uses %.0f%% of the question's content words (relevance %.2f); the score is their mean, %.2f.",
			n, len(R), support, rel*100, rel, j.score))
		if support >= 0.8 {
			good = append(good, "stays with the facts the prompt gives")
		} else {
			bad = append(bad, "contains words the prompt does not support")
		}
		if rel < 0.5 {
			bad = append(bad, "does not address most of the question's terms")
		}
	default:
		return judgment{}, fmt.Errorf("%w: there is no reference output and the prompt states no facts to check the response against; a language model is needed as evaluator", ErrCannotJudge)
	}
	clarity := 1.0
	if strings.TrimSpace(resp) == "" {
		clarity = 0
	} else if expectJSON {
		if json.Valid([]byte(strings.TrimSpace(llm.StripCodeFence(resp)))) {
			why = append(why, "The prompt asks for JSON and the response is valid JSON.")
			good = append(good, "valid JSON")
		} else {
			clarity = 0
			j.score /= 2
			why = append(why, "The prompt asks for JSON but the response is not valid JSON, which halves the score.")
			bad = append(bad, "not valid JSON")
		}
	}
	if n := len(strings.Fields(resp)); n > 400 {
		clarity = math.Min(clarity, 0.5)
		why = append(why, fmt.Sprintf("At %d words the response is long.", n))
		bad = append(bad, "long")
	}
	j.criteria["clarity"] = clarity
	j.score = round2(j.score)
	for k, v := range j.criteria {
		j.criteria[k] = round2(v)
	}
	j.reasoning = "Deterministic word-overlap check by the offline model, not a judgment of meaning. " + strings.Join(why, " ")
	j.strengths = strings.Join(good, "; ")
	if j.strengths == "" {
		j.strengths = "none found by the overlap check"
	}
	j.weaknesses = strings.Join(bad, "; ")
	if j.weaknesses == "" {
		j.weaknesses = "none found by the overlap check"
	}
	return j, nil
}

// splitInstructionsOnly returns the instruction sentences of a prompt
// with no question, which then stand for what was asked.
func splitInstructionsOnly(s string) []string {
	instr, _, _ := splitUserText(s)
	if instr == "" {
		return nil
	}
	return []string{instr}
}

// judge answers a grading request in the shape it asks for: the schema of
// the response format, the schema its instructions embed, or text.
func (m *Model) judge(req llm.ChatRequest, p prompt) (string, error) {
	j, err := grade(judgeSections(p.request))
	if err != nil {
		return "", err
	}
	schema := req.ResponseFormat.Schema
	if req.ResponseFormat.Type != llm.FormatJSONSchema {
		schema = embeddedSchema(p.system + "\n" + p.steer)
	}
	if req.ResponseFormat.Type == llm.FormatText && len(schema) == 0 {
		return fmt.Sprintf("Score: %.2f. %s", j.score, j.reasoning), nil
	}
	var s struct {
		Properties map[string]struct {
			Maximum    *float64                   `json:"maximum"`
			Properties map[string]json.RawMessage `json:"properties"`
			Type       any                        `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	out := map[string]any{}
	for name, prop := range s.Properties {
		switch {
		case name == "score" || name == "rating" || name == "overall":
			v := j.score
			if prop.Maximum != nil && *prop.Maximum > 1 {
				v = round2(v * *prop.Maximum)
			}
			out[name] = v
		case name == "criteria" || name == "scores":
			c := map[string]any{}
			for k := range prop.Properties {
				if v, ok := j.criteria[k]; ok {
					c[k] = v
				} else {
					c[k] = j.score
				}
			}
			out[name] = c
		case nameHas(name, "reasoning", "reason", "explanation", "rationale", "justification", "comment", "feedback"):
			out[name] = j.reasoning
		case nameHas(name, "strengths", "strength"):
			out[name] = j.strengths
		case nameHas(name, "weaknesses", "weakness"):
			out[name] = j.weaknesses
		case nameHas(name, "pass", "passed", "correct", "acceptable"):
			out[name] = j.score >= 0.5
		}
	}
	if len(s.Properties) == 0 {
		out = map[string]any{"score": j.score, "reasoning": j.reasoning, "criteria": j.criteria}
	}
	b, _ := json.Marshal(out)
	if len(schema) > 0 {
		if err := validateJSON(schema, b); err != nil {
			return "", fmt.Errorf("%w: its judgment does not fit the requested schema (%v)", ErrCannotJudge, err)
		}
	}
	return string(b), nil
}
