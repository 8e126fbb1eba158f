package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentry/agentry/internal/engine"
)

// BenchmarkNonLLMStep measures the engine's own cost per step (template
// rendering, journaling calls, events, tree walk) on a chain of ten
// non-model steps with an in-memory journal. Target: ≤ 100 µs per step.
func BenchmarkNonLLMStep(b *testing.B) {
	e := engine.New(engine.Config{})
	d := parse(&testing.T{}, `{"child_steps":[{"id":"s1","step_type":"text","text":"{{input}} one","child_steps":[
		{"id":"s2","step_type":"regex_replace","rules":[{"pattern":"one","replacement":"two"}],"child_steps":[
		{"id":"s3","step_type":"gate","conditions":[{"operator":"contains","value":"two"}],"child_steps":[
		{"id":"s4","step_type":"text","text":"{{step.s1.output}} / {{input}} / {{metadata.lang}}","child_steps":[
		{"id":"s5","step_type":"if_else","conditions":[{"operator":"is_not_empty"}],"then_steps":[{"id":"s6","step_type":"text","text":"then {{input}}"}],"child_steps":[
		{"id":"s7","step_type":"switch","cases":[{"match":"x","steps":[{"id":"s8","step_type":"text","text":"x"}]}],"else_steps":[{"id":"s9","step_type":"text","text":"else"}],"child_steps":[
		{"id":"s10","step_type":"display_result"}]}]}]}]}]}]}]}`)
	h := &host{}
	const steps = 10
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := &engine.Run{ID: "r", AccountID: "a", Input: "in", Metadata: map[string]any{"lang": "en"}}
		if _, err := e.Execute(context.Background(), d, r, newJournal(), h); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/steps/1000, "µs/step")
}

// BenchmarkRegexReplaceBomb runs the five empty-pattern rules that turn
// 1 KB into 161 MB without a limit; B/op shows what the step allocates
// before it fails at the 1 MiB step limit.
func BenchmarkRegexReplaceBomb(b *testing.B) {
	rule := `{"pattern":"","replacement":"0123456789"}`
	d := parse(&testing.T{}, `{"child_steps":[{"id":"bomb","step_type":"regex_replace","rules":[`+
		rule+","+rule+","+rule+","+rule+","+rule+`]}]}`)
	e := engine.New(engine.Config{})
	h := &host{}
	input := string(make([]byte, 1024))
	b.ReportAllocs()
	for b.Loop() {
		r := &engine.Run{ID: "r", AccountID: "a", Input: input}
		if _, err := e.Execute(context.Background(), d, r, newJournal(), h); !errors.Is(err, engine.ErrLimitExceeded) {
			b.Fatal(err)
		}
	}
}
