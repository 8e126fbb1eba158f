package offline

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentry/agentry/internal/llm"
)

// Grading against a rubric (an evaluation criterion's prompt) and checking
// text against a governance rule in plain language. The offline model
// cannot read meaning, so both are explained word checks: phrases the
// rubric or rule quotes are looked for verbatim; without quotes, the
// rubric's or rule's own content words are. Deterministic, so a retried
// step and a test see the same verdict.

var reQuoted = regexp.MustCompile("\"([^\"\\n]{1,200})\"|`([^`\\n]{1,200})`|“([^”\\n]{1,200})”")

// quotedPhrases lists the phrases s quotes, in order.
func quotedPhrases(s string) []string {
	var out []string
	for _, m := range reQuoted.FindAllStringSubmatch(s, 50) {
		for _, g := range m[1:] {
			if g = strings.TrimSpace(g); g != "" {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// rubricNoise are words of how rubrics and rules are phrased, not what
// they are about.
var rubricNoise = map[string]bool{
	"response": true, "output": true, "answer": true, "must": true, "should": true, "include": true, "includes": true,
	"contain": true, "contains": true, "valid": true, "correct": true, "correctly": true, "json": true, "mention": true,
	"mentions": true, "never": true, "always": true, "give": true, "gives": true, "provide": true, "provides": true,
	"text": true, "content": true, "discuss": true, "share": true, "reveal": true, "talk": true, "field": true,
	"fields": true, "object": true, "good": true, "score": true, "pass": true, "fail": true, "rule": true, "policy": true,
	"step": true, "agent": true, "user": true, "every": true, "each": true, "clear": true, "clearly": true,
}

// keyTerms are the content words of s that say what it is about.
func keyTerms(s string) []string {
	var out []string
	seen := map[string]bool{}
	for w := range wordSet(s) {
		if !rubricNoise[w] && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	sortStrings(out)
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// gradeByRubric scores resp by the share of the rubric's requirements it
// meets: each quoted phrase must appear; without quotes, the rubric's key
// terms are looked for.
func gradeByRubric(rubric, resp string) (score float64, why, good, bad []string) {
	lower := strings.ToLower(resp)
	if phrases := quotedPhrases(rubric); len(phrases) > 0 {
		var hit, miss []string
		for _, p := range phrases {
			if strings.Contains(lower, strings.ToLower(p)) {
				hit = append(hit, fmt.Sprintf("%q", p))
			} else {
				miss = append(miss, fmt.Sprintf("%q", p))
			}
		}
		score = ratio(len(hit), len(phrases))
		why = append(why, fmt.Sprintf("The evaluation criteria quote %d phrase(s); the response contains %d of them (%.2f).", len(phrases), len(hit), score))
		if len(hit) > 0 {
			good = append(good, "contains "+strings.Join(hit, ", "))
		}
		if len(miss) > 0 {
			bad = append(bad, "does not contain "+strings.Join(miss, ", "))
		}
		return score, why, good, bad
	}
	terms := keyTerms(rubric)
	if len(terms) == 0 {
		// A rubric of format words only ("valid JSON"): the format
		// check after grading decides.
		why = append(why, "The evaluation criteria name no terms to look for; only the response's format is checked.")
		return 1, why, good, bad
	}
	R := wordSet(resp)
	var hit, miss []string
	for _, t := range terms {
		if R[t] {
			hit = append(hit, t)
		} else {
			miss = append(miss, t)
		}
	}
	score = ratio(len(hit), len(terms))
	why = append(why, fmt.Sprintf("%d of the %d key terms of the evaluation criteria appear in the response (%.2f).", len(hit), len(terms), score))
	if len(hit) > 0 {
		good = append(good, "uses "+strings.Join(hit, ", "))
	}
	if len(miss) > 0 {
		bad = append(bad, "does not address "+strings.Join(miss, ", "))
	}
	return score, why, good, bad
}

// isPolicyCheck: the request asks whether text breaks a rule, answering in
// a schema with a boolean "violates".
func isPolicyCheck(req llm.ChatRequest, p prompt) bool {
	if req.ResponseFormat.Type != llm.FormatJSONSchema || !strings.Contains(strings.ToLower(p.system), "polic") {
		return false
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(req.ResponseFormat.Schema, &s)
	_, ok := s.Properties["violates"]
	return ok
}

var rePolicySection = regexp.MustCompile(`(?mi)^\s*(rule|text to check)\s*:\s*`)

// policyVerdict decides whether the text breaks the rule: a phrase the rule
// quotes appears in it, or (without quotes) at least 60% of the rule's key
// terms do.
func policyVerdict(request string) (map[string]any, error) {
	locs := rePolicySection.FindAllStringSubmatchIndex(request, -1)
	sec := map[string]string{}
	for i, l := range locs {
		end := len(request)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		name := strings.ToLower(request[l[2]:l[3]])
		if _, seen := sec[name]; !seen || name == "text to check" {
			sec[name] = strings.TrimSpace(request[l[1]:end])
		}
		if name == "text to check" {
			sec[name] = strings.TrimSpace(request[l[1]:])
			break
		}
	}
	rule, text := sec["rule"], sec["text to check"]
	if rule == "" {
		return nil, fmt.Errorf("%w: the request states no rule", ErrCannotJudge)
	}
	lower := strings.ToLower(text)
	if phrases := quotedPhrases(rule); len(phrases) > 0 {
		for _, ph := range phrases {
			if strings.Contains(lower, strings.ToLower(ph)) {
				return map[string]any{"violates": true, "reason": fmt.Sprintf("The text contains %q, which the rule names (offline word check).", ph)}, nil
			}
		}
		return map[string]any{"violates": false, "reason": fmt.Sprintf("The text contains none of the %d phrase(s) the rule quotes (offline word check).", len(phrases))}, nil
	}
	terms := keyTerms(rule)
	if len(terms) == 0 {
		return nil, fmt.Errorf("%w: the rule names no terms to look for; a language model is needed", ErrCannotJudge)
	}
	R := wordSet(text)
	var hit []string
	for _, t := range terms {
		if R[t] {
			hit = append(hit, t)
		}
	}
	share := ratio(len(hit), len(terms))
	if share >= 0.6 {
		return map[string]any{"violates": true, "reason": fmt.Sprintf("The text uses %d of the rule's %d key terms (%s) (offline word check).", len(hit), len(terms), strings.Join(hit, ", "))}, nil
	}
	return map[string]any{"violates": false, "reason": fmt.Sprintf("The text uses %d of the rule's %d key terms (%s), under the 60%% the offline check needs.", len(hit), len(terms), strings.Join(terms, ", "))}, nil
}
