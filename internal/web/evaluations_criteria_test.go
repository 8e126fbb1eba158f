package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestEvaluationCriteriaForms: a criterion created, changed, disabled,
// enabled and deleted from the console, each change read back through the
// API; the API's refusals (a bad expectation, a threshold out of range)
// shown next to the form with the input kept; and another account's
// agent and criterion as 404s.
func TestEvaluationCriteriaForms(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		agent := srv.StoreAgent(t, srv.AccountID, "Greeter", showDef, "dynamic_input")

		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		b.get("/console/evaluations/"+agent).mustContain(t, "/console/evaluations/"+agent+"/criteria/new", "Change the evaluation settings")
		p := b.get("/console/evaluations/" + agent + "/criteria/new")
		p.mustContain(t, "New criterion", `<option value="greet">`, `name="expectation_config"`, "Create the criterion")

		// A refusal keeps what was typed: the API judges the expectations.
		p = b.post("/console/evaluations/"+agent+"/criteria", url.Values{"step_id": {"greet"}, "description": {"says hello"},
			"expectation_config": {`{"regex": "("}`}, "pass_threshold": {"0.8"}, "enabled": {"on"}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, `class="problems"`, "regex", `value="says hello"`, `{&#34;regex&#34;: &#34;(&#34;}`, `value="0.8"`)
		p = b.post("/console/evaluations/"+agent+"/criteria", url.Values{"step_id": {"greet"}, "expectation_config": {`{"contains": `}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, "The expectations are not valid JSON.")
		p = b.post("/console/evaluations/"+agent+"/criteria", url.Values{"step_id": {"greet"}, "pass_threshold": {"1.5"}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, "pass_threshold", `value="1.5"`)
		if cs, err := api.ListEvaluationCriteria(ctx, agent, 1, 100); err != nil || len(cs.Items) != 0 {
			t.Fatalf("a refused criterion was saved: %+v %v", cs, err)
		}

		// Created: its page opens.
		p = b.post("/console/evaluations/"+agent+"/criteria", url.Values{"step_id": {"greet"}, "description": {"says hello"},
			"expectation_config": {`{"contains": ["hello"]}`}, "evaluation_prompt": {`Must mention "hello"`},
			"pass_threshold": {"0.8"}, "evaluation_tier": {"fast"}, "enabled": {"on"}})
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "Criterion created", "says hello", "Disable", `value="fast" selected`)
		id := regexpFind(t, p.Body, `/console/evaluations/`+agent+`/criteria/([0-9a-f-]{36})/delete`)
		cr, err := api.GetEvaluationCriteria(ctx, id)
		if err != nil || strOf(cr.Description) != "says hello" || cr.PassThreshold != 0.8 || strOf(cr.EvaluationTier) != "fast" ||
			!strings.Contains(string(cr.ExpectationConfig), "hello") || !cr.Enabled {
			t.Fatalf("created: %+v %v", cr, err)
		}
		b.get("/console/evaluations/"+agent).mustContain(t, "says hello", "/console/evaluations/"+agent+"/criteria/"+id)

		// Changed: emptied fields are cleared; a refused change keeps the input.
		crit := "/console/evaluations/" + agent + "/criteria/" + id
		p = b.post(crit, url.Values{"step_id": {"greet"}, "description": {"greets"}, "expectation_config": {`{"min_length": "x"}`}, "pass_threshold": {"0.6"}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, `class="problems"`, `value="greets"`)
		p = b.post(crit, url.Values{"step_id": {"greet"}, "description": {"greets"}, "expectation_config": {""}, "evaluation_prompt": {`Must mention "hi"`},
			"pass_threshold": {"0.6"}, "enabled": {"on"}})
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "Criterion saved.", "greets")
		if cr, err = api.GetEvaluationCriteria(ctx, id); err != nil || strOf(cr.Description) != "greets" || cr.PassThreshold != 0.6 ||
			cr.EvaluationTier != nil || (len(cr.ExpectationConfig) > 0 && string(cr.ExpectationConfig) != "null") {
			t.Fatalf("changed: %+v (%s) %v", cr, cr.ExpectationConfig, err)
		}

		// Disabled and enabled again.
		b.post(crit+"/disable", nil).mustContain(t, "Criterion disabled", "Enable")
		if cr, _ = api.GetEvaluationCriteria(ctx, id); cr.Enabled {
			t.Fatal("still enabled")
		}
		b.post(crit+"/enable", nil).mustContain(t, "Criterion enabled.")
		if cr, _ = api.GetEvaluationCriteria(ctx, id); !cr.Enabled {
			t.Fatal("still disabled")
		}
		wantStatus(t, b.post(crit+"/frobnicate", nil), http.StatusNotFound)

		// Another agent's address does not reach this criterion.
		other := srv.StoreAgent(t, srv.AccountID, "Other", showDef, "dynamic_input")
		wantStatus(t, b.get("/console/evaluations/"+other+"/criteria/"+id), http.StatusNotFound)
		wantStatus(t, b.post("/console/evaluations/"+other+"/criteria/"+id+"/delete", nil), http.StatusNotFound)

		// Another account: 404s, and nothing changes.
		tenant := srv.NewTenant(t, "Other account")
		ob := newBrowser(t, srv)
		ob.signInWithKey(tenant.Key)
		ob.get("/console/evaluations")
		wantStatus(t, ob.get("/console/evaluations/"+agent+"/criteria/new"), http.StatusNotFound)
		wantStatus(t, ob.get(crit), http.StatusNotFound)
		wantStatus(t, ob.post("/console/evaluations/"+agent+"/criteria", url.Values{"step_id": {"greet"}}), http.StatusNotFound)
		wantStatus(t, ob.post(crit, url.Values{"step_id": {"greet"}, "description": {"theirs"}}), http.StatusNotFound)
		for _, action := range []string{"disable", "delete"} {
			wantStatus(t, ob.post(crit+"/"+action, nil), http.StatusNotFound)
		}
		if cr, err = api.GetEvaluationCriteria(ctx, id); err != nil || strOf(cr.Description) != "greets" || !cr.Enabled {
			t.Fatalf("another account changed it: %+v %v", cr, err)
		}

		// Deleted: gone from the agent's page.
		b.get(crit)
		p = b.post(crit+"/delete", nil)
		wantStatus(t, p, http.StatusOK)
		if strings.Contains(p.Body, crit) {
			t.Fatal("the deleted criterion is still listed")
		}
		if _, err := api.GetEvaluationCriteria(ctx, id); err == nil {
			t.Fatal("the criterion was not deleted")
		}
	})
}

// TestEvaluationSettingsForm: the agent's evaluation mode, judge tier,
// retries and sampling changed from the console (PUT /agents/{id}), the
// API's refusals shown with the input kept, an emptied tier and sampling
// cleared, and another account's agent as a 404.
func TestEvaluationSettingsForm(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		agent := srv.StoreAgent(t, srv.AccountID, "Greeter", showDef, "dynamic_input")
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		set := "/console/evaluations/" + agent + "/settings"
		b.get(set).mustContain(t, "Evaluation settings: Greeter", `<option value="sample_and_flag">`, `name="sampling_config"`)

		p := b.post(set, url.Values{"evaluation_mode": {"sample_and_flag"}, "default_evaluation_tier": {"thorough"}, "max_retries": {"11"},
			"sampling_config": {`{"sample_rate": 0.25}`}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, "max_retries must be between 1 and 10", `value="11"`, `value="sample_and_flag" selected`)
		p = b.post(set, url.Values{"evaluation_mode": {"sample_and_flag"}, "max_retries": {"2"}, "sampling_config": {`[0.25]`}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, "<code>sampling_config</code>", "[0.25]")
		p = b.post(set, url.Values{"evaluation_mode": {"judge_everything"}, "max_retries": {"2"}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, "evaluation_mode must be one of")

		p = b.post(set, url.Values{"evaluation_mode": {"sample_and_flag"}, "default_evaluation_tier": {"thorough"}, "max_retries": {"4"},
			"retry_on_failure": {"on"}, "sampling_config": {`{"sample_rate": 0.25}`}})
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "Evaluation settings saved", `value="thorough" selected`, "sample_rate")
		a, err := api.GetAgent(ctx, agent)
		if err != nil || a.EvaluationMode != "sample_and_flag" || strOf(a.DefaultEvaluationTier) != "thorough" || a.MaxRetries != 4 ||
			!a.RetryOnFailure || a.SamplingConfig["sample_rate"] != 0.25 {
			t.Fatalf("saved: %+v %v", a, err)
		}
		b.get("/console/evaluations/"+agent).mustContain(t, "Mode <code>sample_and_flag</code>", "retries a failed step up to 4 times")

		// Emptied tier and sampling are cleared.
		b.post(set, url.Values{"evaluation_mode": {"eval_and_retry"}, "max_retries": {"4"}}).mustContain(t, "Evaluation settings saved")
		if a, err = api.GetAgent(ctx, agent); err != nil || a.EvaluationMode != "eval_and_retry" || a.DefaultEvaluationTier != nil ||
			a.SamplingConfig != nil || a.RetryOnFailure {
			t.Fatalf("cleared: %+v %v", a, err)
		}

		tenant := srv.NewTenant(t, "Other account")
		ob := newBrowser(t, srv)
		ob.signInWithKey(tenant.Key)
		wantStatus(t, ob.get(set), http.StatusNotFound)
		wantStatus(t, ob.post(set, url.Values{"evaluation_mode": {"output_expectation"}, "max_retries": {"1"}}), http.StatusNotFound)
		if a, _ = api.GetAgent(ctx, agent); a.EvaluationMode != "eval_and_retry" {
			t.Fatal("another account changed the settings")
		}
	})
}

func strOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
