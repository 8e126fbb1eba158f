package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/llm/offline"
)

// allocatedDuring reports the bytes allocated on the heap while fn runs.
// Its callers check it only without the race detector (see raceEnabled).
func allocatedDuring(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func wantStepLimit(t *testing.T, err error, stepID, text string) {
	t.Helper()
	var se *engine.StepError
	if !errors.Is(err, engine.ErrLimitExceeded) || !errors.As(err, &se) {
		t.Fatalf("want a step limit error, got %v", err)
	}
	for errors.As(se.Err, &se) { // the innermost step: the one that failed
	}
	if se.StepID != stepID || !strings.Contains(err.Error(), text) {
		t.Fatalf("error %q: want step %s and %q", err, stepID, text)
	}
}

// Five empty-pattern rules turn 1 KB into 161 MB (11^5 times the input):
// the step must fail at the 1 MiB step limit without building that.
func TestRegexReplaceBombStopsAtStepLimit(t *testing.T) {
	rule := `{"pattern":"","replacement":"0123456789"}`
	def := `{"child_steps":[{"id":"bomb","step_type":"regex_replace","rules":[` + strings.Repeat(rule+",", 4) + rule + `]}]}`
	input := strings.Repeat("x", 1024)
	var err error
	alloc := allocatedDuring(func() { _, err = run(t, engine.New(engine.Config{}), def, input, newJournal(), nil) })
	wantStepLimit(t, err, "bomb", "the output of rule 2 exceeds the 1 MiB limit (SERVICE_MAX_STEP_OUTPUT_BYTES)")
	if alloc > 32<<20 && !raceEnabled {
		t.Errorf("the step allocated %d MiB on its way to the 1 MiB limit", alloc>>20)
	}
	t.Logf("allocated %.1f MiB", float64(alloc)/(1<<20))

	// A replacement with group references is expanded match by match…
	def = `{"child_steps":[{"id":"refs","step_type":"regex_replace","rules":[{"pattern":"(.)","replacement":"$1$1$1$1$1$1$1$1"}]}]}`
	_, err = run(t, engine.New(engine.Config{}), def, strings.Repeat("y", 200<<10), newJournal(), nil)
	wantStepLimit(t, err, "refs", "the output of rule 0 exceeds the 1 MiB limit")
	// … or, when the pattern looks around its match, sized for its worst case.
	def = `{"child_steps":[{"id":"refs","step_type":"regex_replace","rules":[{"pattern":"\\b(y+)","replacement":"$1$1$1$1$1$1"}]}]}`
	_, err = run(t, engine.New(engine.Config{}), def, strings.Repeat("y", 200<<10), newJournal(), nil)
	wantStepLimit(t, err, "refs", "the output of rule 0 could exceed the 1 MiB limit")
}

// Under the limit regex_replace behaves as it always has, up to an output
// exactly at the limit, and a rule that shrinks a long input is not refused
// for the input's length.
func TestRegexReplaceWithinLimit(t *testing.T) {
	e := engine.New(engine.Config{Limits: engine.Limits{MaxStepOutputBytes: 1000}})
	cases := []struct{ rules, in, want string }{
		{`{"pattern":"","replacement":"-"}`, strings.Repeat("a", 499), strings.Repeat("-a", 499) + "-"},
		{`{"pattern":"(a)(b)","replacement":"$2\\1"}`, strings.Repeat("ab", 400), strings.Repeat("ba", 400)},
		{`{"pattern":"b+","replacement":""}`, strings.Repeat("ab", 900), strings.Repeat("a", 900)},
		{`{"pattern":"^a","flags":"m","replacement":"A"},{"pattern":"\\bc","replacement":"C"}`, "ab\nab cc", "Ab\nAb Cc"},
	}
	for _, c := range cases {
		out, err := run(t, e, `{"child_steps":[{"id":"r","step_type":"regex_replace","rules":[`+c.rules+`]}]}`, c.in, newJournal(), nil)
		if err != nil || out.Output != c.want {
			t.Errorf("%s: %q %v", c.rules, truncated(out.Output), err)
		}
	}
	_, err := run(t, e, `{"child_steps":[{"id":"r","step_type":"regex_replace","rules":[{"pattern":"","replacement":"-"}]}]}`,
		strings.Repeat("a", 500), newJournal(), nil)
	wantStepLimit(t, err, "r", "exceeds the 1000-byte limit")
}

func truncated(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// Chained text steps multiplying their input stop at the step limit: the
// template stops growing there.
func TestTextChainStopsAtStepLimit(t *testing.T) {
	tenfold := strings.Repeat("{{input}}", 10)
	def := `{"child_steps":[{"id":"t1","step_type":"text","text":"` + tenfold + `","child_steps":[
		{"id":"t2","step_type":"text","text":"` + tenfold + `","child_steps":[
		{"id":"t3","step_type":"text","text":"` + tenfold + `","child_steps":[
		{"id":"t4","step_type":"text","text":"` + tenfold + `","child_steps":[
		{"id":"t5","step_type":"text","text":"` + tenfold + `","child_steps":[
		{"id":"t6","step_type":"text","text":"` + tenfold + `"}]}]}]}]}]}]}`
	var err error
	j := newJournal()
	alloc := allocatedDuring(func() { _, err = run(t, engine.New(engine.Config{}), def, strings.Repeat("x", 1000), j, nil) })
	// t3 makes 1,000,000 bytes, under 1 MiB; t4 would make ten times that.
	wantStepLimit(t, err, "t4", "rendered template exceeds the 1 MiB limit (SERVICE_MAX_STEP_OUTPUT_BYTES)")
	if alloc > 32<<20 && !raceEnabled {
		t.Errorf("allocated %d MiB", alloc>>20)
	}
	last := j.records[len(j.records)-1]
	if last.StepID != "t4" || last.Status != engine.StatusFailed || !strings.Contains(last.Error, "1 MiB") {
		t.Errorf("the failure is not journaled on t5: %+v", last.StepID)
	}
}

// The run's outputs together are bounded, and every step type is held to
// the step limit, whether or not it builds its output with the engine.
func TestRunOutputLimit(t *testing.T) {
	e := engine.New(engine.Config{Limits: engine.Limits{MaxStepOutputBytes: 1000, MaxRunOutputBytes: 3000}})
	def := `{"child_steps":[{"id":"a","step_type":"text","text":"{{input}}","child_steps":[
		{"id":"b","step_type":"text","text":"{{input}}","child_steps":[
		{"id":"c","step_type":"text","text":"{{input}}","child_steps":[
		{"id":"d","step_type":"text","text":"{{input}}"}]}]}]}]}`
	_, err := run(t, e, def, strings.Repeat("z", 800), newJournal(), nil)
	wantStepLimit(t, err, "d", "the run's total output exceeds the 3000-byte limit (SERVICE_MAX_RUN_OUTPUT_BYTES)")
	if out, err := run(t, e, def, strings.Repeat("z", 700), newJournal(), nil); err != nil || len(out.Output) != 700 {
		t.Errorf("2800 bytes in all refused: %v", err)
	}

	// A step type from another area: the engine checks what it returns.
	e.Registry.Register("big_output", engine.HandlerFunc(func(context.Context, *engine.Exec) (engine.Result, error) {
		return engine.Result{Output: strings.Repeat("b", 1001)}, nil
	}))
	d := parse(t, `{"child_steps":[{"id":"big","step_type":"text","text":"x"}]}`)
	d.Steps[0].Type = "big_output"
	_, err = e.Execute(context.Background(), d, &engine.Run{ID: "r", AccountID: "a"}, newJournal(), &host{model: offline.New()})
	wantStepLimit(t, err, "big", "output exceeds the 1000-byte limit")

	// for_each and join refuse to assemble an output past the limit.
	_, err = run(t, e, `{"child_steps":[{"id":"loop","step_type":"for_each","body":[{"id":"item","step_type":"text","text":"{{input}}{{input}}"}]}]}`,
		`["`+strings.Repeat("q", 200)+`","`+strings.Repeat("r", 200)+`","`+strings.Repeat("s", 200)+`"]`, newJournal(), nil)
	wantStepLimit(t, err, "loop", "the items' combined output exceeds the 1000-byte limit")
}

// A nested for_each of 200×200 items ran 40,000 steps: the run now stops
// at the steps-per-run limit.
func TestNestedForEachStopsAtStepLimit(t *testing.T) {
	items := make([]int, 200)
	list, _ := json.Marshal(items)
	def := `{"child_steps":[{"id":"outer","step_type":"for_each","max_items":200,"items":"` + strings.ReplaceAll(string(list), `"`, `\"`) + `","body":[
		{"id":"inner","step_type":"for_each","max_items":200,"items":"{{agent.input}}","body":[{"id":"leaf","step_type":"text","text":"{{input}}"}]}]}]}`
	j := newJournal()
	_, err := run(t, engine.New(engine.Config{}), def, string(list), j, nil)
	wantStepLimit(t, err, "leaf", "the run exceeds the 10000-step limit (SERVICE_MAX_STEPS_PER_RUN)")
	completed := 0
	for _, r := range j.records {
		if r.Status == engine.StatusCompleted {
			completed++
		}
	}
	if completed > engine.DefaultMaxStepsPerRun || completed < engine.DefaultMaxStepsPerRun-10 {
		t.Errorf("%d steps completed; want just under the limit of %d", completed, engine.DefaultMaxStepsPerRun)
	}

	// Attempts and retries are steps too.
	e := engine.New(engine.Config{Limits: engine.Limits{MaxStepsPerRun: 5}})
	_, err = run(t, e, `{"child_steps":[{"id":"draft","step_type":"text","text":"draft","child_steps":[
		{"id":"check","step_type":"gate","conditions":[{"operator":"contains","value":"draft"}],"child_steps":[
			{"id":"again","step_type":"retry","target_step_id":"draft","max_retries":10}]}]}]}`, "", newJournal(), nil)
	wantStepLimit(t, err, "again", "the run exceeds the 5-step limit")
}

// wideObject is a JSON object of n keys, written in descending order.
func wideObject(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%06d":1`, n-i)
	}
	b.WriteString("}")
	return b.String()
}

// Cancelling a run stops it within a step, even when each step reads every
// key of an 80,000-key object (which took 9.9 s a step while the keys were
// insertion-sorted). The design target is 100 ms; the test allows 2 s.
func TestCancelStopsLongRun(t *testing.T) {
	doc := wideObject(80_000)
	items, _ := json.Marshal(make([]int, 1000))
	def := parse(t, `{"child_steps":[{"id":"loop","step_type":"for_each","max_items":1000,"items":"`+strings.ReplaceAll(string(items), `"`, `\"`)+`","body":[
		{"id":"look","step_type":"gate","conditions":[{"input":"{{agent.input}}","json_path":"$.*","operator":"exists"}]}]}]}`)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := engine.New(engine.Config{}).Execute(ctx, def, &engine.Run{ID: "r", AccountID: "a", Input: doc}, newJournal(), &host{model: offline.New()})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	cancelled := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want the cancellation, got %v", err)
		}
		t.Logf("stopped %v after cancel", time.Since(cancelled))
	case <-time.After(2 * time.Second):
		t.Fatal("the run did not stop within 2 s of its cancel")
	}
}

// A regex_replace over a long input looks at the run's context as it
// goes: fifty size-neutral rules over 1 MiB take seconds to apply.
func TestCancelStopsRegexReplace(t *testing.T) {
	rule := `{"pattern":"","replacement":""}`
	def := parse(t, `{"child_steps":[{"id":"slow","step_type":"regex_replace","rules":[`+strings.Repeat(rule+",", 49)+rule+`]}]}`)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := engine.New(engine.Config{}).Execute(ctx, def, &engine.Run{ID: "r", AccountID: "a", Input: strings.Repeat("w", 1<<20-1)}, newJournal(), &host{model: offline.New()})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancelled := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want the cancellation, got %v", err)
		}
		t.Logf("stopped %v after cancel", time.Since(cancelled))
	case <-time.After(2 * time.Second):
		t.Fatal("the run did not stop within 2 s of its cancel")
	}
}
