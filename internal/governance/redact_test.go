package governance

import (
	"strings"
	"testing"
)

func mustParse(t *testing.T, config string) *Policy {
	t.Helper()
	p, err := Parse("", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRedact: a block replaces every match of the blocking policies'
// rules by its kind, whatever the rule; flagging policies and other
// stages change nothing; a plain-language block withholds the text.
func TestRedact(t *testing.T) {
	block := mustParse(t, `{"action":"block","stages":["input"],"rules":[
		{"type":"pii"},{"type":"secrets"},
		{"type":"blocked_terms","terms":["Project Falcon"]},
		{"type":"regex","patterns":["(?i)order-\\d+"]}]}`)
	flag := mustParse(t, `{"action":"flag","rules":[{"type":"blocked_terms","terms":["falconry"]}]}`)
	outputOnly := mustParse(t, `{"action":"block","stages":["output"],"rules":[{"type":"blocked_terms","terms":["lake"]}]}`)
	ps := []*Policy{block, flag, outputOnly}
	in := "mail jane.doe@example.com or call +44 20 7946 0958, card 4111 1111 1111 1111, SSN 123-45-6789, " +
		"key AKIA1234567890ABCDEF, about project falcon (not falconry) and ORDER-77 by the lake on 2026-11-28"
	got := Redact(ps, StageInput, Verdict{Action: ActionBlock, Rule: "pii:email"}, in)
	want := "mail [email address] or call [phone number], card [payment card number], SSN [national id number], " +
		"key [secret: aws access key], about [blocked term] (not falconry) and [blocked pattern] by the lake on 2026-11-28"
	if got != want {
		t.Errorf("redacted:\n got %s\nwant %s", got, want)
	}
	for _, leak := range []string{"jane.doe", "7946", "4111", "6789", "AKIA", "project falcon", "77"} {
		if strings.Contains(got, leak) {
			t.Errorf("%q survives redaction: %s", leak, got)
		}
	}
	// The redacted text passes the policy that blocked the original.
	if v, _, err := (&Service{}).evaluate(t.Context(), where{}, []*Policy{block}, StageInput, got); err != nil || v.Action != "" {
		t.Errorf("the redacted text is still caught: %+v %v", v, err)
	}
	if got := Redact(ps, StageInput, Verdict{Action: ActionBlock, Rule: RuleLLM}, in); got != Withheld {
		t.Errorf("a plain-language block keeps %q", got)
	}
	if got := Redact([]*Policy{flag}, StageInput, Verdict{Action: ActionBlock, Rule: "pii:email"}, in); got != in {
		t.Errorf("a flag-only policy changed the text: %s", got)
	}
}

func TestScrub(t *testing.T) {
	got := scrub("it names jane.doe@example.com and key AKIA1234567890ABCDEF")
	if got != "it names [email address] and key [secret: aws access key]" {
		t.Errorf("scrub: %s", got)
	}
}
