package evals

import (
	"strings"
	"testing"
)

func TestExpectationChecks(t *testing.T) {
	cases := []struct {
		config, output string
		want           []bool
	}{
		{`{"json_schema": {"type": "object", "required": ["email"]}}`, `{"email": "a@b.c"}`, []bool{true}},
		{`{"json_schema": {"type": "object", "required": ["email"]}}`, `{"name": "x"}`, []bool{false}},
		{`{"json_schema": {"type": "object"}}`, "```json\n{\"a\": 1}\n```", []bool{true}},
		{`{"is_json": true}`, `not json`, []bool{false}},
		{`{"regex": ["^Total", "\\d+$"], "not_regex": "(?i)error"}`, `Total 12`, []bool{true, true, true}},
		{`{"contains": "TOTAL", "not_contains": ["sorry"]}`, `the total is 3`, []bool{true, true}},
		{`{"contains": "TOTAL", "case_sensitive": true}`, `the total is 3`, []bool{false}},
		{`{"equals": "yes"}`, "  yes\n", []bool{true}},
		{`{"numeric_range": {"min": 1, "max": 10}}`, `7.5`, []bool{true}},
		{`{"numeric_range": {"max": 10, "path": "$.items[1].n"}}`, `{"items": [{"n": 1}, {"n": 11}]}`, []bool{false}},
		{`{"min_length": 3, "max_length": 5}`, `abcdef`, []bool{true, false}},
	}
	for _, c := range cases {
		e, err := ParseExpectation([]byte(c.config))
		if err != nil {
			t.Fatalf("%s: %v", c.config, err)
		}
		got := e.Check(c.output)
		if len(got) != len(c.want) {
			t.Fatalf("%s on %q: %d checks, want %d: %+v", c.config, c.output, len(got), len(c.want), got)
		}
		for i := range got {
			if got[i].Passed != c.want[i] || got[i].Detail == "" {
				t.Errorf("%s on %q: check %d = %+v, want passed=%v", c.config, c.output, i, got[i], c.want[i])
			}
		}
	}
}

func TestExpectationRefusals(t *testing.T) {
	for _, cfg := range []string{`[]`, `{"regex": "(("}`, `{"regex": 5}`, `{"numeric_range": {}}`, `{"numeric_range": {"min": 5, "max": 1}}`,
		`{"json_schema": {"$ref": "http://example.com/schema.json"}}`, `{"json_schema": 3}`, `{"min_length": -1}`, `{"contains": [""]}`,
		`{"numeric_range": {"max": 1, "path": "a..b"}}`, `{"is_json": "yes"}`} {
		if _, err := ParseExpectation([]byte(cfg)); err == nil {
			t.Errorf("%s was accepted", cfg)
		}
	}
	e, err := ParseExpectation([]byte(`{"contains": "x", "judge_hint": 1}`))
	if err != nil || len(e.Ignored) != 1 || e.Ignored[0] != "judge_hint" {
		t.Errorf("unknown keys: %+v %v", e, err)
	}
}

// FuzzParseExpectation: any config either parses or is refused with
// ErrInvalidExpectation, and a parsed one checks any output without
// panicking.
func FuzzParseExpectation(f *testing.F) {
	for _, s := range []string{`{"json_schema": {"type": "object", "properties": {"a": {"pattern": "^x"}}}}`, `{"regex": ["a+", "b"]}`,
		`{"numeric_range": {"min": 0, "path": "$.a[0]"}}`, `{"contains": "x", "equals": "y", "max_length": 3}`, `null`, `{}`,
		`{"json_schema": {"anyOf": [{"$ref": "#"}, {"type": "string"}]}}`} {
		f.Add([]byte(s), "x")
	}
	f.Fuzz(func(t *testing.T, config []byte, output string) {
		e, err := ParseExpectation(config)
		if err != nil {
			if !strings.Contains(err.Error(), ErrInvalidExpectation.Error()) {
				t.Fatalf("error not wrapped: %v", err)
			}
			return
		}
		for _, c := range e.Check(output) {
			if c.Name == "" || c.Detail == "" {
				t.Fatalf("unexplained check %+v", c)
			}
		}
	})
}
