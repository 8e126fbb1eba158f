package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestEvaluationsPages: the agents, an agent's criteria by step, the pass
// rate chart (SVG), the failures with the judge's explanation and a link
// to the run, a draft judged on the page, and another account's agent as
// a 404.
func TestEvaluationsPages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		agent := srv.StoreAgent(t, srv.AccountID, "Greeter", showDef, "dynamic_input")
		desc, prompt := "says goodbye", `Must mention "goodbye"`
		crit, err := api.CreateEvaluationCriteria(ctx, agent, client.EvaluationCriteriaInput{StepID: "greet", Description: &desc,
			EvaluationPrompt: &prompt, ExpectationConfig: []byte(`{"contains": ["goodbye"]}`)})
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		for _, in := range []string{"Ada", "Bob"} {
			r, err := api.RunAndWait(ctx, agent, client.AgentRunRequest{Input: in})
			if err != nil || r.Status != client.RunCompleted {
				t.Fatal(r, err)
			}
			runs = append(runs, r.RunID)
		}
		pass, fail := 1.0, 0.0
		if _, err := api.CreateEvaluationResult(ctx, crit.ID, client.EvaluationResultInput{AgentRunID: runs[0], Status: "passed", Score: &pass,
			Details: map[string]any{"explanation": "It says goodbye."}}); err != nil {
			t.Fatal(err)
		}
		if _, err := api.CreateEvaluationResult(ctx, crit.ID, client.EvaluationResultInput{AgentRunID: runs[1], Status: "failed", Score: &fail,
			Details: map[string]any{"explanation": "The output never says goodbye.",
				"checks": []map[string]any{{"check": "contains", "passed": false, "detail": "missing goodbye"}}}}); err != nil {
			t.Fatal(err)
		}

		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		b.get("/console/evaluations").mustContain(t, "Evaluations", "automatic judgments", "/console/evaluations/"+agent, "Greeter")
		p := b.get("/console/evaluations/" + agent)
		p.mustContain(t, "Step <code>greet</code>", "says goodbye", `{&#34;contains&#34;:[&#34;goodbye&#34;]}`, "passed 1", "failed 1",
			`<svg class="chart"`, "1 of 2 passed (50%)", "The last 30 days: 2 judged results",
			"The output never says goodbye.", "missing goodbye", "/console/runs/"+runs[1], "Try a draft")
		if strings.Contains(p.Body, "/console/runs/"+runs[0]) {
			t.Fatal("a passed result is listed as a failure")
		}

		// A draft: judged, nothing recorded.
		p = b.post("/console/evaluations/"+agent+"/draft", url.Values{"step_output": {"goodbye and thanks"},
			"expectation_config": {`{"contains": ["goodbye"]}`}, "pass_threshold": {"0.5"}})
		p.mustContain(t, `class="tag st-ok">passed`, "goodbye and thanks")
		p = b.post("/console/evaluations/"+agent+"/draft", url.Values{"step_output": {"hello"},
			"expectation_config": {`{"contains": ["goodbye"]}`}})
		p.mustContain(t, `class="tag st-failed">failed`)
		p = b.post("/console/evaluations/"+agent+"/draft", url.Values{"step_output": {"hello"}, "expectation_config": {`{"contains": `}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "not valid JSON") {
			t.Fatalf("bad expectations: %d", p.Status)
		}
		p = b.post("/console/evaluations/"+agent+"/draft", url.Values{"step_output": {"hello"}, "expectation_config": {`{"regex": "("}`}})
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, `class="problems"`) {
			t.Fatalf("a bad pattern: %d\n%s", p.Status, p.Body)
		}
		if s, err := api.GetEvaluationSummary(ctx, crit.ID); err != nil || s.Total != 2 {
			t.Fatalf("drafts were recorded: %+v %v", s, err)
		}

		// Another account: a 404 for the agent's page and its draft.
		other := srv.NewTenant(t, "Other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		if p := ob.get("/console/evaluations/" + agent); p.Status != http.StatusNotFound {
			t.Fatalf("another account's agent: %d", p.Status)
		}
		if p := ob.post("/console/evaluations/"+agent+"/draft", url.Values{"step_output": {"x"}}); p.Status != http.StatusNotFound {
			t.Fatalf("another account's draft: %d", p.Status)
		}
		if p := ob.get("/console/evaluations"); strings.Contains(p.Body, "Greeter") {
			t.Fatal("another account lists the agent")
		}
		// A member reads the page (evaluations need no role to read).
		member := newBrowser(t, srv)
		member.signInWithKey(srv.IssueKey(t, srv.AccountID, srv.UserID, store.RoleMember))
		member.get("/console/evaluations/"+agent).mustContain(t, "The output never says goodbye.")
	})
}
