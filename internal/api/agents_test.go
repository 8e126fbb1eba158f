package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestAgentCreate(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		a := createAgent(t, s, s.Key, map[string]any{"name": "  Support  ", "description": "Answers"})
		if a.Name != "Support" || a.Description == nil || *a.Description != "Answers" || a.TriggerType == nil ||
			*a.TriggerType != "dynamic_input" || a.EvaluationMode != "eval_and_retry" || a.MaxRetries != 3 || !a.RetryOnFailure ||
			a.PromptModelAutoUpgradeStrategy != "none" || a.PromptModelAutoRollbackEnabled || a.PromptModelAutoRollbackTriggers != nil ||
			a.Disabled || a.DisabledAt != nil || a.ImportWarnings != nil || a.CreatedAt == "" || a.CreatedAt != a.UpdatedAt {
			t.Fatalf("defaults: %+v", a)
		}
		// import_warnings is null, not absent, on calls that import nothing.
		r := s.Do(t, "GET", "/agents/"+a.ID, s.Key, nil)
		if !strings.Contains(string(r.Body), `"import_warnings":null`) || !strings.Contains(string(r.Body), `"description":"Answers"`) {
			t.Fatalf("get: %s", r.Body)
		}
		// A workflow without template is empty.
		if def := getDefinition(t, s, s.Key, a.ID); len(def.Definition["child_steps"].([]any)) != 0 || def.Definition["name"] != "Support" {
			t.Fatalf("blank definition: %+v", def.Definition)
		}

		// Templates adapt to the trigger; the template's default trigger applies when none is given.
		for _, tc := range []struct{ template, trigger, want string }{
			{"blank", "", "dynamic_input"},
			{"simple_qa", "email_received", "email_received"},
			{"summarizer", "new_content", "new_content"},
			{"json_extractor", "", "dynamic_input"},
			{"content_change_notifier", "", "new_content"},
			{"scheduled_report", "", "schedule"},
			{"webhook_pipeline", "template_input", "template_input"},
		} {
			body := map[string]any{"name": tc.template, "agent_template": tc.template}
			if tc.trigger != "" {
				body["trigger_type"] = tc.trigger
			}
			a := createAgent(t, s, s.Key, body)
			if *a.TriggerType != tc.want {
				t.Errorf("%s: trigger %s, want %s", tc.template, *a.TriggerType, tc.want)
			}
			if def := getDefinition(t, s, s.Key, a.ID); len(def.Definition["child_steps"].([]any)) == 0 {
				t.Errorf("%s: empty workflow", tc.template)
			}
		}

		// Refusals name the field.
		wantLoc(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{}), "missing", "body", "name")
		wantLoc(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "  "}), "string_too_short", "body", "name")
		wantLoc(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": strings.Repeat("n", 256)}), "string_too_long", "body", "name")
		wantLoc(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "x", "trigger_type": "cron"}), "enum", "body", "trigger_type")
		wantLoc(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "x", "agent_template": "nope"}), "enum", "body", "agent_template")
		wantLoc(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "x", "agent_template": "content_change_notifier", "trigger_type": "dynamic_input"}), "", "body", "trigger_type")
		r = s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "x", "agent_template": "retrieval_example"})
		wantLoc(t, r, "value_error", "body", "agent_template")
		if !strings.Contains(string(r.Body), "knowledge base") {
			t.Errorf("retrieval_example refusal does not explain: %s", r.Body)
		}
		// Undeclared fields are ignored, as the contract's server does.
		wantStatus(t, s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "x", "colour": "red"}), http.StatusCreated)
		wantLoc(t, s.Do(t, "POST", "/agents", s.Key, `{"name": `), "", "body")
	})
}

func TestAgentReadListDelete(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		other := s.NewTenant(t, "other")
		var ids []string
		for i := range 5 {
			ids = append(ids, createAgent(t, s, s.Key, map[string]any{"name": fmt.Sprintf("agent %d", i)}).ID)
		}
		theirs := createAgent(t, s, other.Key, map[string]any{"name": "theirs"})

		// Another account's agent is a 404, never a 403; a malformed id a 422.
		wantStatus(t, s.Do(t, "GET", "/agents/"+theirs.ID, s.Key, nil), http.StatusNotFound)
		wantStatus(t, s.Do(t, "GET", "/agents/"+store.NewID(), s.Key, nil), http.StatusNotFound)
		wantLoc(t, s.Do(t, "GET", "/agents/not-a-uuid", s.Key, nil), "uuid_parsing", "path", "agent_id")

		// Pages, newest first, in the {data, pagination} shape at both versions.
		for _, v := range []string{"2026-07-01", "2026-07-27"} {
			r := s.Do(t, "GET", "/agents?page=2&limit=2", s.Key, nil, "Service-Version: "+v)
			wantStatus(t, r, http.StatusOK)
			var page api.AgentListResponse
			r.JSON(t, &page)
			p := page.Pagination
			if len(page.Data) != 2 || page.Data[0].ID != ids[2] || page.Data[1].ID != ids[1] ||
				p.Page != 2 || p.Limit != 2 || p.Total != 5 || p.Pages != 3 || !p.HasNext || !p.HasPrev {
				t.Fatalf("%s: page 2: %s", v, r.Body)
			}
		}
		var all api.AgentListResponse
		s.Do(t, "GET", "/agents", s.Key, nil).JSON(t, &all)
		if len(all.Data) != 5 || all.Pagination.Limit != 20 || all.Pagination.HasNext {
			t.Fatalf("default page: %+v", all.Pagination)
		}
		wantLoc(t, s.Do(t, "GET", "/agents?limit=101", s.Key, nil), "", "query", "limit")
		wantLoc(t, s.Do(t, "GET", "/agents?page=0", s.Key, nil), "", "query", "page")
		wantLoc(t, s.Do(t, "GET", "/agents?sort=name", s.Key, nil, "Service-Version: 2026-07-27"), "extra_forbidden", "query", "sort")
		wantStatus(t, s.Do(t, "GET", "/agents?sort=name", s.Key, nil), http.StatusOK)

		// Delete is soft: the agent disappears from the API, once.
		wantStatus(t, s.Do(t, "DELETE", "/agents/"+theirs.ID, s.Key, nil), http.StatusNotFound)
		r := s.Do(t, "DELETE", "/agents/"+ids[0], s.Key, nil)
		if r.Status != http.StatusNoContent || len(r.Body) != 0 {
			t.Fatalf("delete: %d %q", r.Status, r.Body)
		}
		wantStatus(t, s.Do(t, "GET", "/agents/"+ids[0], s.Key, nil), http.StatusNotFound)
		wantStatus(t, s.Do(t, "DELETE", "/agents/"+ids[0], s.Key, nil), http.StatusNotFound)
		s.Do(t, "GET", "/agents", s.Key, nil).JSON(t, &all)
		if all.Pagination.Total != 4 {
			t.Fatalf("deleted agent still listed: %+v", all.Pagination)
		}
		wantStatus(t, s.Do(t, "GET", "/agents/"+theirs.ID, other.Key, nil), http.StatusOK)
	})
}

func TestAgentUpdate(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		a := createAgent(t, s, s.Key, map[string]any{"name": "a", "agent_template": "simple_qa"})
		before := getDefinition(t, s, s.Key, a.ID)

		r := s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{
			"name": "renamed", "description": "new", "evaluation_mode": "sample_and_flag", "default_evaluation_tier": "thorough",
			"max_retries": 7, "retry_on_failure": false, "sampling_config": map[string]any{"combinator": "and", "rules": []any{}},
			"prompt_model_auto_upgrade_strategy": "cautious_adopter", "prompt_model_auto_rollback_enabled": true,
			"prompt_model_auto_rollback_triggers": []string{"agent_eval_fail", "governance_block"},
		})
		wantStatus(t, r, http.StatusOK)
		var u api.AgentSummaryResponse
		r.JSON(t, &u)
		if u.Name != "renamed" || *u.Description != "new" || u.EvaluationMode != "sample_and_flag" || *u.DefaultEvaluationTier != "thorough" ||
			u.MaxRetries != 7 || u.RetryOnFailure || u.SamplingConfig["combinator"] != "and" || u.PromptModelAutoUpgradeStrategy != "cautious_adopter" ||
			!u.PromptModelAutoRollbackEnabled || strings.Join(u.PromptModelAutoRollbackTriggers, ",") != "agent_eval_fail,governance_block" ||
			u.ImportWarnings != nil || u.UpdatedAt == a.UpdatedAt {
			t.Fatalf("update: %s", r.Body)
		}
		// Every field round-trips through GET.
		var got api.AgentSummaryResponse
		s.Do(t, "GET", "/agents/"+a.ID, s.Key, nil).JSON(t, &got)
		if !sameJSON(got, u) {
			t.Fatalf("GET after PUT:\n%+v\n%+v", got, u)
		}
		// Settings leave the workflow alone.
		if after := getDefinition(t, s, s.Key, a.ID); after.ChangeID != before.ChangeID {
			t.Fatal("a settings update changed the definition's change id")
		}

		// Omitted fields stay; the set_* flags clear theirs to null.
		r = s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{"set_default_evaluation_tier": true})
		r.JSON(t, &u)
		if u.DefaultEvaluationTier != nil || u.SamplingConfig == nil || u.PromptModelAutoRollbackTriggers == nil || u.Name != "renamed" {
			t.Fatalf("clear tier: %s", r.Body)
		}
		r = s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{"set_sampling_config": true, "set_prompt_model_auto_rollback_triggers": true})
		r.JSON(t, &u)
		if u.SamplingConfig != nil || u.PromptModelAutoRollbackTriggers != nil || u.MaxRetries != 7 {
			t.Fatalf("clear sampling and triggers: %s", r.Body)
		}
		// A value wins over its set_* flag.
		r = s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{"default_evaluation_tier": "fast", "set_default_evaluation_tier": true,
			"prompt_model_auto_rollback_triggers": []string{}})
		r.JSON(t, &u)
		if u.DefaultEvaluationTier == nil || *u.DefaultEvaluationTier != "fast" || u.PromptModelAutoRollbackTriggers == nil || len(u.PromptModelAutoRollbackTriggers) != 0 {
			t.Fatalf("value and flag: %s", r.Body)
		}

		// Refusals.
		wantLoc(t, s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{}), "value_error", "body")
		wantLoc(t, s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{"name": " "}), "string_too_short", "body", "name")
		wantLoc(t, s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{"evaluation_mode": "always"}), "enum", "body", "evaluation_mode")
		wantLoc(t, s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{"default_evaluation_tier": "slow"}), "enum", "body", "default_evaluation_tier")
		wantLoc(t, s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{"max_retries": 11}), "", "body", "max_retries")
		wantLoc(t, s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{"prompt_model_auto_upgrade_strategy": "yolo"}), "", "body", "prompt_model_auto_upgrade_strategy")
		wantLoc(t, s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{"prompt_model_auto_rollback_triggers": []string{"agent_eval_fail", "bad"}}),
			"enum", "body", "prompt_model_auto_rollback_triggers", 1)
		wantLoc(t, s.Do(t, "PUT", "/agents/"+a.ID, s.Key, map[string]any{"max_retries": "three"}), "", "body", "max_retries")
		other := s.NewTenant(t, "other")
		wantStatus(t, s.Do(t, "PUT", "/agents/"+a.ID, other.Key, map[string]any{"name": "stolen"}), http.StatusNotFound)
		s.Do(t, "GET", "/agents/"+a.ID, s.Key, nil).JSON(t, &got)
		if got.Name != "renamed" {
			t.Fatalf("another account renamed the agent: %s", got.Name)
		}
	})
}
