package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/evals/evalrow"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// storeAgentWith stores an agent with evaluation settings.
func storeAgentWith(t *testing.T, s *testserver.Server, accountID, def string, st agents.AgentSettings) string {
	t.Helper()
	if st.ModelUpgradeStrategy == "" {
		st.ModelUpgradeStrategy = "none"
	}
	a, err := agents.NewRepo(s.DB).CreateAgent(context.Background(), agents.NewAgent{
		Agent:   agents.Agent{AccountID: accountID, Name: "eval agent", Definition: json.RawMessage(def), Settings: st},
		Trigger: agents.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

func startRun(t *testing.T, s *testserver.Server, key, agentID, input string) string {
	t.Helper()
	r := s.Do(t, "POST", "/agents/"+agentID+"/runs", key, map[string]any{"input": input})
	wantStatus(t, r, http.StatusOK)
	var v struct {
		RunID string `json:"run_id"`
	}
	r.JSON(t, &v)
	return v.RunID
}

// The JSON-extraction example of docs/evaluations.md: the model's first
// answer misses a required field; the criterion's JSON Schema check fails,
// the step runs again with the judge's feedback in its prompt, and the
// second answer passes.
const extractionDef = `{"child_steps":[{"id":"extract","step_type":"prompt_call","model":"openai_gpt_4o_mini",
	"prompt_template":"Extract the customer's name and e-mail address as JSON: {{input}}","response_format":"json",
	"child_steps":[{"id":"show","step_type":"display_result","template":"{{input}}"}]}]}`

const extractionSchema = `{"type":"object","required":["name","email"],"properties":{"name":{"type":"string"},"email":{"type":"string","pattern":"@"}}}`

func TestEvalAndRetryJSONExtraction(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		fakes, opt := playgroundtest.Start(t)
		s := testserver.Start(t, d, opt)
		agent := storeAgentWith(t, s, s.AccountID, extractionDef, agents.AgentSettings{EvaluationMode: "eval_and_retry", MaxRetries: 2, RetryOnFailure: true})
		var schema map[string]any
		_ = json.Unmarshal([]byte(extractionSchema), &schema)
		r := s.Do(t, "POST", "/agents/"+agent+"/evaluation-criteria", s.Key, map[string]any{
			"step_id": "extract", "description": "valid customer JSON", "pass_threshold": 1,
			"expectation_config": map[string]any{"json_schema": schema}})
		wantStatus(t, r, http.StatusCreated)
		var crit api.EvaluationCriteriaResponse
		r.JSON(t, &crit)
		if crit.EvaluationMode != "eval_and_retry" || crit.MaxRetries != 2 || !crit.RetryOnFailure || crit.ResultSummary["total"] != 0 {
			t.Fatalf("criterion: %s", r.Body)
		}

		fakes.OpenAI.Enqueue(fakellm.Reply{Text: `{"name": "Ada Lovelace"}`, Usage: fakellm.Usage{Input: 30, Output: 8}},
			fakellm.Reply{Text: `{"name": "Ada Lovelace", "email": "ada@example.com"}`, Usage: fakellm.Usage{Input: 60, Output: 12}})
		run := startRun(t, s, s.Key, agent, "Ada Lovelace <ada@example.com> asked about her invoice")
		done := waitRun(t, s, s.Key, run)
		if done.Status != "completed" || done.Output == nil || !strings.Contains(*done.Output, "ada@example.com") {
			t.Fatalf("run: %+v", done)
		}
		reqs := fakes.OpenAI.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d model calls, want 2", len(reqs))
		}
		if second := string(reqs[1].Body); !strings.Contains(second, "did not pass its evaluation") || !strings.Contains(second, "email") {
			t.Errorf("the retry does not carry the judge's feedback: %s", second)
		}

		// Two results: the failed first attempt (retry triggered), the pass.
		r = s.Do(t, "GET", "/agents/"+agent+"/runs/"+run+"/evaluation-results", s.Key, nil)
		var results []api.EvaluationResultWithCriteriaResponse
		r.JSON(t, &results)
		if r.Status != http.StatusOK || len(results) != 2 {
			t.Fatalf("run results: %d %s", r.Status, r.Body)
		}
		byStatus := map[string]api.EvaluationResultWithCriteriaResponse{}
		for _, x := range results {
			byStatus[x.Status] = x
		}
		failed, passed := byStatus["failed"], byStatus["passed"]
		if !failed.RetryTriggered || failed.RetryCount != 0 || passed.RetryCount != 1 || passed.RetryTriggered ||
			*passed.StepID != "extract" || *passed.CriteriaDescription != "valid customer JSON" || passed.AgentStepRunID == nil {
			t.Errorf("results: %s", r.Body)
		}
		if !strings.Contains(string(failed.Details), "email") {
			t.Errorf("the failure does not explain itself: %s", failed.Details)
		}
		// At the latest version the same list is the canonical envelope.
		r = s.Do(t, "GET", "/agents/"+agent+"/runs/"+run+"/evaluation-results?limit=1", s.Key, nil, "Service-Version: 2026-07-27")
		var env struct {
			Data       []json.RawMessage `json:"data"`
			Pagination api.Pagination    `json:"pagination"`
		}
		r.JSON(t, &env)
		if len(env.Data) != 1 || env.Pagination.Total != 2 || !env.Pagination.HasNext {
			t.Errorf("envelope: %s", r.Body)
		}

		// Summaries.
		r = s.Do(t, "GET", "/agents/evaluation-criteria/"+crit.ID+"/summary", s.Key, nil)
		var sum api.EvaluationResultSummaryResponse
		r.JSON(t, &sum)
		if sum.Total != 2 || sum.Passed != 1 || sum.Failed != 1 || sum.AverageScore == nil {
			t.Errorf("summary: %s", r.Body)
		}
		r = s.Do(t, "GET", "/agents/evaluation-results/non-manual-summary", s.Key, nil)
		var nm api.NonManualEvaluationSummaryResponse
		r.JSON(t, &nm)
		if nm.Total != 2 || nm.Passed != 1 || nm.PassRate != 0.5 || len(nm.ByMode) != 2 || nm.ByMode[0].Mode != "eval_and_retry" || nm.ByMode[0].Total != 2 {
			t.Errorf("non-manual summary: %s", r.Body)
		}
		r = s.Do(t, "GET", "/agents/"+agent+"/evaluation-runs", s.Key, nil)
		var runsList api.LegacyList[api.EvaluationRunSummaryResponse]
		r.JSON(t, &runsList)
		if runsList.Total != 1 || runsList.Data[0].AgentRunID != run || runsList.Data[0].PassedCount != 1 || runsList.Data[0].FailedCount != 1 || runsList.Data[0].RunStatus != "completed" {
			t.Errorf("evaluation runs: %s", r.Body)
		}
		r = s.Do(t, "GET", "/agents/evaluation-criteria/"+crit.ID+"/results?status=failed", s.Key, nil)
		var crl api.LegacyList[api.EvaluationResultResponse]
		r.JSON(t, &crl)
		if crl.Total != 1 || crl.Data[0].Status != "failed" {
			t.Errorf("criteria results: %s", r.Body)
		}
		r = s.Do(t, "GET", "/agents/evaluation-criteria/"+crit.ID+"/compatible-runs", s.Key, nil)
		var compat api.LegacyList[api.CompatibleRunResponse]
		r.JSON(t, &compat)
		if compat.Total != 1 || compat.Data[0].AgentRunID != run || compat.Data[0].AgentStepRunID != *passed.AgentStepRunID {
			t.Errorf("compatible runs: %s", r.Body)
		}
		// The criterion counts its results.
		r = s.Do(t, "GET", "/agents/evaluation-criteria/"+crit.ID, s.Key, nil)
		r.JSON(t, &crit)
		if crit.ResultSummary["passed"] != 1 || crit.ResultSummary["failed"] != 1 || crit.ResultSummary["total"] != 2 {
			t.Errorf("result_summary: %v", crit.ResultSummary)
		}

		// When every retry fails, the run fails with the judgment.
		fakes.OpenAI.Enqueue(fakellm.Reply{Text: `{"name": 1}`}, fakellm.Reply{Text: `{"name": 2}`}, fakellm.Reply{Text: `not json`})
		run2 := startRun(t, s, s.Key, agent, "Nobody")
		done = waitRun(t, s, s.Key, run2)
		if done.Status != "failed" || !strings.Contains(runError(done), "failed its evaluation after 2 retries") {
			t.Fatalf("exhausted retries: %+v", done)
		}
	})
}

func TestEvaluationCriteriaCRUDAndDraft(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := makeAgent(t, s, s.AccountID, chainDef)
		r := s.Do(t, "POST", "/agents/"+agent+"/evaluation-criteria", s.Key, map[string]any{"step_id": "greet",
			"evaluation_prompt": `The greeting must say "Hello"`, "evaluation_tier": "fast"})
		wantStatus(t, r, http.StatusCreated)
		var c api.EvaluationCriteriaResponse
		r.JSON(t, &c)
		if c.PassThreshold != 0.5 || !c.Enabled || c.EvaluationMode != "output_expectation" || *c.EvaluationTier != "fast" {
			t.Errorf("created: %s", r.Body)
		}
		// Bad configs are 422s that say what is wrong.
		r = s.Do(t, "POST", "/agents/"+agent+"/evaluation-criteria", s.Key, map[string]any{"step_id": "greet",
			"expectation_config": map[string]any{"regex": "(unclosed"}})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "does not compile") {
			t.Errorf("bad regex: %d %s", r.Status, r.Body)
		}
		r = s.Do(t, "POST", "/agents/"+agent+"/evaluation-criteria", s.Key, map[string]any{"step_id": ""})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		// Partial update: only named fields change; null clears.
		r = s.Do(t, "PATCH", "/agents/evaluation-criteria/"+c.ID, s.Key, map[string]any{"enabled": false, "evaluation_tier": nil})
		r.JSON(t, &c)
		if r.Status != http.StatusOK || c.Enabled || c.EvaluationTier != nil || c.EvaluationPrompt == nil {
			t.Errorf("patched: %d %s", r.Status, r.Body)
		}
		// The list's shape follows the version.
		r = s.Do(t, "GET", "/agents/"+agent+"/evaluation-criteria", s.Key, nil)
		if r.Status != http.StatusOK || !strings.HasPrefix(strings.TrimSpace(string(r.Body)), "[") {
			t.Errorf("legacy list: %s", r.Body)
		}
		r = s.Do(t, "GET", "/agents/"+agent+"/evaluation-criteria", s.Key, nil, "Service-Version: 2026-07-27")
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"pagination"`) {
			t.Errorf("envelope list: %s", r.Body)
		}

		// A run, then a pushed result and a draft on its step.
		run := startRun(t, s, s.Key, agent, "world")
		waitRun(t, s, s.Key, run)
		score := 0.9
		r = s.Do(t, "POST", "/agents/evaluation-criteria/"+c.ID+"/results", s.Key, map[string]any{"agent_run_id": run, "status": "passed", "score": score,
			"details": map[string]any{"harness": "ci"}})
		wantStatus(t, r, http.StatusCreated)
		r = s.Do(t, "POST", "/agents/evaluation-criteria/"+c.ID+"/results", s.Key, map[string]any{"agent_run_id": "0190a5b0-0000-7000-8000-000000000000", "status": "passed"})
		wantLoc(t, r, "", "body", "agent_run_id")
		r = s.Do(t, "POST", "/agents/evaluation-criteria/"+c.ID+"/results", s.Key, map[string]any{"agent_run_id": run, "status": "great"})
		wantStatus(t, r, http.StatusUnprocessableEntity)

		r = s.Do(t, "GET", "/agents/evaluation-criteria/"+c.ID+"/compatible-runs", s.Key, nil)
		var compat api.LegacyList[api.CompatibleRunResponse]
		r.JSON(t, &compat)
		if compat.Total != 1 {
			t.Fatalf("compatible: %s", r.Body)
		}
		before := credits(t, s)
		r = s.Do(t, "POST", "/agents/"+agent+"/evaluation-criteria/test-draft", s.Key, map[string]any{
			"agent_step_run_id": compat.Data[0].AgentStepRunID, "evaluation_prompt": `The greeting must say "Hello" and "world"`, "pass_threshold": 0.9})
		var draft api.TestDraftEvaluationResponse
		r.JSON(t, &draft)
		if r.Status != http.StatusOK || !draft.Passed || draft.Score != 1 || !strings.Contains(*draft.Explanation, "contains 2 of them") {
			t.Errorf("draft on a step run: %d %s", r.Status, r.Body)
		}
		r = s.Do(t, "POST", "/agents/"+agent+"/evaluation-criteria/test-draft", s.Key, map[string]any{
			"step_output": `{"total": 250}`, "expectation_config": map[string]any{"numeric_range": map[string]any{"min": 0, "max": 100, "path": "$.total"}}})
		r.JSON(t, &draft)
		if r.Status != http.StatusOK || draft.Passed || !strings.Contains(*draft.Explanation, "outside the range") {
			t.Errorf("draft with a range: %d %s", r.Status, r.Body)
		}
		r = s.Do(t, "POST", "/agents/"+agent+"/evaluation-criteria/test-draft", s.Key, map[string]any{"evaluation_prompt": "x"})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		if after := credits(t, s); after != before {
			t.Errorf("drafts cost credits: %v → %v", before, after)
		}
		// Drafts record nothing.
		r = s.Do(t, "GET", "/agents/"+agent+"/evaluation-results", s.Key, nil)
		var all api.LegacyList[api.EvaluationResultWithCriteriaResponse]
		r.JSON(t, &all)
		if all.Total != 1 {
			t.Errorf("results after drafts: %s", r.Body)
		}

		// The non-manual summary's agent_id: ignored before 2026-07-27, a
		// scope (404 when unknown) at it.
		missing := "0190a5b0-0000-7000-8000-00000000abcd"
		if r := s.Do(t, "GET", "/agents/evaluation-results/non-manual-summary?agent_id="+missing, s.Key, nil); r.Status != http.StatusOK {
			t.Errorf("legacy agent_id: %d %s", r.Status, r.Body)
		}
		if r := s.Do(t, "GET", "/agents/evaluation-results/non-manual-summary?agent_id="+missing, s.Key, nil, "Service-Version: 2026-07-27"); r.Status != http.StatusNotFound {
			t.Errorf("strict unknown agent_id: %d %s", r.Status, r.Body)
		}
		if r := s.Do(t, "GET", "/agents/evaluation-results/non-manual-summary?agent_id="+agent, s.Key, nil, "Service-Version: 2026-07-27"); r.Status != http.StatusOK {
			t.Errorf("strict agent_id: %d %s", r.Status, r.Body)
		}

		// Deleting removes the criterion and its results.
		wantStatus(t, s.Do(t, "DELETE", "/agents/evaluation-criteria/"+c.ID, s.Key, nil), http.StatusNoContent)
		wantStatus(t, s.Do(t, "GET", "/agents/evaluation-criteria/"+c.ID, s.Key, nil), http.StatusNotFound)
		r = s.Do(t, "GET", "/agents/"+agent+"/evaluation-results", s.Key, nil)
		r.JSON(t, &all)
		if all.Total != 0 {
			t.Errorf("results outlived their criterion: %s", r.Body)
		}
	})
}

func credits(t *testing.T, s *testserver.Server) float64 {
	t.Helper()
	b, err := billing.NewCredits(s.DB).Balance(context.Background(), s.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runError is the reason a run failed, from its last attempt.
func runError(r runs.RunResponse) string {
	if len(r.Attempts) == 0 || r.Attempts[len(r.Attempts)-1].Error == nil {
		return ""
	}
	return *r.Attempts[len(r.Attempts)-1].Error
}

// An agent's criteria are bounded: the one past the limit is a 422 that
// says so, and nothing is added.
func TestEvaluationCriteriaLimit(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := makeAgent(t, s, s.AccountID, chainDef)
		for range evalrow.MaxCriteriaPerAgent {
			if _, err := s.S.Evals.StoreCriterion(context.Background(), evals.EvaluationCriterion{AccountID: s.AccountID, AgentID: agent,
				StepID: "greet", EvaluationMode: "output_expectation", Enabled: true, PassThreshold: 0.5}); err != nil {
				t.Fatal(err)
			}
		}
		r := s.Do(t, "POST", "/agents/"+agent+"/evaluation-criteria", s.Key, map[string]any{"step_id": "greet"})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "at most 100 evaluation criteria") {
			t.Errorf("past the limit: %d %s", r.Status, r.Body)
		}
		r = s.Do(t, "GET", "/agents/"+agent+"/evaluation-criteria?limit=1", s.Key, nil, "Service-Version: 2026-07-27")
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"total":100`) {
			t.Errorf("after the refused create: %s", r.Body)
		}
	})
}

// sample_and_flag judges sampled runs and flags failures without blocking;
// evaluate_step judges inside the workflow.
func TestSampleAndFlagAndEvaluateStep(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		def := `{"child_steps":[{"id":"greet","step_type":"text","text":"Hello {{input}}","child_steps":[
			{"id":"judge","step_type":"evaluate_step","target_step_id":"greet","evaluation_prompt":"The greeting must say \"Hello\"","pass_threshold":0.5}]}]}`
		agent := storeAgentWith(t, s, s.AccountID, def, agents.AgentSettings{EvaluationMode: "sample_and_flag", MaxRetries: 1,
			SamplingConfig: json.RawMessage(`{"sample_rate": 1}`)})
		r := s.Do(t, "POST", "/agents/"+agent+"/evaluation-criteria", s.Key, map[string]any{"step_id": "greet",
			"expectation_config": map[string]any{"contains": "Goodbye"}})
		wantStatus(t, r, http.StatusCreated)
		run := startRun(t, s, s.Key, agent, "world")
		done := waitRun(t, s, s.Key, run)
		if done.Status != "completed" || done.Output == nil {
			t.Fatalf("run: %+v", done)
		}
		var verdict struct {
			Score  float64 `json:"score"`
			Passed bool    `json:"passed"`
		}
		if err := json.Unmarshal([]byte(*done.Output), &verdict); err != nil || !verdict.Passed || verdict.Score != 1 {
			t.Errorf("evaluate_step output: %s", *done.Output)
		}
		r = s.Do(t, "GET", "/agents/"+agent+"/evaluation-results?flagged_only=true", s.Key, nil)
		var list api.LegacyList[api.EvaluationResultWithCriteriaResponse]
		r.JSON(t, &list)
		if list.Total != 1 || list.Data[0].Status != "failed" || !list.Data[0].Flagged || list.Data[0].RetryTriggered {
			t.Errorf("flagged results: %s", r.Body)
		}
		r = s.Do(t, "GET", "/agents/evaluation-results/non-manual-summary", s.Key, nil)
		var nm api.NonManualEvaluationSummaryResponse
		r.JSON(t, &nm)
		if nm.Flagged != 1 || nm.ByMode[1].Mode != "sample_and_flag" || nm.ByMode[1].Failed != 1 {
			t.Errorf("summary: %s", r.Body)
		}
	})
}
