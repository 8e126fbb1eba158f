package definition

import (
	"reflect"
	"testing"
)

func TestParsePlaceholders(t *testing.T) {
	cases := []struct {
		tpl  string
		want []Placeholder
	}{
		{"Hello {{input}}", []Placeholder{{Expr: "input", Kind: PlaceholderInput}}},
		{"{{ agent.input }}{{agent.attachments}}{{attachments}}", []Placeholder{
			{Expr: "agent.input", Kind: PlaceholderInput},
			{Expr: "agent.attachments", Kind: PlaceholderAllAttachments},
			{Expr: "attachments", Kind: PlaceholderAllAttachments}}},
		{"{{step.fetch-1.output}} {{step.a.b.input}} {{step.x}}", []Placeholder{
			{Expr: "step.fetch-1.output", Kind: PlaceholderStep, StepID: "fetch-1", StepField: "output"},
			{Expr: "step.a.b.input", Kind: PlaceholderStep, StepID: "a.b", StepField: "input"},
			{Expr: "step.x", Kind: PlaceholderOther}}},
		{"{{attachments[0]}} {{attachments[12].text}}", []Placeholder{
			{Expr: "attachments[0]", Kind: PlaceholderAttachment, Selector: Selector{Kind: SelectorIndex, Index: 0}},
			{Expr: "attachments[12].text", Kind: PlaceholderAttachment, Selector: Selector{Kind: SelectorIndex, Index: 12}}}},
		{`{{attachments["report.pdf"]}} {{attachments['a b.txt']}} {{attachments[notes.md]}}`, []Placeholder{
			{Expr: `attachments["report.pdf"]`, Kind: PlaceholderAttachment, Selector: Selector{Kind: SelectorName, Value: "report.pdf"}},
			{Expr: `attachments['a b.txt']`, Kind: PlaceholderAttachment, Selector: Selector{Kind: SelectorName, Value: "a b.txt"}},
			{Expr: `attachments[notes.md]`, Kind: PlaceholderAttachment, Selector: Selector{Kind: SelectorName, Value: "notes.md"}}}},
		{`{{attachments["*.csv"]}} {{attachments[*.pdf]}} {{attachments[[ab]?.txt]}} {{attachments["0"]}}`, []Placeholder{
			{Expr: `attachments["*.csv"]`, Kind: PlaceholderAttachment, Selector: Selector{Kind: SelectorPattern, Value: "*.csv"}},
			{Expr: `attachments[*.pdf]`, Kind: PlaceholderAttachment, Selector: Selector{Kind: SelectorPattern, Value: "*.pdf"}},
			{Expr: `attachments[[ab]?.txt]`, Kind: PlaceholderAttachment, Selector: Selector{Kind: SelectorPattern, Value: "[ab]?.txt"}},
			{Expr: `attachments["0"]`, Kind: PlaceholderAttachment, Selector: Selector{Kind: SelectorName, Value: "0"}}}},
		{`{{attachments["q\"uote.txt"]}}`, []Placeholder{
			{Expr: `attachments["q\"uote.txt"]`, Kind: PlaceholderAttachment, Selector: Selector{Kind: SelectorName, Value: `q"uote.txt`}}}},
		{`{{attachments[]}} {{attachments[-1]}} {{attachments[5000]}} {{attachments["x"}} {{attachments[0}}`, []Placeholder{
			{Expr: `attachments[]`, Kind: PlaceholderAttachment, Invalid: "empty selector"},
			{Expr: `attachments[-1]`, Kind: PlaceholderAttachment, Invalid: "negative indexes are not supported"},
			{Expr: `attachments[5000]`, Kind: PlaceholderAttachment, Invalid: "index larger than 1000"},
			{Expr: `attachments["x"`, Kind: PlaceholderAttachment, Invalid: "expected ] after the quoted name"},
			{Expr: `attachments[0`, Kind: PlaceholderAttachment, Invalid: "missing ]"}}},
		{"{{metadata.lang}} {{ input | upper }} {{unclosed", []Placeholder{
			{Expr: "metadata.lang", Kind: PlaceholderOther},
			{Expr: "input | upper", Kind: PlaceholderInput}}},
		{"no placeholders { here }", nil},
	}
	for _, c := range cases {
		got := ParsePlaceholders(c.tpl)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParsePlaceholders(%q)\n got %+v\nwant %+v", c.tpl, got, c.want)
		}
	}
}

func TestStepTemplatesSkipNonTemplates(t *testing.T) {
	s := &Step{ID: "x", Type: StepGate, Config: map[string]any{
		"purpose":    "{{input}} in docs is not a template",
		"conditions": []any{map[string]any{"input": "{{step.a.output}}", "operator": "equals", "value": "{{not a template}}"}},
		"future":     map[string]any{"deep": []any{"{{attachments[1]}}"}},
	}}
	got := s.Templates("p")
	want := []TemplateText{
		{Path: "p.conditions[0].input", Text: "{{step.a.output}}"},
		{Path: "p.future.deep[0]", Text: "{{attachments[1]}}"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
}
