package governance

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDetectors(t *testing.T) {
	cases := []struct {
		kind, text string
		want       bool
	}{
		{"email", "write to jane.doe+x@mail.example.co.uk today", true},
		{"email", "an @ sign alone", false},
		{"card", "card 4111-1111-1111-1111 exp 12/29", true},
		{"card", "order 4111 1111 1111 1112", false}, // fails Luhn
		{"card", "tracking 1234567890123", false},
		{"phone", "call +44 20 7946 0958", true},
		{"phone", "call (555) 123-4567 now", true},
		{"phone", "released 2024-05-17 at 10:00", false},
		{"phone", "version 1.2.3", false},
		{"national_id", "SSN 123-45-6789", true},
		{"national_id", "SSN 000-45-6789", false},
		{"national_id", "NI number AB 12 34 56 C", true},
	}
	for _, c := range cases {
		_, got := findPII(c.kind, c.text)
		if got != c.want {
			t.Errorf("%s in %q: %v, want %v", c.kind, c.text, got, c.want)
		}
	}
	for text, want := range map[string]bool{
		"AKIAABCDEFGHIJKLMNOP":                     true,
		"sk-proj-abcdefghijklmnopqrstuvwx":         true,
		"ghp_" + strings.Repeat("a", 36):           true,
		"-----BEGIN RSA PRIVATE KEY-----\nabc":     true,
		"the word skeleton and ask-me":             false,
		"eyJhbGciOiJIUzI1.eyJzdWIiOiIx.SflKxwRJSM": true,
	} {
		if _, got := findSecret(text); got != want {
			t.Errorf("secret in %q: %v, want %v", text, got, want)
		}
	}
}

func TestBlockedTermsAreWholeWords(t *testing.T) {
	p, err := Parse("blocked_terms", []byte(`{"terms": ["ass", "Project Falcon", "c++"]}`))
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{"a classic class": false, "news on PROJECT FALCON.": true, "we use c++ here": true, "assume": false} {
		_, got := p.Rules[0].CheckDeterministic(text, strings.ToLower(text))
		if got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}

func TestParseDefaultsAndRefusals(t *testing.T) {
	p, err := Parse("", []byte(`{"rules": [{"type": "pii"}, {"type": "llm", "rule": "Never give medical advice"}]}`))
	if err != nil || p.Action != ActionFlag || len(p.Stages) != 2 || len(p.Rules[0].Kinds) != 4 || !p.NeedsModel() {
		t.Fatalf("defaults: %+v %v", p, err)
	}
	if p, err := Parse("knowledge_base_policy", []byte(`{"threshold": 0.8}`)); err != nil || len(p.Rules) != 0 {
		t.Errorf("a policy of documents checks nothing: %+v %v", p, err)
	}
	for _, cfg := range []string{`{"action": "warn"}`, `{"stages": []}`, `{"rules": [{"type": "regex", "patterns": ["(?P<x"]}]}`,
		`{"rules": [{"type": "llm"}]}`, `{"rules": [{"type": "blocked_terms", "terms": [" "]}]}`, `"text"`} {
		if _, err := Parse("", []byte(cfg)); !errors.Is(err, ErrInvalidPolicy) {
			t.Errorf("%s: %v", cfg, err)
		}
	}
}

// FuzzParsePolicy: any config parses or is refused with ErrInvalidPolicy,
// and a parsed policy checks any text without panicking.
func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{`{"action": "block", "rules": [{"type": "pii"}, {"type": "secrets"}]}`,
		`{"rules": [{"type": "regex", "patterns": ["(?i)secret\\d+"]}, {"type": "blocked_terms", "terms": ["x y"]}]}`,
		`{"stages": ["output"], "kinds": ["card"]}`, `null`} {
		f.Add("", []byte(s), "card 4111 1111 1111 1111 mail a@b.co AKIAABCDEFGHIJKLMNOP")
	}
	f.Add("pii", []byte(`{}`), "+1 (555) 123-4567")
	f.Fuzz(func(t *testing.T, typ string, config []byte, text string) {
		p, err := Parse(typ, config)
		if err != nil {
			if !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("error not wrapped: %v", err)
			}
			return
		}
		lower := strings.ToLower(text)
		for i := range p.Rules {
			if f, ok := p.Rules[i].CheckDeterministic(text, lower); ok && (f.Rule == "" || f.Reason == "") {
				t.Fatalf("unexplained finding %+v", f)
			}
		}
	})
}

// The literal prefilter never hides a match the pattern would find.
func TestRegexPrefilterIsSound(t *testing.T) {
	cases := []struct {
		pattern, text string
		want          bool
	}{
		{`(?i)internal use only`, "For INTERNAL Use Only.", true},
		{`(?i)secret`, "a ſecret", true}, // long s folds to s: non-ASCII text runs the pattern
		{`\bconfidential\b`, "strictly confidential", true},
		{`\bconfidential\b`, "Confidential", false},
		{`(?i)\bacme-\d+`, "ticket ACME-42", true},
		{`foo|barbaz`, "barbaz", true},
		{`(x)?quarterly`, "quarterly", true},
	}
	for _, c := range cases {
		p, err := Parse("regex", []byte(`{"patterns": [`+strconvQuote(c.pattern)+`]}`))
		if err != nil {
			t.Fatal(err)
		}
		_, got := p.Rules[0].CheckDeterministic(c.text, strings.ToLower(c.text))
		if got != c.want {
			t.Errorf("%s on %q: %v, want %v", c.pattern, c.text, got, c.want)
		}
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
