package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestAgentDefinition(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		a := createAgent(t, s, s.Key, map[string]any{"name": "a", "agent_template": "simple_qa"})
		cur := getDefinition(t, s, s.Key, a.ID)
		if cur.ChangeID == "" || cur.SchemaVersion != "v1" || len(cur.Warnings) == 0 || cur.Warnings[0]["code"] != "missing_model" {
			t.Fatalf("get: %+v", cur)
		}

		next := map[string]any{"name": "a", "child_steps": []any{
			map[string]any{"id": "answer", "name": "Answer", "step_type": "prompt_call", "model": "openai_gpt_4_1",
				"prompt_template": "{{input}}", "child_steps": []any{
					map[string]any{"id": "out", "name": "Show", "step_type": "display_result"}}},
		}}
		r := s.Do(t, "PUT", "/agents/"+a.ID+"/definition", s.Key, map[string]any{"expected_change_id": cur.ChangeID, "definition": next})
		wantStatus(t, r, http.StatusOK)
		var saved definitionBody
		r.JSON(t, &saved)
		if saved.ChangeID == cur.ChangeID || !sameJSON(saved.Definition, next) || saved.Warnings != nil {
			t.Fatalf("put: %s", r.Body)
		}
		if got := getDefinition(t, s, s.Key, a.ID); got.ChangeID != saved.ChangeID || !sameJSON(got.Definition, next) {
			t.Fatalf("get after put: %+v", got)
		}
		// The replaced version is kept.
		hist, err := agents.DefinitionHistory(context.Background(), s.DB, s.AccountID, a.ID)
		if err != nil || len(hist) != 1 || hist[0].ChangeID != cur.ChangeID || !strings.Contains(string(hist[0].Definition), "helpful assistant") ||
			hist[0].ReplacedBy != s.UserID {
			t.Fatalf("history: %+v %v", hist, err)
		}

		// A stale change id is a conflict, and changes nothing.
		r = s.Do(t, "PUT", "/agents/"+a.ID+"/definition", s.Key, map[string]any{"expected_change_id": cur.ChangeID, "definition": next})
		wantStatus(t, r, http.StatusConflict)
		// It says who saved the current definition (the bootstrap owner,
		// named "owner", has no e-mail), and when.
		if !strings.Contains(string(r.Body), "saved by owner at "+time.Now().UTC().Format("2006-01-02")) {
			t.Fatalf("conflict does not say who changed the definition: %s", r.Body)
		}
		if got := getDefinition(t, s, s.Key, a.ID); got.ChangeID != saved.ChangeID {
			t.Fatal("a stale put changed the change id")
		}

		// Problems point into the request body.
		bad := map[string]any{"child_steps": []any{
			map[string]any{"id": "loop", "name": "Loop", "step_type": "retry", "target_step_id": "nowhere", "max_retries": 11},
			map[string]any{"id": "self", "name": "Self", "step_type": "call_agent", "agent_id": a.ID},
			map[string]any{"id": "x", "step_type": "teleport"},
		}}
		r = s.Do(t, "PUT", "/agents/"+a.ID+"/definition", s.Key, map[string]any{"expected_change_id": saved.ChangeID, "definition": bad})
		wantLoc(t, r, "out_of_range", "body", "definition", "child_steps", 0, "max_retries")
		wantLoc(t, r, "self_call", "body", "definition", "child_steps", 1, "agent_id")
		wantLoc(t, r, "unknown_step_type", "body", "definition", "child_steps", 2, "step_type")
		// streaming_result needs an interactive trigger: the agent's trigger is checked.
		sched := createAgent(t, s, s.Key, map[string]any{"name": "s", "trigger_type": "schedule"})
		r = s.Do(t, "PUT", "/agents/"+sched.ID+"/definition", s.Key, map[string]any{"expected_change_id": getDefinition(t, s, s.Key, sched.ID).ChangeID,
			"definition": map[string]any{"child_steps": []any{map[string]any{"id": "p", "name": "P", "step_type": "prompt_call", "prompt_template": "x",
				"child_steps": []any{map[string]any{"id": "st", "name": "S", "step_type": "streaming_result"}}}}}})
		wantLoc(t, r, "streaming_trigger", "body", "definition", "child_steps", 0, "child_steps", 0)
		// References to what the account lacks are refused.
		r = s.Do(t, "PUT", "/agents/"+a.ID+"/definition", s.Key, map[string]any{"expected_change_id": saved.ChangeID,
			"definition": map[string]any{"child_steps": []any{map[string]any{"id": "kb", "name": "KB", "step_type": "retrieval",
				"knowledge_base_id": "0190a000-0000-7000-8000-0000000000c1", "query": "{{input}}"}}}})
		wantLoc(t, r, "unresolved_ref", "body", "definition", "child_steps", 0, "knowledge_base_id")
		wantLoc(t, s.Do(t, "PUT", "/agents/"+a.ID+"/definition", s.Key, map[string]any{"expected_change_id": saved.ChangeID, "definition": "x"}), "", "body", "definition")
		wantLoc(t, s.Do(t, "PUT", "/agents/"+a.ID+"/definition", s.Key, map[string]any{"definition": next}), "missing", "body", "expected_change_id")
		if got := getDefinition(t, s, s.Key, a.ID); got.ChangeID != saved.ChangeID {
			t.Fatal("a refused put changed the definition")
		}

		other := s.NewTenant(t, "other")
		wantStatus(t, s.Do(t, "GET", "/agents/"+a.ID+"/definition", other.Key, nil), http.StatusNotFound)
		wantStatus(t, s.Do(t, "PUT", "/agents/"+a.ID+"/definition", other.Key, map[string]any{"expected_change_id": saved.ChangeID, "definition": next}), http.StatusNotFound)
	})
}

func TestAgentAttachmentReferences(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		none := createAgent(t, s, s.Key, map[string]any{"name": "text only"})
		r := s.Do(t, "GET", "/agents/"+none.ID+"/attachment-references", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.Body), `"requires_uploads":false`) {
			t.Fatalf("empty workflow: %s", r.Body)
		}
		a := createAgent(t, s, s.Key, map[string]any{"name": "files"})
		def := getDefinition(t, s, s.Key, a.ID)
		r = s.Do(t, "PUT", "/agents/"+a.ID+"/definition", s.Key, map[string]any{"expected_change_id": def.ChangeID,
			"definition": map[string]any{"child_steps": []any{map[string]any{"id": "p", "name": "P", "step_type": "prompt_call", "model": "m",
				"prompt_template": `Compare {{attachments["report.pdf"]}} with {{attachments[*.csv]}} and {{attachments[2]}}`}}}})
		wantStatus(t, r, http.StatusOK)
		r = s.Do(t, "GET", "/agents/"+a.ID+"/attachment-references", s.Key, nil)
		want := `{"requires_uploads":true,"agent":{"exact_names":["report.pdf"],"indexes_max":2,"kinds":["index","name","pattern"],"patterns":["*.csv"]}}`
		if strings.TrimSpace(string(r.Body)) != want {
			t.Fatalf("contract:\n%s\nwant\n%s", r.Body, want)
		}
		wantStatus(t, s.Do(t, "GET", "/agents/"+a.ID+"/attachment-references", s.NewTenant(t, "o").Key, nil), http.StatusNotFound)
	})
}

func TestAgentExport(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		callee := createAgent(t, s, s.Key, map[string]any{"name": "Escalation desk", "description": "Opens tickets"})
		a := createAgent(t, s, s.Key, map[string]any{"name": "Front desk: v2!"})
		def := getDefinition(t, s, s.Key, a.ID)
		wantStatus(t, s.Do(t, "PUT", "/agents/"+a.ID+"/definition", s.Key, map[string]any{"expected_change_id": def.ChangeID,
			"definition": map[string]any{"name": "Front desk", "child_steps": []any{map[string]any{"id": "call", "name": "Escalate",
				"step_type": "call_agent", "agent_id": callee.ID, "input": "{{input}}"}}}}), http.StatusOK)

		// download defaults to true: a file named after the agent.
		r := s.Do(t, "GET", "/agents/"+a.ID+"/export", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		if cd := r.Header.Get("Content-Disposition"); cd != `attachment; filename="front-desk-v2.agent.json"` {
			t.Fatalf("Content-Disposition %q", cd)
		}
		if r = s.Do(t, "GET", "/agents/"+a.ID+"/export?download=false", s.Key, nil); r.Header.Get("Content-Disposition") != "" {
			t.Fatal("download=false still names a file")
		}
		e := exportAgent(t, s, s.Key, a.ID)
		for _, key := range []string{"export_version", "exported_at", "software_version", "agent", "trigger", "alert_configs",
			"evaluation_criteria", "governance_policies", "dependencies"} {
			if _, ok := e[key]; !ok {
				t.Errorf("export lacks %q", key)
			}
		}
		// solutions, which the contract's export schema does not declare,
		// is only written for an agent that belongs to solutions.
		if _, ok := e["solutions"]; ok {
			t.Error("export has solutions for an agent in none")
		}
		agent := e["agent"].(map[string]any)
		trig := e["trigger"].(map[string]any)
		deps := e["dependencies"].(map[string]any)
		callees := deps["agents"].([]any)
		if e["export_version"] != "2" || agent["name"] != "Front desk: v2!" || agent["schema_version"] != "v1" ||
			agent["evaluation_mode"] != "eval_and_retry" || trig["trigger_type"] != "dynamic_input" || trig["schedules"] != nil ||
			len(callees) != 1 || callees[0].(map[string]any)["name"] != "Escalation desk" || callees[0].(map[string]any)["id"] != callee.ID {
			t.Fatalf("export: %+v", e)
		}
		wantStatus(t, s.Do(t, "GET", "/agents/"+a.ID+"/export", s.NewTenant(t, "o").Key, nil), http.StatusNotFound)
		wantLoc(t, s.Do(t, "GET", "/agents/"+a.ID+"/export?download=maybe", s.Key, nil), "", "query", "download")
	})
}
