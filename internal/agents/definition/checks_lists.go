package definition

import (
	"regexp"
	"strings"
)

// regexFlags are the inline flags RE2 understands: case-insensitive,
// multi-line, dot matches newline, ungreedy.
const regexFlags = "imsU"

func checkRegexRules(c *checker, v any, path string) {
	list, ok := v.([]any)
	if !ok {
		c.errorf(CodeInvalidType, path, "rules must be a list of {pattern, replacement} objects")
		return
	}
	for i, r := range list {
		rp := indexPath(path, i)
		m, ok := r.(map[string]any)
		if !ok {
			c.errorf(CodeInvalidType, rp, "a rule must be an object")
			continue
		}
		pat, ok := m["pattern"].(string)
		switch {
		case m["pattern"] == nil:
			c.errorf(CodeMissingField, fieldPath(rp, "pattern"), "a rule needs a pattern")
		case !ok:
			c.errorf(CodeInvalidType, fieldPath(rp, "pattern"), "pattern must be a string")
		default:
			flags, _ := m["flags"].(string)
			expr := pat
			if f := strings.Trim(flags, " "); f != "" && strings.Trim(f, regexFlags) == "" {
				expr = "(?" + f + ")" + pat
			}
			if _, err := regexp.Compile(expr); err != nil {
				c.errorf(CodeInvalidRegex, fieldPath(rp, "pattern"), "pattern does not compile (RE2 syntax): %v", err)
			}
		}
		if rv, ok := m["replacement"]; ok && rv != nil {
			if _, isStr := rv.(string); !isStr {
				c.errorf(CodeInvalidType, fieldPath(rp, "replacement"), "replacement must be a string")
			}
		}
		if fv, ok := m["flags"]; ok && fv != nil {
			f, isStr := fv.(string)
			if !isStr || strings.Trim(f, regexFlags) != "" {
				c.errorf(CodeInvalidValue, fieldPath(rp, "flags"), "flags must be a string of the letters %s", regexFlags)
			}
		}
		for k := range m {
			if k != "pattern" && k != "replacement" && k != "flags" {
				c.warnf(CodeUnknownField, fieldPath(rp, k), "unknown rule field %q is ignored", k)
			}
		}
	}
}

func checkTools(c *checker, v any, path string) {
	list, ok := v.([]any)
	if !ok {
		c.errorf(CodeInvalidType, path, "tools must be a list")
		return
	}
	for i, t := range list {
		tp := indexPath(path, i)
		switch tv := t.(type) {
		case string:
			if strings.TrimSpace(tv) == "" {
				c.errorf(CodeInvalidValue, tp, "tool names must not be empty")
			}
		case map[string]any:
			switch typ := tv["type"].(type) {
			case string:
				if strings.TrimSpace(typ) == "" {
					c.errorf(CodeInvalidValue, fieldPath(tp, "type"), "tool type must not be empty")
				}
				if typ == MCPToolType {
					checkMCPTool(c, tv, tp)
				}
			case nil:
				c.warnf(CodeMissingField, tp, "tool object has no type")
			default:
				c.errorf(CodeInvalidType, fieldPath(tp, "type"), "tool type must be a string")
			}
		default:
			c.errorf(CodeInvalidType, tp, "a tool is a name or an object with a type")
		}
	}
}
