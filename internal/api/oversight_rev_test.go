package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// Overseers keep what they loaded for an agent while its oversight
// revision stays the same. Every change to what oversees the agent (its
// criteria, its settings, its own and its account's policies) must reach
// the very next run, after runs that warmed the cache.
func TestOversightChangesReachTheNextRun(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := storeAgentWith(t, s, s.AccountID, chainDef,
			agents.AgentSettings{EvaluationMode: "eval_and_retry", RetryOnFailure: true, MaxRetries: 0})
		other := storeAgentWith(t, s, s.AccountID, chainDef, agents.AgentSettings{EvaluationMode: "output_expectation"})
		run := func(agentID, input string) (status, reason string) {
			t.Helper()
			done := waitRun(t, s, s.Key, startRun(t, s, s.Key, agentID, input))
			return done.Status, runError(done)
		}
		want := func(agentID, input, status, reasonHas string) {
			t.Helper()
			got, reason := run(agentID, input)
			if got != status || !strings.Contains(reason, reasonHas) {
				t.Fatalf("run of %q: %s (%q), want %s (%q)", input, got, reason, status, reasonHas)
			}
		}
		// Warm: no criteria, no policies.
		want(agent, "forbidden", "completed", "")
		want(other, "forbidden", "completed", "")

		// A new criterion judges the next run.
		r := s.Do(t, "POST", "/agents/"+agent+"/evaluation-criteria", s.Key, map[string]any{"step_id": "greet",
			"description": "no forbidden words", "pass_threshold": 1, "expectation_config": map[string]any{"not_contains": "forbidden"}})
		wantStatus(t, r, http.StatusCreated)
		var crit struct {
			ID string `json:"id"`
		}
		r.JSON(t, &crit)
		want(agent, "forbidden", "failed", "failed its evaluation")
		want(agent, "allowed", "completed", "")

		// Changing it changes the judgment.
		r = s.Do(t, "PATCH", "/agents/evaluation-criteria/"+crit.ID, s.Key, map[string]any{"expectation_config": map[string]any{"not_contains": "allowed"}})
		wantStatus(t, r, http.StatusOK)
		want(agent, "forbidden", "completed", "")
		want(agent, "allowed", "failed", "failed its evaluation")

		// The agent's settings: a mode that judges nothing.
		r = s.Do(t, "PUT", "/agents/"+agent, s.Key, map[string]any{"evaluation_mode": "output_expectation"})
		wantStatus(t, r, http.StatusOK)
		want(agent, "allowed", "completed", "")
		r = s.Do(t, "PUT", "/agents/"+agent, s.Key, map[string]any{"evaluation_mode": "eval_and_retry"})
		wantStatus(t, r, http.StatusOK)
		want(agent, "allowed", "failed", "failed its evaluation")

		// Deleting the criterion ends its judgments.
		wantStatus(t, s.Do(t, "DELETE", "/agents/evaluation-criteria/"+crit.ID, s.Key, nil), http.StatusNoContent)
		want(agent, "allowed", "completed", "")

		// An account-wide policy governs every agent of the account from
		// their next runs, and stops when disabled or deleted.
		p := createPolicy(t, s, s.Key, map[string]any{"name": "No personal data", "config": map[string]any{
			"action": "block", "rules": []any{map[string]any{"type": "pii", "kinds": []string{"email"}}}}})
		want(agent, "mail ada@example.com", "failed", "blocked by governance policy")
		want(other, "mail ada@example.com", "failed", "blocked by governance policy")
		r = s.Do(t, "PATCH", "/governance/policies/"+p.ID, s.Key, map[string]any{"enabled": false})
		wantStatus(t, r, http.StatusOK)
		want(agent, "mail ada@example.com", "completed", "")
		want(other, "mail ada@example.com", "completed", "")
		r = s.Do(t, "PATCH", "/governance/policies/"+p.ID, s.Key, map[string]any{"enabled": true})
		wantStatus(t, r, http.StatusOK)
		want(other, "mail ada@example.com", "failed", "blocked by governance policy")
		wantStatus(t, s.Do(t, "DELETE", "/governance/policies/"+p.ID, s.Key, nil), http.StatusNoContent)
		want(other, "mail ada@example.com", "completed", "")

		// An agent's own policy governs that agent alone.
		createPolicy(t, s, s.Key, map[string]any{"name": "Only here", "agent_id": agent, "config": map[string]any{
			"action": "block", "rules": []any{map[string]any{"type": "blocked_terms", "terms": []string{"secret"}}}}})
		want(agent, "a secret", "failed", "blocked by governance policy")
		want(other, "a secret", "completed", "")

		// Another account's change moves nothing here, and this account's
		// agents' revisions are not another account's to read.
		t2 := s.NewTenant(t, "other org")
		agent2 := storeAgentWith(t, s, t2.AccountID, chainDef, agents.AgentSettings{EvaluationMode: "output_expectation"})
		createPolicy(t, s, t2.Key, map[string]any{"name": "Theirs", "config": map[string]any{
			"action": "block", "rules": []any{map[string]any{"type": "blocked_terms", "terms": []string{"hello"}}}}})
		want(other, "hello", "completed", "")
		if done := waitRun(t, s, t2.Key, startRun(t, s, t2.Key, agent2, "hello")); done.Status != "failed" {
			t.Fatalf("the other account's policy: %+v", done)
		}
	})
}
