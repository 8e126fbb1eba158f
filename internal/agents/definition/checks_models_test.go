package definition

import (
	"strings"
	"testing"
)

func TestUnclosedPlaceholder(t *testing.T) {
	for tpl, want := range map[string]int{
		"Hello {{input}}":            -1,
		"Hello {{input":              6,
		"{{a}} and {{b":              10,
		"{{a}} }} {{":                9,
		"no braces":                  -1,
		"{ {input} }":                -1,
		"{{a}}{{b}}{{c}}":            -1,
		"x {{agent.input}} y {{ z }": 20,
	} {
		at, ok := UnclosedPlaceholder(tpl)
		if ok != (want >= 0) || ok && at != want {
			t.Errorf("%q: %d %v, want %d", tpl, at, ok, want)
		}
	}
}

func FuzzUnclosedPlaceholder(f *testing.F) {
	for _, s := range []string{"", "{{", "{{a}}", "a {{b", "}}{{", "{{{{}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at, ok := UnclosedPlaceholder(s)
		if !ok {
			return
		}
		if !strings.HasPrefix(s[at:], "{{") || strings.Contains(s[at+2:], "}}") {
			t.Fatalf("%q: offset %d is not an unclosed {{", s, at)
		}
		_ = excerptAt(s, at)
	})
}
