package definition

import "regexp"

// Conditions (gate and if_else) take either a list of rules, all of which
// must hold, or a group {"combinator": "and"|"or", "rules": [...]} whose
// rules may themselves be groups:
//
//	{"combinator": "or", "rules": [
//	  {"operator": "contains", "value": "urgent"},
//	  {"json_path": "$.score", "operator": "gte", "value": 0.8}]}
//
// A rule renders `input` (default "{{input}}"), optionally reads the JSON
// value at `json_path` from it, and compares it to `value` with `operator`.

// Operators of condition rules, by the operand they take.
var (
	unaryOperators   = []string{"is_empty", "is_not_empty", "exists", "not_exists", "is_true", "is_false"}
	textOperators    = []string{"equals", "not_equals", "contains", "not_contains", "starts_with", "ends_with"}
	numericOperators = []string{"gt", "gte", "lt", "lte"}
	listOperators    = []string{"in", "not_in"}
	regexOperators   = []string{"matches", "not_matches"}
)

// ConditionOperators lists every operator a condition rule accepts.
func ConditionOperators() []string {
	var all []string
	for _, l := range [][]string{textOperators, numericOperators, listOperators, regexOperators, unaryOperators} {
		all = append(all, l...)
	}
	return all
}

// maxConditionDepth bounds group nesting; deeper logic belongs in a
// prompt_call or several gates.
const maxConditionDepth = 8

func checkConditions(c *checker, v any, path string) {
	switch t := v.(type) {
	case []any:
		if len(t) == 0 {
			c.errorf(CodeMissingField, path, "conditions must contain at least one rule")
		}
		for i, r := range t {
			checkConditionNode(c, r, indexPath(path, i), 1)
		}
	case map[string]any:
		checkConditionNode(c, t, path, 0)
	default:
		c.errorf(CodeInvalidType, path, "conditions must be a list of rules or a {combinator, rules} group")
	}
}

func checkConditionNode(c *checker, v any, path string, depth int) {
	m, ok := v.(map[string]any)
	if !ok {
		c.errorf(CodeInvalidType, path, "a condition must be an object")
		return
	}
	if depth > maxConditionDepth {
		c.errorf(CodeTooDeep, path, "condition groups nested deeper than %d levels", maxConditionDepth)
		return
	}
	if rules, isGroup := m["rules"]; isGroup {
		if comb, ok := m["combinator"]; ok {
			if s, _ := comb.(string); s != "and" && s != "or" {
				c.errorf(CodeInvalidValue, fieldPath(path, "combinator"), "combinator must be \"and\" or \"or\"")
			}
		}
		list, ok := rules.([]any)
		if !ok {
			c.errorf(CodeInvalidType, fieldPath(path, "rules"), "rules must be a list")
			return
		}
		if len(list) == 0 {
			c.errorf(CodeMissingField, fieldPath(path, "rules"), "a condition group needs at least one rule")
		}
		for i, r := range list {
			checkConditionNode(c, r, indexPath(fieldPath(path, "rules"), i), depth+1)
		}
		return
	}
	checkRule(c, m, path)
}

func checkRule(c *checker, m map[string]any, path string) {
	for _, k := range []string{"input", "json_path"} {
		if v, ok := m[k]; ok {
			if _, isStr := v.(string); !isStr {
				c.errorf(CodeInvalidType, fieldPath(path, k), "%s must be a string", k)
			}
		}
	}
	if jp, ok := m["json_path"].(string); ok && jp != "" && jp[0] != '$' {
		c.errorf(CodeInvalidValue, fieldPath(path, "json_path"), "a JSONPath must start with $")
	}
	opV, ok := m["operator"]
	if !ok {
		c.errorf(CodeMissingField, fieldPath(path, "operator"), "a condition rule needs an operator")
		return
	}
	op, _ := opV.(string)
	opPath := fieldPath(path, "operator")
	value, hasValue := m["value"]
	vp := fieldPath(path, "value")
	switch {
	case contains(unaryOperators, op):
		if hasValue {
			c.warnf(CodeUnusedValue, vp, "operator %s ignores value", op)
		}
	case contains(textOperators, op):
		if !hasValue {
			c.errorf(CodeMissingField, vp, "operator %s needs a value", op)
		} else if !isScalar(value) && value != nil {
			c.errorf(CodeInvalidType, vp, "operator %s compares with a string, number, boolean or null", op)
		}
	case contains(numericOperators, op):
		if !isNumber(value) {
			c.errorf(CodeInvalidType, vp, "operator %s needs a numeric value", op)
		}
	case contains(listOperators, op):
		if _, ok := value.([]any); !ok {
			c.errorf(CodeInvalidType, vp, "operator %s needs a list value", op)
		}
	case contains(regexOperators, op):
		s, ok := value.(string)
		if !ok {
			c.errorf(CodeInvalidType, vp, "operator %s needs a regular expression string", op)
		} else if _, err := regexp.Compile(s); err != nil {
			c.errorf(CodeInvalidRegex, vp, "invalid regular expression: %v", err)
		}
	default:
		c.errorf(CodeInvalidValue, opPath, "unknown operator %q", opV)
	}
	for k := range m {
		switch k {
		case "input", "json_path", "operator", "value":
		default:
			c.warnf(CodeUnknownField, fieldPath(path, k), "unknown condition field %q is ignored", k)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
