package definition

import (
	"context"
	"testing"
)

// pausedAgents is a Resolver with every entity, some agents paused.
type pausedAgents map[string]bool

func (pausedAgents) Exists(context.Context, RefKind, string) (bool, error) { return true, nil }

func (p pausedAgents) AgentPaused(_ context.Context, id string) (bool, error) { return p[id], nil }

// TestCallAgentTargets: a literal agent_id must be a UUID of an agent that
// is not paused; a {{…}} template is left to run time.
func TestCallAgentTargets(t *testing.T) {
	const paused = "0190a000-0000-7000-8000-0000000000ff"
	res := pausedAgents{paused: true}
	cases := []struct {
		name, agentID string
		want          Code // "" for no error
	}{
		{"a live agent", agentID, ""},
		{"a paused agent", paused, CodeDisabledAgent},
		{"not an id", "sales-bot", CodeInvalidValue},
		{"a template without braces", "metadata.agent", CodeInvalidValue},
		{"a template", "{{metadata.agent}}", ""},
	}
	for _, c := range cases {
		d := mustParse(t, `{"child_steps":[{"id":"c","name":"C","step_type":"call_agent","agent_id":"`+c.agentID+`"}]}`)
		rep, err := Validate(context.Background(), d, ValidateOptions{Resolver: res})
		if err != nil {
			t.Fatal(err)
		}
		var got []Code
		for _, p := range rep.Problems.Errors() {
			got = append(got, p.Code)
		}
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || got[0] != c.want) {
			t.Errorf("%s: errors %v, want %q", c.name, got, c.want)
		}
		if c.want == "" && c.agentID[0] == '{' {
			if w := rep.Problems; len(w) == 0 || w[0].Code != CodeDynamicRef {
				t.Errorf("%s: want a dynamic_ref warning, got %v", c.name, w)
			}
		}
	}
	// A paused agent referenced elsewhere than call_agent is not refused.
	d := mustParse(t, `{"child_steps":[{"id":"h","name":"H","step_type":"human_in_the_loop","instructions":"ok?","assignee_user_ids":["`+paused+`"]}]}`)
	if rep, _ := Validate(context.Background(), d, ValidateOptions{Resolver: res}); rep.Problems.HasErrors() {
		t.Errorf("a non-agent reference was checked for a pause: %v", rep.Problems.Errors())
	}
}
