package engine

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// evalConditions evaluates gate/if_else conditions: a list of rules that
// must all hold, or a group {combinator, rules} nesting further groups.
func (ex *Exec) evalConditions(v any) (bool, error) {
	switch t := v.(type) {
	case nil:
		return true, nil
	case []any:
		for _, r := range t {
			ok, err := ex.evalConditions(r)
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case map[string]any:
		if rules, ok := t["rules"].([]any); ok {
			or := strings.EqualFold(fmt.Sprint(t["combinator"]), "or")
			if len(rules) == 0 {
				return true, nil
			}
			for _, r := range rules {
				ok, err := ex.evalConditions(r)
				if err != nil {
					return false, err
				}
				if or && ok {
					return true, nil
				}
				if !or && !ok {
					return false, nil
				}
			}
			return !or, nil
		}
		return ex.evalRule(t)
	}
	return false, fmt.Errorf("a condition must be a rule, a list of rules or a group, not %T", v)
}

func (ex *Exec) evalRule(r map[string]any) (bool, error) {
	tpl, _ := r["input"].(string)
	if tpl == "" {
		tpl = "{{input}}"
	}
	text, err := ex.Render(tpl)
	if err != nil {
		return false, err
	}
	var subject any = text
	exists := true
	if p, _ := r["json_path"].(string); p != "" {
		var doc any
		if json.Unmarshal([]byte(text), &doc) != nil {
			exists, subject = false, nil
		} else if got, ok := jsonPath(doc, p); !ok || len(got) == 0 {
			exists, subject = false, nil
		} else {
			subject = got[0]
		}
	}
	op, _ := r["operator"].(string)
	want := r["value"]
	s := stringify(subject)
	switch op {
	case "exists":
		return exists, nil
	case "not_exists":
		return !exists, nil
	case "is_empty":
		return strings.TrimSpace(s) == "" || s == "[]" || s == "{}", nil
	case "is_not_empty":
		return !(strings.TrimSpace(s) == "" || s == "[]" || s == "{}"), nil
	case "is_true":
		return truthy(subject), nil
	case "is_false":
		return !truthy(subject), nil
	case "equals":
		return s == stringify(want) || strings.TrimSpace(s) == stringify(want), nil
	case "not_equals":
		return s != stringify(want) && strings.TrimSpace(s) != stringify(want), nil
	case "contains":
		return strings.Contains(strings.ToLower(s), strings.ToLower(stringify(want))), nil
	case "not_contains":
		return !strings.Contains(strings.ToLower(s), strings.ToLower(stringify(want))), nil
	case "starts_with":
		return strings.HasPrefix(s, stringify(want)), nil
	case "ends_with":
		return strings.HasSuffix(s, stringify(want)), nil
	case "gt", "gte", "lt", "lte":
		a, ok1 := number(subject)
		b, ok2 := number(want)
		if !ok1 || !ok2 {
			return false, nil
		}
		switch op {
		case "gt":
			return a > b, nil
		case "gte":
			return a >= b, nil
		case "lt":
			return a < b, nil
		}
		return a <= b, nil
	case "in", "not_in":
		list, _ := want.([]any)
		found := false
		for _, w := range list {
			if stringify(w) == strings.TrimSpace(s) {
				found = true
				break
			}
		}
		return found == (op == "in"), nil
	case "matches", "not_matches":
		re, err := regexp.Compile(stringify(want))
		if err != nil {
			return false, fmt.Errorf("condition pattern %q: %v", want, err)
		}
		return re.MatchString(s) == (op == "matches"), nil
	}
	return false, fmt.Errorf("unknown condition operator %q", op)
}

func number(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		return f, err == nil
	case bool, nil:
		return 0, false
	}
	f, err := strconv.ParseFloat(stringify(v), 64)
	return f, err == nil
}

func truthy(v any) bool {
	switch t := v.(type) {
	case bool:
		return t
	case string:
		s := strings.ToLower(strings.TrimSpace(t))
		return s == "true" || s == "yes" || s == "1"
	case float64:
		return t != 0
	}
	return false
}
