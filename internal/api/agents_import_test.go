package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/evals/evalrow"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// fullExport is an export from another account: a workflow calling
// calleeID, a schedule trigger, and extras some of which this account
// cannot take.
func fullExport(calleeID, memberID, strangerID string) map[string]any {
	return map[string]any{
		"export_version": "2", "exported_at": "2026-07-01T00:00:00Z", "software_version": "elsewhere",
		"agent": map[string]any{
			"name": "Imported", "description": "from elsewhere", "schema_version": "v1",
			"definition": map[string]any{"name": "Imported", "tags": []any{"x"}, "child_steps": []any{
				map[string]any{"id": "draft", "name": "Draft", "step_type": "prompt_call", "model": "openai_gpt_4_1", "prompt_template": "{{input}}",
					"child_steps": []any{map[string]any{"id": "call", "name": "Escalate", "step_type": "call_agent", "agent_id": calleeID, "input": "{{input}}"}}},
			}},
			"evaluation_mode": "sample_and_flag", "max_retries": 5, "retry_on_failure": false, "default_evaluation_tier": "balanced",
			"sampling_config": map[string]any{"combinator": "or", "rules": []any{}}, "prompt_model_auto_upgrade_strategy": "early_adopter",
			"prompt_model_auto_rollback_enabled": true, "prompt_model_auto_rollback_triggers": []any{"agent_run_failed"},
		},
		"trigger": map[string]any{"trigger_type": "schedule", "name": "Nightly", "metadata_": map[string]any{"k": "v"}, "schedules": []any{
			map[string]any{"cron_expression": "0 6 * * 1", "timezone": "Europe/Paris", "enabled": true, "note": "kept", "id": "dropped"},
			map[string]any{"cron_expression": "not cron", "timezone": "UTC"},
			map[string]any{"cron_expression": "0 * * * *", "timezone": "Mars/Olympus"},
		}},
		"alert_configs": []any{
			map[string]any{"alert_type": "agent_run_failed", "threshold": map[string]any{"count": 3}, "distribution_type": "selected_members",
				"recipient_user_ids": []any{memberID, strangerID}, "cooldown_minutes": 30, "enabled": true, "custom": "x"},
			map[string]any{"alert_type": "agent_eval_fail", "distribution_type": "everyone"},
		},
		"evaluation_criteria": []any{
			map[string]any{"step_id": "draft", "description": "good", "evaluation_prompt": "Is it good?", "pass_threshold": 0.7, "enabled": true},
			map[string]any{"step_id": "ghost"},
			map[string]any{"step_id": "draft", "pass_threshold": 2},
		},
		"governance_policies": []any{
			map[string]any{"name": "No PII", "policy_type": "content", "config": map[string]any{"block": []any{"ssn"}},
				"knowledge_base_ids": []any{"0190a000-0000-7000-8000-0000000000c9"}},
			map[string]any{"description": "nameless"},
		},
		"solutions":    []any{map[string]any{"name": "Compliance"}, map[string]any{"name": "Missing"}},
		"dependencies": map[string]any{"agents": []any{map[string]any{"id": calleeID, "name": "Escalation desk", "description": nil}}},
	}
}

// An import holds at most the criteria, policies and alert configs an
// agent may have: the rest are skipped, each with a warning that says why.
func TestAgentImportLimits(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		stranger := s.NewTenant(t, "stranger")
		callee := createAgent(t, s, s.Key, map[string]any{"name": "Escalation desk"})
		payload := fullExport(callee.ID, s.UserID, stranger.UserID)
		var crit []any
		for range evalrow.MaxCriteriaPerAgent + 1 {
			crit = append(crit, map[string]any{"step_id": "draft", "evaluation_prompt": "Is it good?"})
		}
		payload["evaluation_criteria"] = crit
		var pols []any
		for range governance.MaxPoliciesPerScope + 1 {
			pols = append(pols, map[string]any{"name": "No PII", "policy_type": "pii"})
		}
		payload["governance_policies"] = pols
		var configs []any
		for range alerts.MaxAlertConfigsPerScope + 1 {
			configs = append(configs, map[string]any{"alert_type": "agent_run_failed"})
		}
		payload["alert_configs"] = configs
		r := s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Many", "agent_definition": payload})
		wantStatus(t, r, http.StatusCreated)
		for _, want := range []string{`evaluation criteria 100 not applied: an agent has at most 100 evaluation criteria`,
			`governance policy 100 not applied: an agent has at most 100 governance policies of its own`,
			`alert config 100 not applied: an agent has at most 100 alert configs`} {
			if !strings.Contains(string(r.Body), want) {
				t.Errorf("no warning %q: %s", want, r.Body)
			}
		}
		var a api.AgentSummaryResponse
		r.JSON(t, &a)
		e := exportAgent(t, s, s.Key, a.ID)
		if got := e["evaluation_criteria"].([]any); len(got) != evalrow.MaxCriteriaPerAgent {
			t.Errorf("%d criteria imported", len(got))
		}
		if got := e["governance_policies"].([]any); len(got) != governance.MaxPoliciesPerScope {
			t.Errorf("%d policies imported", len(got))
		}
		if got := e["alert_configs"].([]any); len(got) != alerts.MaxAlertConfigsPerScope {
			t.Errorf("%d alert configs imported", len(got))
		}
	})
}

func categories(ws []json.RawMessage) []string {
	var out []string
	for _, w := range ws {
		var s struct {
			Category string `json:"category"`
		}
		json.Unmarshal(w, &s)
		out = append(out, s.Category)
	}
	sort.Strings(out)
	return out
}

func TestAgentImport(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		stranger := s.NewTenant(t, "stranger")
		callee := createAgent(t, s, s.Key, map[string]any{"name": "Escalation desk"})
		if _, err := s.S.Solutions.Create(ctx, s.AccountID, "Compliance", ""); err != nil {
			t.Fatal(err)
		}
		payload := fullExport(callee.ID, s.UserID, stranger.UserID)

		r := s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Mine", "agent_definition": payload})
		wantStatus(t, r, http.StatusCreated)
		var created struct {
			api.AgentSummaryResponse
			ImportWarnings []json.RawMessage `json:"import_warnings"`
		}
		r.JSON(t, &created)
		a := created.AgentSummaryResponse
		// The request's name wins; the rest comes from the payload.
		if a.Name != "Mine" || *a.Description != "from elsewhere" || *a.TriggerType != "schedule" || a.EvaluationMode != "sample_and_flag" ||
			a.MaxRetries != 5 || a.RetryOnFailure || *a.DefaultEvaluationTier != "balanced" || a.SamplingConfig["combinator"] != "or" ||
			a.PromptModelAutoUpgradeStrategy != "early_adopter" || !a.PromptModelAutoRollbackEnabled || a.PromptModelAutoRollbackTriggers[0] != "agent_run_failed" {
			t.Fatalf("created: %s", r.Body)
		}
		want := []string{"alert_config", "alert_recipient", "evaluation_criteria", "evaluation_criteria", "governance_kb_link",
			"governance_policy", "schedule", "schedule", "solution_link"}
		if got := categories(created.ImportWarnings); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("import warnings %v, want %v\n%s", got, want, r.Body)
		}
		if !strings.Contains(string(r.Body), `"message":"schedule 2 not applied: timezone \"Mars/Olympus\"`) {
			t.Errorf("schedule skip does not say why: %s", r.Body)
		}

		// What was applied is stored and comes back in the export.
		e := exportAgent(t, s, s.Key, a.ID)
		trig := e["trigger"].(map[string]any)
		scheds := trig["schedules"].([]any)
		if trig["trigger_type"] != "schedule" || trig["name"] != "Nightly" || trig["metadata_"].(map[string]any)["k"] != "v" || len(scheds) != 1 {
			t.Fatalf("trigger: %+v", trig)
		}
		if sc := scheds[0].(map[string]any); sc["cron_expression"] != "0 6 * * 1" || sc["timezone"] != "Europe/Paris" || sc["enabled"] != true ||
			sc["note"] != "kept" || sc["id"] != nil {
			t.Fatalf("schedule: %+v", sc)
		}
		alerts := e["alert_configs"].([]any)
		if len(alerts) != 1 {
			t.Fatalf("alerts: %+v", alerts)
		}
		al := alerts[0].(map[string]any)
		if al["alert_type"] != "agent_run_failed" || al["cooldown_minutes"] != 30.0 || al["custom"] != "x" ||
			len(al["recipient_user_ids"].([]any)) != 1 || al["recipient_user_ids"].([]any)[0] != s.UserID ||
			al["threshold"].(map[string]any)["count"] != 3.0 {
			t.Fatalf("alert: %+v", al)
		}
		crit := e["evaluation_criteria"].([]any)
		if len(crit) != 1 || crit[0].(map[string]any)["pass_threshold"] != 0.7 || crit[0].(map[string]any)["evaluation_mode"] != "sample_and_flag" {
			t.Fatalf("criteria: %+v", crit)
		}
		pol := e["governance_policies"].([]any)
		if len(pol) != 1 || pol[0].(map[string]any)["name"] != "No PII" || len(pol[0].(map[string]any)["knowledge_base_ids"].([]any)) != 0 {
			t.Fatalf("policies: %+v", pol)
		}
		if sol := e["solutions"].([]any); len(sol) != 1 || sol[0].(map[string]any)["name"] != "Compliance" {
			t.Fatalf("solutions: %+v", e["solutions"])
		}
		users := e["dependencies"].(map[string]any)["users"].([]any)
		if len(users) != 1 || users[0].(map[string]any)["id"] != s.UserID {
			t.Fatalf("user manifest: %+v", users)
		}

		// The request's trigger type wins over the payload's; schedules then do not apply.
		r = s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Dyn", "trigger_type": "dynamic_input", "agent_definition": payload})
		r.JSON(t, &created)
		if *created.TriggerType != "dynamic_input" || strings.Count(string(r.Body), `"category":"schedule"`) != 3 {
			t.Fatalf("trigger override: %s", r.Body)
		}
		// A bare definition is a legacy payload: no extras, import_warnings [].
		r = s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Bare", "agent_definition": payload["agent"].(map[string]any)["definition"]})
		wantStatus(t, r, http.StatusCreated)
		if !strings.Contains(string(r.Body), `"import_warnings":[]`) {
			t.Fatalf("bare definition: %s", r.Body)
		}
	})
}

func TestAgentImportErrors(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		callee := createAgent(t, s, s.Key, map[string]any{"name": "callee"})
		payload := fullExport(callee.ID, s.UserID, s.UserID)
		steps := payload["agent"].(map[string]any)["definition"].(map[string]any)["child_steps"].([]any)
		steps[0].(map[string]any)["child_steps"] = []any{map[string]any{"id": "again", "name": "Again", "step_type": "retry",
			"target_step_id": "draft", "max_retries": 11}}

		r := s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "x", "agent_definition": payload})
		ie := wantImportError(t, r, "agent.definition.child_steps[0].child_steps[0].max_retries")
		for _, e := range ie.Errors {
			if e.Path == "agent.definition.child_steps[0].child_steps[0].max_retries" {
				line := sourceLine(ie, e.Line)
				if !strings.Contains(line, `"max_retries": 11`) || !strings.HasPrefix(line[e.Column-1:], "11") {
					t.Fatalf("line %d column %d points at %q", e.Line, e.Column, line)
				}
			}
		}
		// An agent the account does not have; an unknown step type; a bad setting.
		other := s.NewTenant(t, "other")
		steps[0].(map[string]any)["child_steps"] = []any{map[string]any{"id": "call", "name": "Call", "step_type": "call_agent", "agent_id": callee.ID}}
		wantImportError(t, s.Do(t, "POST", "/agents", other.Key, map[string]any{"name": "x", "agent_definition": payload}),
			"agent.definition.child_steps[0].child_steps[0].agent_id")
		payload["agent"].(map[string]any)["evaluation_mode"] = "always"
		wantImportError(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "x", "agent_definition": payload}), "agent.evaluation_mode")
		wantImportError(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "x", "agent_definition": map[string]any{"agent": map[string]any{}}}),
			"agent.definition")
		wantImportError(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "x", "agent_definition": []any{1}}), "")
		// Nothing was created by any of them.
		var list api.AgentListResponse
		s.Do(t, "GET", "/agents", other.Key, nil).JSON(t, &list)
		if list.Pagination.Total != 0 {
			t.Fatalf("a refused import created an agent")
		}
		wantStatus(t, s.Do(t, "POST", "/agents/preview-import", s.Key, map[string]any{"agent_definition": payload}), http.StatusUnprocessableEntity)
		wantLoc(t, s.Do(t, "POST", "/agents/preview-import", s.Key, map[string]any{}), "missing", "body", "agent_definition")
	})
}

func TestAgentUpdateWithDefinition(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		callee := createAgent(t, s, s.Key, map[string]any{"name": "callee"})
		a := createAgent(t, s, s.Key, map[string]any{"name": "a", "agent_template": "simple_qa"})
		before := getDefinition(t, s, s.Key, a.ID)
		payload := fullExport(callee.ID, s.UserID, s.UserID)

		r := s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{"agent_definition": payload, "max_retries": 9})
		wantStatus(t, r, http.StatusOK)
		var u struct {
			api.AgentSummaryResponse
			ImportWarnings []json.RawMessage `json:"import_warnings"`
		}
		r.JSON(t, &u)
		// The payload's name and settings, the request's max_retries; the
		// trigger stays; every extra is reported as not applied.
		if u.Name != "Imported" || u.MaxRetries != 9 || u.EvaluationMode != "sample_and_flag" || *u.TriggerType != "dynamic_input" {
			t.Fatalf("update: %s", r.Body)
		}
		want := []string{"alert_config", "alert_config", "evaluation_criteria", "evaluation_criteria", "evaluation_criteria",
			"governance_policy", "governance_policy", "schedule", "schedule", "schedule", "solution_link", "solution_link"}
		if got := categories(u.ImportWarnings); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("warnings %v, want %v", got, want)
		}
		after := getDefinition(t, s, s.Key, a.ID)
		if after.ChangeID == before.ChangeID || after.Definition["child_steps"].([]any)[0].(map[string]any)["id"] != "draft" {
			t.Fatalf("definition not replaced: %+v", after)
		}
		if e := exportAgent(t, s, s.Key, a.ID); e["alert_configs"] != nil || e["trigger"].(map[string]any)["schedules"] != nil {
			t.Fatalf("an update applied extras: %+v", e)
		}
		// The agent may not call itself.
		payload["agent"].(map[string]any)["definition"].(map[string]any)["child_steps"].([]any)[0].(map[string]any)["child_steps"].([]any)[0].(map[string]any)["agent_id"] = a.ID
		wantImportError(t, s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{"agent_definition": payload}),
			"agent.definition.child_steps[0].child_steps[0].agent_id")
		wantStatus(t, s.Do(t, "PUT", "/agents/"+a.ID, s.NewTenant(t, "o").Key, map[string]any{"agent_definition": payload}), http.StatusNotFound)
	})
}

// TestAgentRoundTrip: export from one account, preview in another, import
// there with a remap, export again: the same definition, modulo the ids
// remapped.
func TestAgentRoundTrip(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		b := s.NewTenant(t, "B")
		calleeA := createAgent(t, s, s.Key, map[string]any{"name": "Escalation desk"})
		src := createAgent(t, s, s.Key, map[string]any{"name": "Front desk", "agent_template": "json_extractor"})
		def := getDefinition(t, s, s.Key, src.ID)
		steps := def.Definition["child_steps"].([]any)
		steps[0].(map[string]any)["child_steps"] = append(steps[0].(map[string]any)["child_steps"].([]any),
			map[string]any{"id": "escalate", "name": "Escalate", "step_type": "call_agent", "agent_id": calleeA.ID, "input": "{{input}}"})
		wantStatus(t, s.Do(t, "PUT", "/agents/"+src.ID+"/definition", s.Key, map[string]any{"expected_change_id": def.ChangeID, "definition": def.Definition}), http.StatusOK)
		wantStatus(t, s.Do(t, "PUT", "/agents/"+src.ID, s.Key, map[string]any{"evaluation_mode": "output_expectation", "max_retries": 2}), http.StatusOK)
		first := exportAgent(t, s, s.Key, src.ID)

		calleeB := createAgent(t, s, b.Key, map[string]any{"name": "escalation-desk", "description": "B's desk"})
		createAgent(t, s, b.Key, map[string]any{"name": "Unrelated thing"})
		r := s.Do(t, "POST", "/agents/preview-import", b.Key, map[string]any{"agent_definition": first})
		wantStatus(t, r, http.StatusOK)
		var p struct {
			OK             bool    `json:"ok"`
			AgentName      *string `json:"agent_name"`
			StepCount      int     `json:"step_count"`
			PayloadVersion *string `json:"payload_export_version"`
			UnresolvedRefs []struct {
				Category     string   `json:"category"`
				RefID        string   `json:"ref_id"`
				RefName      string   `json:"ref_name"`
				Locations    []string `json:"locations"`
				Alternatives []struct {
					ID   string `json:"id"`
					Name string `json:"name"`
				} `json:"alternatives"`
			} `json:"unresolved_refs"`
		}
		r.JSON(t, &p)
		if !p.OK || *p.AgentName != "Front desk" || p.StepCount != 4 || *p.PayloadVersion != "2" || len(p.UnresolvedRefs) != 1 {
			t.Fatalf("preview: %s", r.Body)
		}
		u := p.UnresolvedRefs[0]
		if u.Category != "agent" || u.RefID != calleeA.ID || u.RefName != "Escalation desk" || strings.Join(u.Locations, ",") != "step:escalate" ||
			len(u.Alternatives) == 0 || u.Alternatives[0].ID != calleeB.ID {
			t.Fatalf("unresolved ref: %+v", u)
		}
		// Preview writes nothing.
		var list api.AgentListResponse
		s.Do(t, "GET", "/agents", b.Key, nil).JSON(t, &list)
		if list.Pagination.Total != 2 {
			t.Fatal("preview created an agent")
		}

		r = s.Do(t, "POST", "/agents", b.Key, map[string]any{"name": "Front desk", "agent_definition": first,
			"entity_remap": map[string]string{calleeA.ID: u.Alternatives[0].ID}})
		wantStatus(t, r, http.StatusCreated)
		var imported api.AgentSummaryResponse
		r.JSON(t, &imported)
		if imported.EvaluationMode != "output_expectation" || imported.MaxRetries != 2 || len(imported.ImportWarnings) != 0 || imported.ImportWarnings == nil {
			t.Fatalf("imported: %s", r.Body)
		}
		second := exportAgent(t, s, b.Key, imported.ID)
		remap := map[string]string{calleeA.ID: calleeB.ID}
		if !sameJSON(stripIDs(first["agent"].(map[string]any)["definition"], remap), second["agent"].(map[string]any)["definition"]) {
			t.Fatalf("definitions differ:\n%v\n%v", first["agent"].(map[string]any)["definition"], second["agent"].(map[string]any)["definition"])
		}
		// The trigger's id is the exporting account's: the import makes a
		// new trigger with an id of its own, and everything else is equal.
		t1, t2 := first["trigger"].(map[string]any), second["trigger"].(map[string]any)
		if t1["id"] == nil || t1["id"] == t2["id"] {
			t.Fatalf("trigger ids: %v / %v", t1["id"], t2["id"])
		}
		delete(t1, "id")
		delete(t2, "id")
		if !sameJSON(t1, t2) {
			t.Fatalf("triggers differ: %v / %v", t1, t2)
		}
		deps := second["dependencies"].(map[string]any)["agents"].([]any)
		if len(deps) != 1 || deps[0].(map[string]any)["id"] != calleeB.ID || deps[0].(map[string]any)["name"] != "escalation-desk" {
			t.Fatalf("manifest: %+v", deps)
		}
		// The callee in B now has a caller.
		r = s.Do(t, "GET", "/agents/"+calleeB.ID+"/callers", b.Key, nil)
		if !strings.Contains(string(r.Body), imported.ID) {
			t.Fatalf("callers of the remapped callee: %s", r.Body)
		}
	})
}
