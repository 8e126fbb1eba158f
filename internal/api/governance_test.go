package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func createPolicy(t *testing.T, s *testserver.Server, key string, body map[string]any) api.GovernancePolicyResponse {
	t.Helper()
	r := s.Do(t, "POST", "/governance/policies", key, body)
	wantStatus(t, r, http.StatusCreated)
	var p api.GovernancePolicyResponse
	r.JSON(t, &p)
	return p
}

// The PII example of docs/governance.md: an account-wide policy blocks runs
// whose input holds an e-mail address; the run fails with the policy's
// reason and no step runs.
func TestPIIPolicyBlocksARun(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := makeAgent(t, s, s.AccountID, chainDef)
		p := createPolicy(t, s, s.Key, map[string]any{"name": "No personal data", "config": map[string]any{
			"action": "block", "rules": []any{map[string]any{"type": "pii", "kinds": []string{"email", "card"}}}}})
		if p.AgentID != nil || !p.Enabled {
			t.Fatalf("policy: %+v", p)
		}
		run := startRun(t, s, s.Key, agent, "please mail jane.doe@example.com the report")
		done := waitRun(t, s, s.Key, run)
		if done.Status != "failed" || len(done.Steps) != 0 ||
			runError(done) != `blocked by governance policy "No personal data": the run input contains an e-mail address` {
			t.Fatalf("blocked run: %+v (%s)", done, runError(done))
		}
		if strings.Contains(runError(done), "jane.doe") {
			t.Error("the reason quotes the blocked data")
		}
		// Clean input runs.
		done = waitRun(t, s, s.Key, startRun(t, s, s.Key, agent, "world"))
		if done.Status != "completed" {
			t.Fatalf("clean run: %+v", done)
		}
		// A step's output with a card number is blocked, and its output is
		// neither journaled nor the run's.
		outAgent := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"leak","step_type":"text","text":"card 4111 1111 1111 1111 on file",
			"child_steps":[{"id":"show","step_type":"display_result","template":"{{input}}"}]}]}`)
		done = waitRun(t, s, s.Key, startRun(t, s, s.Key, outAgent, "hi"))
		if done.Status != "failed" || !strings.Contains(runError(done), "payment card number") || done.Output != nil {
			t.Fatalf("output block: %+v %s", done, runError(done))
		}
		for _, st := range done.Steps {
			if st.Output != nil && strings.Contains(*st.Output, "4111") {
				t.Errorf("the blocked output was journaled: %+v", st)
			}
		}
		n, err := s.S.Governance.Violations(t.Context(), s.AccountID, "", "block")
		if err != nil || n != 2 {
			t.Errorf("recorded blocks: %d %v", n, err)
		}

		// A flag policy lets the run through and records the flag.
		createPolicy(t, s, s.Key, map[string]any{"name": "Watch the falcon", "agent_id": agent, "config": map[string]any{
			"rules": []any{map[string]any{"type": "blocked_terms", "terms": []string{"Project Falcon"}}}}})
		run = startRun(t, s, s.Key, agent, "news on project falcon")
		if done := waitRun(t, s, s.Key, run); done.Status != "completed" {
			t.Fatalf("flagged run: %+v", done)
		}
		if n, _ := s.S.Governance.Violations(t.Context(), s.AccountID, run, "flag"); n == 0 {
			t.Error("the flag was not recorded")
		}
		// The check extension answers the same verdicts without recording.
		r := s.Do(t, "POST", "/governance/check", s.Key, map[string]any{"stage": "output", "text": "key AKIA1234567890ABCDEF"})
		var v api.GovernanceCheckResponse
		r.JSON(t, &v)
		if r.Status != http.StatusOK || v.Action != nil {
			t.Errorf("no secrets policy yet: %s", r.Body)
		}
		createPolicy(t, s, s.Key, map[string]any{"name": "Secrets", "policy_type": "secrets", "config": map[string]any{"action": "block"}})
		r = s.Do(t, "POST", "/governance/check", s.Key, map[string]any{"stage": "output", "text": "key AKIA1234567890ABCDEF"})
		r.JSON(t, &v)
		if v.Action == nil || *v.Action != "block" || *v.Rule != "secrets:aws_access_key" {
			t.Errorf("secrets check: %s", r.Body)
		}
	})
}

// A blocked output is never streamed: the prompt_call's tokens are held
// while an output policy applies, and the blocked reply never reaches the
// stream.
func TestBlockedOutputIsNotStreamed(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"ask","step_type":"prompt_call","prompt_template":"Repeat exactly: the lake is calm today",
			"child_steps":[{"id":"stream","step_type":"streaming_result"}]}]}`)
		createPolicy(t, s, s.Key, map[string]any{"name": "No lakes", "config": map[string]any{"action": "block", "stages": []string{"output"},
			"rules": []any{map[string]any{"type": "regex", "patterns": []string{"(?i)lake"}}}}})
		resp := postStream(t, s, "/agents/"+agent+"/runs/stream", s.Key, `{"input":"go"}`)
		events := readSSE(t, resp, func(e sseEvent) bool { return e.event == "done" })
		resp.Body.Close()
		for _, e := range events {
			if e.event == "stream_token" {
				t.Fatalf("a token of a blocked output was streamed: %s", e.data)
			}
		}
		if last := events[len(events)-1]; last.event != "done" || !strings.Contains(last.data, "No lakes") {
			t.Fatalf("end of stream: %+v", last)
		}
		// Without the policy the checked reply streams after the check.
		other := s.NewTenant(t, "other")
		agent2 := makeAgent(t, s, other.AccountID, `{"child_steps":[{"id":"ask","step_type":"prompt_call","prompt_template":"Repeat exactly: the sea is calm today",
			"child_steps":[{"id":"stream","step_type":"streaming_result"}]}]}`)
		createPolicy(t, s, other.Key, map[string]any{"name": "No lakes", "config": map[string]any{"action": "block", "stages": []string{"output"},
			"rules": []any{map[string]any{"type": "regex", "patterns": []string{"(?i)lake"}}}}})
		resp = postStream(t, s, "/agents/"+agent2+"/runs/stream", other.Key, `{"input":"go"}`)
		events = readSSE(t, resp, func(e sseEvent) bool { return e.event == "done" })
		resp.Body.Close()
		tokens := 0
		for _, e := range events {
			if e.event == "stream_token" {
				tokens++
			}
		}
		if tokens == 0 || !strings.Contains(events[len(events)-1].data, `"completed"`) {
			t.Errorf("a passing output was not streamed: %+v", events)
		}
	})
}

func TestGovernanceAssistant(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := makeAgent(t, s, s.AccountID, chainDef)
		r := s.Do(t, "POST", "/governance/ai-assistant", s.Key, map[string]any{"user_input": `Block e-mail addresses and card numbers in responses, and flag nothing else. Also block the terms "Project Falcon"`})
		var plan api.GovernanceAiAssistantResponse
		r.JSON(t, &plan)
		if r.Status != http.StatusOK || !plan.Success || len(plan.ProposedActions) != 2 || plan.ProposedActions[0].ActionType != "create" {
			t.Fatalf("plan: %d %s", r.Status, r.Body)
		}
		// The same request, the same plan.
		r = s.Do(t, "POST", "/governance/ai-assistant", s.Key, map[string]any{"user_input": `Block e-mail addresses and card numbers in responses, and flag nothing else. Also block the terms "Project Falcon"`})
		var again api.GovernanceAiAssistantResponse
		r.JSON(t, &again)
		if again.Note != plan.Note || len(again.ProposedActions) != 2 || again.ProposedActions[1].Description != plan.ProposedActions[1].Description {
			t.Errorf("not deterministic: %s", r.Body)
		}
		// Declining changes nothing; a decided plan cannot be decided again.
		wantStatus(t, s.Do(t, "POST", "/governance/ai-assistant/"+again.ConversationID+"/decline", s.Key, nil), http.StatusNoContent)
		wantStatus(t, s.Do(t, "POST", "/governance/ai-assistant/"+again.ConversationID+"/accept", s.Key, nil), http.StatusBadRequest)
		r = s.Do(t, "GET", "/governance/policies", s.Key, nil)
		var list api.Envelope[api.GovernancePolicyResponse]
		r.JSON(t, &list)
		if list.Pagination.Total != 0 {
			t.Fatalf("decline changed policies: %s", r.Body)
		}
		// Accepting applies in order and reports each.
		r = s.Do(t, "POST", "/governance/ai-assistant/"+plan.ConversationID+"/accept", s.Key, nil)
		var acc api.GovernanceAiAcceptResponse
		r.JSON(t, &acc)
		if r.Status != http.StatusOK || !acc.Success || len(acc.ActionsApplied) != 2 || acc.ActionsApplied[0].PolicyID == nil {
			t.Fatalf("accept: %d %s", r.Status, r.Body)
		}
		r = s.Do(t, "GET", "/governance/policies", s.Key, nil)
		r.JSON(t, &list)
		if list.Pagination.Total != 2 {
			t.Fatalf("accepted policies: %s", r.Body)
		}
		// The new PII policy checks output only, so input passes and an
		// output with an address is blocked.
		done := waitRun(t, s, s.Key, startRun(t, s, s.Key, agent, "jane@example.com"))
		if done.Status != "failed" || !strings.Contains(runError(done), "the output contains an e-mail address") {
			t.Errorf("run under the accepted plan: %+v %s", done, runError(done))
		}
		// Disable it through the assistant.
		r = s.Do(t, "POST", "/governance/ai-assistant", s.Key, map[string]any{"user_input": `Disable the policy "` + list.Data[0].Name + `"`})
		r.JSON(t, &plan)
		if len(plan.ProposedActions) != 1 || plan.ProposedActions[0].ActionType != "disable" {
			t.Fatalf("disable plan: %s", r.Body)
		}
		wantStatus(t, s.Do(t, "POST", "/governance/ai-assistant/"+plan.ConversationID+"/accept", s.Key, nil), http.StatusOK)
		if done := waitRun(t, s, s.Key, startRun(t, s, s.Key, agent, "jane@example.com")); done.Status != "completed" {
			t.Errorf("run after disabling: %+v", done)
		}
		// Nothing to plan: success false, no actions.
		r = s.Do(t, "POST", "/governance/ai-assistant", s.Key, map[string]any{"user_input": "hello there"})
		r.JSON(t, &plan)
		if plan.Success || len(plan.ProposedActions) != 0 || len(plan.ExamplePrompts) == 0 {
			t.Errorf("empty plan: %s", r.Body)
		}
		r = s.Do(t, "GET", "/governance/ai-assistant/conversations?limit=2", s.Key, nil)
		var convs []api.GovernanceConversationResponse
		r.JSON(t, &convs)
		if len(convs) != 2 || convs[0].UserInput != "hello there" || convs[1].Accepted == nil || !*convs[1].Accepted {
			t.Errorf("conversations: %s", r.Body)
		}
		// Governance access is for owners and admins.
		member := s.IssueKey(t, s.AccountID, s.UserID, store.RoleMember)
		for _, req := range [][2]string{{"POST", "/governance/ai-assistant"}, {"GET", "/governance/ai-assistant/conversations"},
			{"POST", "/governance/ai-assistant/" + plan.ConversationID + "/accept"}, {"POST", "/governance/ai-assistant/" + plan.ConversationID + "/decline"},
			{"POST", "/governance/policies"}, {"DELETE", "/governance/policies/" + list.Data[0].ID}} {
			if r := s.Do(t, req[0], req[1], member, map[string]any{"user_input": "block pii", "name": "x"}); r.Status != http.StatusForbidden {
				t.Errorf("%s %s by a member: %d %s", req[0], req[1], r.Status, r.Body)
			}
		}
		if r := s.Do(t, "GET", "/governance/policies", member, nil); r.Status != http.StatusOK {
			t.Errorf("members read policies: %d", r.Status)
		}
	})
}

func TestGovernancePolicyValidation(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		for _, cfg := range []map[string]any{
			{"action": "delete"},
			{"rules": []any{map[string]any{"type": "regex", "patterns": []string{"(["}}}},
			{"rules": []any{map[string]any{"type": "pii", "kinds": []string{"dna"}}}},
			{"rules": []any{map[string]any{"type": "telepathy"}}},
			{"stages": []string{"middle"}},
		} {
			r := s.Do(t, "POST", "/governance/policies", s.Key, map[string]any{"name": "bad", "config": cfg})
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "invalid governance policy") {
				t.Errorf("config %v: %d %s", cfg, r.Status, r.Body)
			}
		}
		p := createPolicy(t, s, s.Key, map[string]any{"name": "ok", "policy_type": "pii"})
		r := s.Do(t, "PATCH", "/governance/policies/"+p.ID, s.Key, map[string]any{"enabled": false, "description": "off for now"})
		var got api.GovernancePolicyResponse
		r.JSON(t, &got)
		if r.Status != http.StatusOK || got.Enabled || *got.Description != "off for now" {
			t.Errorf("patch: %s", r.Body)
		}
		other := s.NewTenant(t, "other")
		for _, m := range []string{"GET", "PATCH", "DELETE"} {
			if r := s.Do(t, m, "/governance/policies/"+p.ID, other.Key, map[string]any{}); r.Status != http.StatusNotFound {
				t.Errorf("%s by another account: %d", m, r.Status)
			}
		}
		wantStatus(t, s.Do(t, "DELETE", "/governance/policies/"+p.ID, s.Key, nil), http.StatusNoContent)
	})
}

// Account-wide policies are bounded: the one past the limit is a 422 that
// says so. Another account's count is its own.
func TestGovernancePolicyLimit(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		name, typ := "p", "pii"
		for range governance.MaxPoliciesPerScope {
			if _, err := s.S.Governance.CreatePolicy(context.Background(), s.AccountID, governance.PolicyInput{Name: &name, PolicyType: &typ}); err != nil {
				t.Fatal(err)
			}
		}
		r := s.Do(t, "POST", "/governance/policies", s.Key, map[string]any{"name": "one too many", "policy_type": "pii"})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "at most 100 account-wide governance policies") {
			t.Errorf("past the limit: %d %s", r.Status, r.Body)
		}
		other := s.NewTenant(t, "other")
		createPolicy(t, s, other.Key, map[string]any{"name": "theirs", "policy_type": "pii"})
	})
}

// A blocked run keeps no copy of what it was blocked for: its stored input
// has each match replaced by its kind, its snapshot names the blocking
// policy and the input status, and neither its events nor the trace
// search hold the data. A flag-only policy keeps the text.
func TestBlockedRunKeepsNoCopy(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := makeAgent(t, s, s.AccountID, chainDef)
		block := createPolicy(t, s, s.Key, map[string]any{"name": "No personal data", "config": map[string]any{
			"action": "block", "stages": []string{"input", "output"}, "rules": []any{map[string]any{"type": "pii", "kinds": []string{"email", "card"}}}}})
		flag := createPolicy(t, s, s.Key, map[string]any{"name": "Watch the falcon", "config": map[string]any{
			"stages": []string{"input"}, "rules": []any{map[string]any{"type": "blocked_terms", "terms": []string{"falcon"}}}}})

		const secret = "jane.doe@example.com"
		run := startRun(t, s, s.Key, agent, "please mail "+secret+" and bob@example.org about the falcon")
		done := waitRun(t, s, s.Key, run)
		if done.Status != "failed" {
			t.Fatalf("blocked run: %+v", done)
		}
		if done.Input == nil || *done.Input != "please mail [email address] and [email address] about the falcon" {
			t.Errorf("stored input: %v", done.Input)
		}
		if st := done.GovernanceInputStatus; st == nil || *st != "blocked" {
			t.Errorf("governance_input_status: %v", st)
		}
		wantRefs(t, "blocked_policies", done.BlockedPolicies, block)
		raw := s.Do(t, "GET", "/agents/runs/"+run+"?include_step_outputs=true", s.Key, nil)
		if strings.Contains(string(raw.Body), secret) {
			t.Errorf("the run answer holds the blocked data: %s", raw.Body)
		}
		evs, err := s.S.Bus.Read(t.Context(), s.AccountID, run, 0, 1000)
		if err != nil || len(evs) == 0 {
			t.Fatalf("events: %d %v", len(evs), err)
		}
		for _, e := range evs {
			if strings.Contains(string(e.Data), secret) {
				t.Errorf("event %s holds the blocked data: %s", e.Type, e.Data)
			}
			if e.Type == "done" && !strings.Contains(string(e.Data), block.ID) {
				t.Errorf("the done event does not name the blocking policy: %s", e.Data)
			}
		}
		search := s.Do(t, "POST", "/agents/runs/search", s.Key, map[string]any{"query": secret})
		if strings.Contains(string(search.Body), secret) {
			t.Errorf("the trace search finds the blocked data: %s", search.Body)
		}

		// A flag-only verdict keeps the text and names its policy.
		done = waitRun(t, s, s.Key, startRun(t, s, s.Key, agent, "news on the falcon"))
		if done.Status != "completed" || done.Input == nil || *done.Input != "news on the falcon" {
			t.Fatalf("flagged run: %+v", done)
		}
		if st := done.GovernanceInputStatus; st == nil || *st != "safe" {
			t.Errorf("flagged run's governance_input_status: %v", st)
		}
		wantRefs(t, "flagged_policies", done.FlaggedPolicies, flag)
		wantRefs(t, "blocked_policies", done.BlockedPolicies)

		// A blocked step output is kept nowhere, and the run names the policy.
		outAgent := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"leak","step_type":"text","text":"card 4111 1111 1111 1111 on file"}]}`)
		done = waitRun(t, s, s.Key, startRun(t, s, s.Key, outAgent, "hi"))
		if done.Status != "failed" || done.Output != nil {
			t.Fatalf("output block: %+v", done)
		}
		wantRefs(t, "blocked_policies", done.BlockedPolicies, block)
		if st := done.GovernanceInputStatus; st == nil || *st != "safe" {
			t.Errorf("output-blocked run's governance_input_status: %v", st)
		}
		raw = s.Do(t, "GET", "/agents/runs/"+done.RunID+"?include_step_outputs=true", s.Key, nil)
		if strings.Contains(string(raw.Body), "4111") {
			t.Errorf("the run answer holds the blocked output: %s", raw.Body)
		}
		evs, _ = s.S.Bus.Read(t.Context(), s.AccountID, done.RunID, 0, 1000)
		for _, e := range evs {
			if strings.Contains(string(e.Data), "4111") {
				t.Errorf("event %s holds the blocked output: %s", e.Type, e.Data)
			}
		}
	})
}

// wantRefs checks a run's policy references name exactly the policies.
func wantRefs(t *testing.T, field string, got []any, want ...api.GovernancePolicyResponse) {
	t.Helper()
	b, _ := json.Marshal(got)
	var refs []struct {
		PolicyID   string  `json:"policy_id"`
		PolicyName *string `json:"policy_name"`
	}
	_ = json.Unmarshal(b, &refs)
	if len(refs) != len(want) {
		t.Errorf("%s: %s, want %d", field, b, len(want))
		return
	}
	for i, p := range want {
		if refs[i].PolicyID != p.ID || refs[i].PolicyName == nil || *refs[i].PolicyName != p.Name {
			t.Errorf("%s: %s, want %s (%s)", field, b, p.ID, p.Name)
		}
	}
}
