package governance

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/fault"
)

// A policy's config, as stored in governance_policies.config:
//
//	{"action": "flag" | "block",          // default "flag"
//	 "stages": ["input", "output"],       // default both
//	 "rules": [
//	   {"type": "pii", "kinds": ["email", "phone", "card", "national_id"]},
//	   {"type": "secrets"},
//	   {"type": "blocked_terms", "terms": ["project falcon"], "case_sensitive": false},
//	   {"type": "regex", "patterns": ["(?i)internal use only"]},
//	   {"type": "llm", "rule": "Never give medical advice."}]}
//
// A policy may also give one rule by its policy_type, with the rule's
// fields beside action and stages ({"kinds": [...]} for policy_type
// "pii"). A policy with neither rules nor a known policy_type (such as an
// imported policy whose rules live in policy documents) checks nothing.

// Stages a policy checks.
const (
	StageInput  = "input"
	StageOutput = "output"
)

// Actions a policy takes.
const (
	ActionFlag  = "flag"
	ActionBlock = "block"
)

// Rule types.
const (
	RulePII          = "pii"
	RuleSecrets      = "secrets"
	RuleBlockedTerms = "blocked_terms"
	RuleRegex        = "regex"
	RuleLLM          = "llm"
)

// RuleTypes lists the rule types a policy may use.
var RuleTypes = []string{RulePII, RuleSecrets, RuleBlockedTerms, RuleRegex, RuleLLM}

// PII kinds.
var PIIKinds = []string{"email", "phone", "card", "national_id"}

// Bounds of a policy a tenant writes.
const (
	maxConfigBytes = 64 << 10
	maxRules       = 50
	maxTerms       = 500
	maxTermLen     = 200
	maxPatterns    = 50
	maxPatternLen  = 1000
	maxLLMRuleLen  = 4000
)

// ErrInvalidPolicy wraps what is wrong with a policy's config.
var ErrInvalidPolicy = fault.FieldSentinel([]any{"body", "config"}, "value_error", "invalid governance policy")

// Policy is a compiled policy, ready to check text.
type Policy struct {
	ID, Name, AgentID string
	Action            string
	Stages            []string
	Rules             []Rule
}

// Rule is one compiled check of a policy.
type Rule struct {
	Type          string
	Kinds         []string
	Terms         []string // lower-cased unless CaseSensitive
	CaseSensitive bool
	Patterns      []*regexp.Regexp
	literals      []literal // per pattern; s == "" when it has none
	Text          string    // the plain-language rule of an llm rule
}

// HasStage reports whether the policy checks stage.
func (p *Policy) HasStage(stage string) bool { return slices.Contains(p.Stages, stage) }

// NeedsModel reports whether checking the policy calls a model.
func (p *Policy) NeedsModel() bool {
	return slices.ContainsFunc(p.Rules, func(r Rule) bool { return r.Type == RuleLLM })
}

type rawRule struct {
	Type          string   `json:"type"`
	Kinds         []string `json:"kinds"`
	Terms         []string `json:"terms"`
	CaseSensitive bool     `json:"case_sensitive"`
	Patterns      []string `json:"patterns"`
	Pattern       string   `json:"pattern"`
	Rule          string   `json:"rule"`
}

type rawConfig struct {
	Action string    `json:"action"`
	Stages []string  `json:"stages"`
	Rules  []rawRule `json:"rules"`
	rawRule
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidPolicy, fmt.Sprintf(format, args...))
}

// Parse compiles a policy's type and config. A config that is null or an
// empty object checks nothing (and is valid).
func Parse(policyType string, config []byte) (*Policy, error) {
	p := &Policy{Action: ActionFlag, Stages: []string{StageInput, StageOutput}}
	if len(config) > maxConfigBytes {
		return nil, invalid("config is larger than %d bytes", maxConfigBytes)
	}
	var raw rawConfig
	if len(config) > 0 && string(config) != "null" {
		dec := json.NewDecoder(strings.NewReader(string(config)))
		if err := dec.Decode(&raw); err != nil {
			return nil, invalid("config is not a policy config object: %v", err)
		}
	}
	switch raw.Action {
	case "":
	case ActionFlag, ActionBlock:
		p.Action = raw.Action
	default:
		return nil, invalid("action must be %q or %q, not %q", ActionFlag, ActionBlock, clip(raw.Action))
	}
	if raw.Stages != nil {
		if len(raw.Stages) == 0 {
			return nil, invalid("stages must name input, output or both")
		}
		p.Stages = nil
		for _, s := range raw.Stages {
			if s != StageInput && s != StageOutput {
				return nil, invalid("stage %q is not input or output", clip(s))
			}
			if !slices.Contains(p.Stages, s) {
				p.Stages = append(p.Stages, s)
			}
		}
	}
	rules := raw.Rules
	if len(rules) == 0 && slices.Contains(RuleTypes, policyType) {
		r := raw.rawRule
		r.Type = policyType
		rules = []rawRule{r}
	}
	if len(rules) > maxRules {
		return nil, invalid("a policy has at most %d rules", maxRules)
	}
	for i, r := range rules {
		c, err := compileRule(r)
		if err != nil {
			return nil, fmt.Errorf("%w (rule %d)", err, i+1)
		}
		p.Rules = append(p.Rules, c)
	}
	return p, nil
}

func compileRule(r rawRule) (Rule, error) {
	c := Rule{Type: r.Type}
	switch r.Type {
	case RulePII:
		if len(r.Kinds) == 0 {
			c.Kinds = slices.Clone(PIIKinds)
		}
		for _, k := range r.Kinds {
			if !slices.Contains(PIIKinds, k) {
				return c, invalid("pii kind %q is not one of %v", clip(k), PIIKinds)
			}
			if !slices.Contains(c.Kinds, k) {
				c.Kinds = append(c.Kinds, k)
			}
		}
	case RuleSecrets:
	case RuleBlockedTerms:
		if len(r.Terms) == 0 {
			return c, invalid("blocked_terms needs terms")
		}
		if len(r.Terms) > maxTerms {
			return c, invalid("blocked_terms has at most %d terms", maxTerms)
		}
		c.CaseSensitive = r.CaseSensitive
		for _, t := range r.Terms {
			t = strings.TrimSpace(t)
			if t == "" || len(t) > maxTermLen {
				return c, invalid("each blocked term is 1 to %d characters", maxTermLen)
			}
			if !c.CaseSensitive {
				t = strings.ToLower(t)
			}
			c.Terms = append(c.Terms, t)
		}
	case RuleRegex:
		pats := r.Patterns
		if r.Pattern != "" {
			pats = append(pats, r.Pattern)
		}
		if len(pats) == 0 {
			return c, invalid("regex needs patterns")
		}
		if len(pats) > maxPatterns {
			return c, invalid("regex has at most %d patterns", maxPatterns)
		}
		for _, s := range pats {
			if s == "" || len(s) > maxPatternLen {
				return c, invalid("each pattern is 1 to %d characters", maxPatternLen)
			}
			re, err := regexp.Compile(s)
			if err != nil {
				return c, invalid("pattern %q does not compile: %v", clip(s), err)
			}
			c.Patterns = append(c.Patterns, re)
			lit, _ := requiredLiteral(s)
			c.literals = append(c.literals, lit)
		}
	case RuleLLM:
		c.Text = strings.TrimSpace(r.Rule)
		if c.Text == "" || len(c.Text) > maxLLMRuleLen {
			return c, invalid("an llm rule needs its rule in plain language (1 to %d characters)", maxLLMRuleLen)
		}
	default:
		return c, invalid("rule type %q is not one of %v", clip(r.Type), RuleTypes)
	}
	return c, nil
}

func clip(s string) string {
	if len(s) <= 60 {
		return s
	}
	i := 60
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// Finding is what a deterministic rule found. Reason never quotes the text
// it matched, which may be the very data the policy protects.
type Finding struct {
	Rule   string // "pii:email", "secrets:aws_access_key", "blocked_terms", "regex", "llm"
	Reason string
}

// CheckDeterministic runs the rules that need no model over text and
// returns the first finding.
func (r *Rule) CheckDeterministic(text, lower string) (Finding, bool) {
	switch r.Type {
	case RulePII:
		for _, k := range r.Kinds {
			if f, ok := findPII(k, text); ok {
				return f, true
			}
		}
	case RuleSecrets:
		return findSecret(text)
	case RuleBlockedTerms:
		hay := lower
		if r.CaseSensitive {
			hay = text
		}
		for _, t := range r.Terms {
			if containsWord(hay, t) {
				return Finding{Rule: RuleBlockedTerms, Reason: fmt.Sprintf("contains the blocked term %q", t)}, true
			}
		}
	case RuleRegex:
		ascii := isASCII(text)
		for i, re := range r.Patterns {
			if i < len(r.literals) && r.literals[i].s != "" && r.literals[i].absent(text, lower, ascii) {
				continue
			}
			if re.MatchString(text) {
				return Finding{Rule: RuleRegex, Reason: fmt.Sprintf("matches blocked pattern %d (%s)", i+1, clip(re.String()))}, true
			}
		}
	}
	return Finding{}, false
}

// containsWord finds term in s where it is not part of a longer word.
func containsWord(s, term string) bool {
	for from := 0; from <= len(s)-len(term); {
		i := strings.Index(s[from:], term)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(term)
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if (i == 0 || !isWordRune(before) || !isWordRune(firstRune(term))) &&
			(end == len(s) || !isWordRune(after) || !isWordRune(lastRune(term))) {
			return true
		}
		from = i + 1
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }
