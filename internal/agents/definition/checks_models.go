package definition

import (
	"strings"
	"unicode/utf8"
)

// checkModels warns about steps naming a model the catalog does not know:
// the step would fail at run time with "unknown model", so saying so when
// the workflow is saved spares the user a failed run.
func (c *checker) checkModels() {
	if c.opts.KnownModel == nil {
		return
	}
	c.def.Walk(c.opts.BasePath, func(v Visit) bool {
		m, ok := v.Step.Config["model"].(string)
		m = strings.TrimSpace(m)
		if ok && m != "" && !strings.Contains(m, "{{") && !c.opts.KnownModel(m) {
			c.warnf(CodeUnknownModel, fieldPath(v.Path, "model"),
				"model %q is not in the model catalog (see GET /models); runs of this step would fail with unknown model", m)
		}
		return true
	})
}

// UnclosedPlaceholder finds a "{{" with no "}}" after it and returns its
// byte offset.
func UnclosedPlaceholder(tpl string) (int, bool) {
	for i := 0; i < len(tpl); {
		open := strings.Index(tpl[i:], "{{")
		if open < 0 {
			return 0, false
		}
		open += i
		end := strings.Index(tpl[open+2:], "}}")
		if end < 0 {
			return open, true
		}
		i = open + 2 + end + 2
	}
	return 0, false
}

// excerptAt is up to 30 bytes of s from at, cut at a rune boundary.
func excerptAt(s string, at int) string {
	s = s[at:]
	if len(s) <= 30 {
		return s
	}
	n := 30
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
