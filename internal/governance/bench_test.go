package governance

import (
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/evals"
)

// stepOutput is a typical step output: about 2 KB of prose with a JSON
// object at the end, with nothing a policy blocks.
var stepOutput = strings.Repeat("The customer asked about the renewal of the annual plan and the invoice dated last month. ", 20) +
	`{"name": "Ada Lovelace", "plan": "annual", "total": 120, "currency": "EUR"}`

// BenchmarkStepOversight is what deterministic oversight adds to one step:
// a PII policy (e-mail, phone, card, national id), a secrets policy, a
// blocked-terms policy and a regex policy checked on the output, plus a
// deterministic evaluation (JSON Schema, contains, numeric range) of it.
func BenchmarkStepOversight(b *testing.B) {
	var ps []*Policy
	for _, cfg := range []string{`{"action": "block", "rules": [{"type": "pii"}]}`, `{"rules": [{"type": "secrets"}]}`,
		`{"rules": [{"type": "blocked_terms", "terms": ["project falcon", "q3 forecast", "layoffs"]}]}`,
		`{"rules": [{"type": "regex", "patterns": ["(?i)internal use only", "\\bconfidential\\b"]}]}`} {
		p, err := Parse("", []byte(cfg))
		if err != nil {
			b.Fatal(err)
		}
		ps = append(ps, p)
	}
	exp, err := evals.ParseExpectation([]byte(`{"json_schema": {"type": "object", "required": ["name", "total"]}, "contains": "Ada",
		"numeric_range": {"min": 0, "max": 1000, "path": "$.total"}}`))
	if err != nil {
		b.Fatal(err)
	}
	jsonPart := stepOutput[strings.IndexByte(stepOutput, '{'):]
	b.SetBytes(int64(len(stepOutput)))
	b.ReportAllocs()
	for b.Loop() {
		lower := strings.ToLower(stepOutput)
		for _, p := range ps {
			for i := range p.Rules {
				if _, hit := p.Rules[i].CheckDeterministic(stepOutput, lower); hit {
					b.Fatal("unexpected finding")
				}
			}
		}
		for _, c := range exp.Check(jsonPart) {
			if !c.Passed {
				b.Fatal(c.Detail)
			}
		}
	}
}
