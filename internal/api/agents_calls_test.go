package api_test

import (
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestCallAgentTargetsAtSave: a definition calling a paused agent by its
// literal id, or naming it by something that is neither an id nor a
// template, is refused at save; a template is accepted and rendered at run
// time.
func TestCallAgentTargetsAtSave(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		callee := createAgent(t, s, s.Key, map[string]any{"name": "callee"})
		caller := createAgent(t, s, s.Key, map[string]any{"name": "caller"})
		wantStatus(t, s.Do(t, "POST", "/agents/"+callee.ID+"/disable", s.Key, nil), http.StatusOK)
		put := func(agentID string) testserver.Response {
			return s.Do(t, "PUT", "/agents/"+caller.ID+"/definition", s.Key, map[string]any{"expected_change_id": getDefinition(t, s, s.Key, caller.ID).ChangeID,
				"definition": map[string]any{"child_steps": []any{map[string]any{"id": "call", "name": "Call", "step_type": "call_agent", "agent_id": agentID}}}})
		}
		wantLoc(t, put(callee.ID), "disabled_agent", "body", "definition", "child_steps", 0, "agent_id")
		wantLoc(t, put("metadata.callee"), "invalid_value", "body", "definition", "child_steps", 0, "agent_id")
		wantStatus(t, put("{{metadata.callee}}"), http.StatusOK)
		wantStatus(t, s.Do(t, "POST", "/agents/"+callee.ID+"/enable", s.Key, nil), http.StatusOK)
		wantStatus(t, put(callee.ID), http.StatusOK)
	})
}
