// Package examplestest checks that the examples of the documentation do
// what the documentation says, against the real engine and server.
package examplestest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/llm/offline"
)

// exampleRun is the run every example of docs/templates.md renders in.
type exampleRun struct {
	RunID       string              `json:"run_id"`
	AgentID     string              `json:"agent_id"`
	Input       string              `json:"input"`
	Metadata    map[string]any      `json:"metadata"`
	Steps       []exampleStep       `json:"steps"`
	Attachments []engine.Attachment `json:"attachments"`
}

// exampleStep is a step before the one rendering; its output is a text or
// a JSON value (produced as its compact JSON text).
type exampleStep struct {
	ID     string          `json:"id"`
	Output json.RawMessage `json:"output"`
}

func (s exampleStep) text() string {
	var str string
	if json.Unmarshal(s.Output, &str) == nil {
		return str
	}
	var v any
	_ = json.Unmarshal(s.Output, &v)
	b, _ := json.Marshal(v)
	return string(b)
}

// example is one line of a ```template or ```condition block:
// `TEMPLATE → RESULT` or `TEMPLATE ✗ ERROR TEXT`.
type example struct {
	kind, source, want string
	fails              bool
	line               int
}

// parseDoc reads the example run and every example line of the page.
func parseDoc(t *testing.T, path string) (exampleRun, []example) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		run      exampleRun
		haveRun  bool
		out      []example
		block    string // info string of the open fence, "" outside
		runJSON  strings.Builder
		lineNo   int
		sc       = bufio.NewScanner(f)
		splitter = func(s string) (string, string, bool, bool) {
			if a, b, ok := strings.Cut(s, " → "); ok {
				return a, b, false, true
			}
			if a, b, ok := strings.Cut(s, " ✗ "); ok {
				return a, b, true, true
			}
			return "", "", false, false
		}
	)
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			if block == "" {
				block = strings.TrimSpace(strings.TrimPrefix(line, "```"))
				continue
			}
			if block == "json example-run" {
				if err := json.Unmarshal([]byte(runJSON.String()), &run); err != nil {
					t.Fatalf("the example run is not valid: %v", err)
				}
				haveRun = true
			}
			block = ""
			continue
		}
		switch block {
		case "json example-run":
			runJSON.WriteString(line + "\n")
		case "template", "condition":
			if strings.TrimSpace(line) == "" {
				continue
			}
			src, want, fails, ok := splitter(line)
			if !ok {
				t.Fatalf("%s:%d: an example needs → or ✗: %q", path, lineNo, line)
			}
			want = strings.TrimSpace(want)
			if !fails && strings.HasPrefix(want, `"`) {
				uq, err := strconv.Unquote(want)
				if err != nil {
					t.Fatalf("%s:%d: bad quoted result %s", path, lineNo, want)
				}
				want = uq
			}
			out = append(out, example{kind: block, source: strings.TrimSpace(src), want: want, fails: fails, line: lineNo})
		}
	}
	if !haveRun {
		t.Fatal("docs/templates.md has no ```json example-run block")
	}
	return run, out
}

// definitionFor builds the chain of the example run with the example in
// the step `reply`, and a step `after` behind it.
func definitionFor(run exampleRun, ex example) (*definition.Definition, error) {
	reply := &definition.Step{ID: "reply", Type: definition.StepText, Config: map[string]any{"text": ex.source}}
	if ex.kind == "condition" {
		var rule any
		if err := json.Unmarshal([]byte(ex.source), &rule); err != nil {
			return nil, fmt.Errorf("the condition is not JSON: %v", err)
		}
		text := func(id, s string) *definition.Step {
			return &definition.Step{ID: id, Type: definition.StepText, Config: map[string]any{"text": s}}
		}
		reply = &definition.Step{ID: "reply", Type: definition.StepIfElse, Config: map[string]any{"conditions": []any{rule}},
			Then: []*definition.Step{text("yes", "true")}, Else: []*definition.Step{text("no", "false")}}
	}
	reply.Children = []*definition.Step{{ID: "after", Type: definition.StepText, Config: map[string]any{"text": "done"}}}
	next := reply
	for i := len(run.Steps) - 1; i >= 0; i-- {
		s := run.Steps[i]
		// A literal output must not itself be read as a template.
		if strings.Contains(s.text(), "{{") {
			return nil, fmt.Errorf("step %s: outputs with {{ cannot be produced by a text step", s.ID)
		}
		next = &definition.Step{ID: s.ID, Type: definition.StepText, Config: map[string]any{"text": s.text()}, Children: []*definition.Step{next}}
	}
	return &definition.Definition{Name: "templates", Steps: []*definition.Step{next}}, nil
}

func TestTemplatesDocExamples(t *testing.T) {
	run, examples := parseDoc(t, filepath.Join("..", "..", "docs", "templates.md"))
	if len(examples) < 50 {
		t.Fatalf("found %d examples in docs/templates.md; the parser or the page is broken", len(examples))
	}
	e := engine.New(engine.Config{})
	for _, ex := range examples {
		t.Run(fmt.Sprintf("line %d", ex.line), func(t *testing.T) {
			def, err := definitionFor(run, ex)
			if err != nil {
				t.Fatal(err)
			}
			j := &recorder{}
			r := &engine.Run{ID: run.RunID, AccountID: "account", AgentID: run.AgentID, Input: run.Input,
				Metadata: run.Metadata, Attachments: run.Attachments}
			_, err = e.Execute(context.Background(), def, r, j, &host{})
			got, ok := j.output("reply")
			switch {
			case ex.fails && err == nil:
				t.Fatalf("%s rendered %q; the page says it fails with %q", ex.source, got, ex.want)
			case ex.fails && !errors.Is(err, engine.ErrMissingReference) && ex.kind == "template":
				t.Fatalf("%s failed with %v, not a missing reference", ex.source, err)
			case ex.fails && !strings.Contains(err.Error(), ex.want):
				t.Fatalf("%s failed with %q; the page says %q", ex.source, err, ex.want)
			case ex.fails:
				var se *engine.StepError
				if !errors.As(err, &se) || se.StepID != "reply" {
					t.Fatalf("%s: the error must name the step: %v", ex.source, err)
				}
			case err != nil:
				t.Fatalf("%s failed: %v; the page says it renders %q", ex.source, err, ex.want)
			case !ok || got != ex.want:
				t.Fatalf("%s rendered %q; the page says %q", ex.source, got, ex.want)
			}
		})
	}
}

// recorder is a journal in memory: it keeps each step's completed output.
type recorder struct {
	mu      sync.Mutex
	outputs map[string]string
}

func (j *recorder) Completed(context.Context) (map[string]engine.StepRecord, error) {
	return map[string]engine.StepRecord{}, nil
}
func (j *recorder) StepStarted(context.Context, engine.StepRecord) error { return nil }
func (j *recorder) StepFinished(_ context.Context, r engine.StepRecord) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if r.Status == engine.StatusCompleted {
		if j.outputs == nil {
			j.outputs = map[string]string{}
		}
		j.outputs[r.Key] = r.Output
	}
	return nil
}
func (j *recorder) Supersede(context.Context, []string) error   { return nil }
func (j *recorder) Emit(context.Context, ...engine.Event) error { return nil }
func (j *recorder) output(key string) (string, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	v, ok := j.outputs[key]
	return v, ok
}

// host is the platform as far as text steps need it: nothing calls out.
type host struct{}

func (host) Model() llm.Provider             { return offline.New() }
func (host) DefaultModel() string            { return "agentry_offline" }
func (host) Price(string, llm.Usage) float64 { return 0 }
func (host) CallAgent(context.Context, *engine.Run, string, string, bool) (string, error) {
	return "", errors.New("no sub-agents in template examples")
}
func (host) AwaitHuman(context.Context, *engine.Run, string, string, string, map[string]any) (bool, string, error) {
	return false, "", engine.ErrParked
}
func (host) Secret(context.Context, string) (engine.Secret, error) {
	return engine.Secret{}, errors.New("no account secrets in template examples")
}
