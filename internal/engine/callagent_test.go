package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/llm/offline"
)

// TestCallAgentRendersAgentID: a placeholder in agent_id is rendered
// before the host is asked; one that does not resolve, or renders empty,
// fails the step without calling anything.
func TestCallAgentRendersAgentID(t *testing.T) {
	e := engine.New(engine.Config{})
	var called []string
	h := &host{model: offline.New(), calls: func(id, in string) (string, error) {
		called = append(called, id)
		return "sub(" + id + ")", nil
	}}
	exec := func(def string, md map[string]any) (engine.Outcome, error) {
		r := &engine.Run{ID: "r", AccountID: "a", AgentID: "agent-1", Input: "go", Metadata: md}
		return e.Execute(context.Background(), parse(t, def), r, newJournal(), h)
	}
	def := `{"child_steps":[{"id":"c","step_type":"call_agent","agent_id":"{{metadata.callee}}"}]}`
	out, err := exec(def, map[string]any{"callee": "agent-7"})
	if err != nil || out.Output != "sub(agent-7)" || len(called) != 1 || called[0] != "agent-7" {
		t.Fatalf("rendered call: %q %v, host asked for %q", out.Output, err, called)
	}
	called = nil
	if _, err := exec(def, map[string]any{}); err == nil || !strings.Contains(err.Error(), "metadata.callee") || len(called) != 0 {
		t.Errorf("an unresolved placeholder: %v, host asked for %q", err, called)
	}
	if _, err := exec(def, map[string]any{"callee": " "}); err == nil || !strings.Contains(err.Error(), "agent_id is empty") || len(called) != 0 {
		t.Errorf("an empty rendering: %v, host asked for %q", err, called)
	}
	// The rendered id is what the cycle check sees.
	if _, err := exec(def, map[string]any{"callee": "agent-1"}); err == nil || !strings.Contains(err.Error(), "itself") || len(called) != 0 {
		t.Errorf("a self call through a placeholder: %v", err)
	}
}
