package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// callAgent makes caller's workflow one call_agent step to callee.
func callAgent(t *testing.T, s *testserver.Server, key, caller, callee string) {
	t.Helper()
	d := getDefinition(t, s, key, caller)
	wantStatus(t, s.Do(t, "PUT", "/agents/"+caller+"/definition", key, map[string]any{"expected_change_id": d.ChangeID,
		"definition": map[string]any{"child_steps": []any{map[string]any{"id": "call", "name": "Call", "step_type": "call_agent",
			"agent_id": callee, "input": "{{input}}"}}}}), http.StatusOK)
}

func TestAgentPause(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		callee := createAgent(t, s, s.Key, map[string]any{"name": "callee"})
		caller := createAgent(t, s, s.Key, map[string]any{"name": "caller"})
		idle := createAgent(t, s, s.Key, map[string]any{"name": "idle"})
		callAgent(t, s, s.Key, caller.ID, callee.ID)

		r := s.Do(t, "GET", "/agents/"+callee.ID+"/callers", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var callers []agents.Caller
		r.JSON(t, &callers)
		if len(callers) != 1 || callers[0].ID != caller.ID || callers[0].Name != "caller" || callers[0].Disabled {
			t.Fatalf("callers: %s", r.Body)
		}
		// At the strict version the list is the envelope.
		r = s.Do(t, "GET", "/agents/"+callee.ID+"/callers", s.Key, nil, "Service-Version: 2026-07-27")
		var env api.Envelope[agents.Caller]
		r.JSON(t, &env)
		if len(env.Data) != 1 || env.Pagination.Total != 1 || env.Pagination.Page != 1 {
			t.Fatalf("callers envelope: %s", r.Body)
		}
		if r = s.Do(t, "GET", "/agents/"+idle.ID+"/callers", s.Key, nil); strings.TrimSpace(string(r.Body)) != "[]" {
			t.Fatalf("no callers: %s", r.Body)
		}

		// A live caller blocks the pause and is named in the 409.
		r = s.Do(t, "POST", "/agents/"+callee.ID+"/disable", s.Key, nil)
		wantStatus(t, r, http.StatusConflict)
		var conflict struct{ Detail string }
		r.JSON(t, &conflict)
		if !strings.Contains(conflict.Detail, caller.ID) || !strings.Contains(conflict.Detail, `"caller"`) {
			t.Fatalf("409 does not name the caller: %s", r.Body)
		}
		if err := s.S.Agents.Runnable(ctx, s.AccountID, callee.ID); err != nil {
			t.Fatalf("refused pause left the agent unrunnable: %v", err)
		}

		// Pause the caller first, then the callee.
		r = s.Do(t, "POST", "/agents/"+caller.ID+"/disable", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var paused api.AgentSummaryResponse
		r.JSON(t, &paused)
		if !paused.Disabled || paused.DisabledAt == nil || *paused.DisabledReason != "manual" {
			t.Fatalf("disable: %s", r.Body)
		}
		if r = s.Do(t, "GET", "/agents/"+callee.ID+"/callers", s.Key, nil); strings.TrimSpace(string(r.Body)) != "[]" {
			t.Fatalf("a paused caller is still listed: %s", r.Body)
		}
		wantStatus(t, s.Do(t, "POST", "/agents/"+callee.ID+"/disable", s.Key, nil), http.StatusOK)
		// Pausing twice keeps the first time.
		again := s.Do(t, "POST", "/agents/"+caller.ID+"/disable", s.Key, nil)
		var twice api.AgentSummaryResponse
		again.JSON(t, &twice)
		if *twice.DisabledAt != *paused.DisabledAt {
			t.Fatalf("pause time moved: %s / %s", *twice.DisabledAt, *paused.DisabledAt)
		}

		// The paused state as the agents area reports it.
		err := s.S.Agents.Runnable(ctx, s.AccountID, callee.ID)
		var de *agents.DisabledError
		if !errors.Is(err, agents.ErrAgentDisabled) || !errors.As(err, &de) || de.Reason != "manual" {
			t.Fatalf("Runnable of a paused agent: %v", err)
		}
		if err := s.S.Agents.Runnable(ctx, s.AccountID, idle.ID); err != nil {
			t.Fatalf("Runnable: %v", err)
		}
		other := s.NewTenant(t, "other")
		if err := s.S.Agents.Runnable(ctx, other.AccountID, idle.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("Runnable across accounts: %v", err)
		}

		// Enable clears the pause.
		r = s.Do(t, "POST", "/agents/"+callee.ID+"/enable", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var resumed api.AgentSummaryResponse
		r.JSON(t, &resumed)
		if resumed.Disabled || resumed.DisabledAt != nil || resumed.DisabledReason != nil {
			t.Fatalf("enable: %s", r.Body)
		}
		wantStatus(t, s.Do(t, "POST", "/agents/"+idle.ID+"/enable", s.Key, nil), http.StatusOK) // enabling an enabled agent is fine
		if err := s.S.Agents.Runnable(ctx, s.AccountID, callee.ID); err != nil {
			t.Fatalf("Runnable after enable: %v", err)
		}

		// A deleted caller blocks nothing.
		wantStatus(t, s.Do(t, "POST", "/agents/"+caller.ID+"/enable", s.Key, nil), http.StatusOK)
		wantStatus(t, s.Do(t, "POST", "/agents/"+callee.ID+"/disable", s.Key, nil), http.StatusConflict)
		wantStatus(t, s.Do(t, "DELETE", "/agents/"+caller.ID, s.Key, nil), http.StatusNoContent)
		wantStatus(t, s.Do(t, "POST", "/agents/"+callee.ID+"/disable", s.Key, nil), http.StatusOK)

		for _, op := range []string{"disable", "enable"} {
			wantStatus(t, s.Do(t, "POST", "/agents/"+idle.ID+"/"+op, other.Key, nil), http.StatusNotFound)
		}
		wantStatus(t, s.Do(t, "GET", "/agents/"+idle.ID+"/callers", other.Key, nil), http.StatusNotFound)
		var still api.AgentSummaryResponse
		json.Unmarshal(s.Do(t, "GET", "/agents/"+idle.ID, s.Key, nil).Body, &still)
		if still.Disabled {
			t.Fatal("another account paused the agent")
		}
	})
}
