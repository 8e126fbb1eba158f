package conformance

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/version"
)

// Evaluations and governance. evalSetup runs an agent once and gives it a
// criterion with a result; govSetup gives the account a policy and a
// pending plan.

func evalSetup(t *testing.T, e *Env) Vars {
	ctx := context.Background()
	agent := e.StoreAgent(t, e.Tenant.AccountID, "evaluated", `{"child_steps":[{"id":"t","step_type":"text","text":"Hello {{input}}"}]}`, "dynamic_input")
	r := e.Do(t, http.MethodPost, "/agents/"+agent+"/runs", map[string]any{"input": "world"})
	var run struct {
		RunID string `json:"run_id"`
	}
	r.JSON(t, &run)
	waitRunDone(t, e, run.RunID)
	steps, err := runs.NewRepo(e.DB, nil).Steps(ctx, run.RunID)
	if err != nil || len(steps) == 0 {
		t.Fatalf("steps: %v", err)
	}
	c, err := e.S.Evals.StoreCriterion(ctx, evals.EvaluationCriterion{AccountID: e.Tenant.AccountID, AgentID: agent, StepID: "t",
		EvaluationMode: "sample_and_flag", Enabled: true, PassThreshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	score := 0.8
	if _, err := e.S.Evals.StoreResult(ctx, evals.EvaluationResult{AccountID: e.Tenant.AccountID, AgentID: agent, CriteriaID: c.ID,
		AgentRunID: run.RunID, AgentStepRunID: steps[0].ID, StepID: "t", EvaluationMode: "sample_and_flag", Status: "passed", Score: &score}); err != nil {
		t.Fatal(err)
	}
	return Vars{"agent_id": agent, "run_id": run.RunID, "criteria_id": c.ID, "step_run_id": steps[0].ID}
}

func waitRunDone(t *testing.T, e *Env, runID string) {
	for i := 0; i < 400; i++ {
		r, err := runs.NewRepo(e.DB, nil).Run(context.Background(), e.Tenant.AccountID, runID)
		if err != nil {
			t.Fatal(err)
		}
		if runs.RunTerminal(r.Status) {
			return
		}
		sleepBriefly()
	}
	t.Fatal("run did not finish")
}

func govSetup(t *testing.T, e *Env) Vars {
	ctx := context.Background()
	name, typ := "No personal data", "pii"
	p, err := e.S.Governance.CreatePolicy(ctx, e.Tenant.AccountID, governance.PolicyInput{Name: &name, PolicyType: &typ})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := e.S.Governance.Propose(ctx, e.Tenant.AccountID, e.Tenant.UserID, "Block API keys and other secrets in responses")
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"policy_id": p.ID, "conversation_id": plan.Conversation.ID}
}

func init() {
	strict := []string{version.Header + ": " + version.StrictEnvelope}
	unknown := "0190a3b4-0000-7000-8000-000000000000"
	crit := "/agents/evaluation-criteria/{criteria_id}"
	register(
		Exercise{Op: "POST /agents/{agent_id}/evaluation-criteria", Name: "every field", Setup: evalSetup, Status: http.StatusCreated,
			Body: map[string]any{"step_id": "t", "description": "greets", "enabled": true, "evaluation_prompt": `Must say "Hello"`,
				"expectation_config": map[string]any{"contains": "Hello", "is_json": false}, "pass_threshold": 0.7, "evaluation_tier": "fast"}},
		Exercise{Op: "POST /agents/{agent_id}/evaluation-criteria", Name: "bad regex", Setup: evalSetup, Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"step_id": "t", "expectation_config": map[string]any{"regex": "(("}}},
		Exercise{Op: "POST /agents/{agent_id}/evaluation-criteria", Name: "unknown agent", Path: "/agents/" + unknown + "/evaluation-criteria",
			Status: http.StatusNotFound, Body: map[string]any{"step_id": "t"}},

		Exercise{Op: "GET /agents/{agent_id}/evaluation-criteria", Name: "legacy array", Setup: evalSetup, Status: http.StatusOK},
		Exercise{Op: "GET /agents/{agent_id}/evaluation-criteria", Name: "strict envelope", Setup: evalSetup, Headers: strict, Status: http.StatusOK,
			Schema: Envelope("EvaluationCriteriaResponse")},
		Exercise{Op: "GET /agents/{agent_id}/evaluation-criteria", Name: "limit too large", Setup: evalSetup,
			Path: "/agents/{agent_id}/evaluation-criteria?limit=101", Status: http.StatusUnprocessableEntity, Check: expectLoc("query", "limit")},

		Exercise{Op: "POST /agents/{agent_id}/evaluation-criteria/test-draft", Name: "checks and rubric", Setup: evalSetup, Status: http.StatusOK,
			Body: map[string]any{"step_output": "Hello world", "evaluation_prompt": `Must say "Hello"`, "expectation_config": map[string]any{"contains": "world"}}},
		Exercise{Op: "POST /agents/{agent_id}/evaluation-criteria/test-draft", Name: "nothing to evaluate", Setup: evalSetup,
			Status: http.StatusUnprocessableEntity, Body: map[string]any{"evaluation_prompt": "x"}},

		Exercise{Op: "GET /agents/evaluation-criteria/{criteria_id}", Name: "with counts", Setup: evalSetup, Status: http.StatusOK},
		Exercise{Op: "GET /agents/evaluation-criteria/{criteria_id}", Name: "unknown", Path: "/agents/evaluation-criteria/" + unknown, Status: http.StatusNotFound},
		Exercise{Op: "GET /agents/evaluation-criteria/{criteria_id}", Name: "malformed id", Path: "/agents/evaluation-criteria/x",
			Status: http.StatusUnprocessableEntity, Check: expectLoc("path", "criteria_id")},

		Exercise{Op: "PATCH /agents/evaluation-criteria/{criteria_id}", Name: "toggle and clear", Setup: evalSetup, Status: http.StatusOK,
			Body: map[string]any{"enabled": false, "evaluation_tier": nil, "pass_threshold": 0.9}},
		Exercise{Op: "PATCH /agents/evaluation-criteria/{criteria_id}", Name: "threshold out of range", Setup: evalSetup,
			Status: http.StatusUnprocessableEntity, Body: map[string]any{"pass_threshold": 2}},

		Exercise{Op: "DELETE /agents/evaluation-criteria/{criteria_id}", Name: "with results", Setup: evalSetup, Status: http.StatusNoContent},
		Exercise{Op: "DELETE /agents/evaluation-criteria/{criteria_id}", Name: "malformed id", Path: "/agents/evaluation-criteria/x",
			Status: http.StatusUnprocessableEntity},

		Exercise{Op: "GET /agents/evaluation-criteria/{criteria_id}/compatible-runs", Name: "one run", Setup: evalSetup, Status: http.StatusOK},
		Exercise{Op: "GET /agents/evaluation-criteria/{criteria_id}/compatible-runs", Name: "strict envelope", Setup: evalSetup, Headers: strict,
			Status: http.StatusOK, Schema: Envelope("CompatibleRunResponse")},
		Exercise{Op: "GET /agents/evaluation-criteria/{criteria_id}/compatible-runs", Name: "not a time", Setup: evalSetup,
			Path: crit + "/compatible-runs?started_after=yesterday", Status: http.StatusUnprocessableEntity},

		Exercise{Op: "GET /agents/evaluation-criteria/{criteria_id}/results", Name: "filtered", Setup: evalSetup,
			Path: crit + "/results?status=passed&flagged_only=false&time_from=2020-01-01", Status: http.StatusOK},
		Exercise{Op: "GET /agents/evaluation-criteria/{criteria_id}/results", Name: "strict envelope", Setup: evalSetup, Headers: strict,
			Status: http.StatusOK, Schema: Envelope("EvaluationResultResponse")},
		Exercise{Op: "GET /agents/evaluation-criteria/{criteria_id}/results", Name: "unknown status", Setup: evalSetup,
			Path: crit + "/results?status=great", Status: http.StatusUnprocessableEntity},

		Exercise{Op: "POST /agents/evaluation-criteria/{criteria_id}/results", Name: "pushed by a harness", Setup: evalSetup, Status: http.StatusCreated,
			Body: func(v Vars) any {
				return map[string]any{"agent_run_id": v["run_id"], "agent_step_run_id": v["step_run_id"], "status": "failed", "score": 0.2,
					"flagged": true, "details": map[string]any{"ci": "nightly"}}
			}},
		Exercise{Op: "POST /agents/evaluation-criteria/{criteria_id}/results", Name: "score out of range", Setup: evalSetup,
			Status: http.StatusUnprocessableEntity, Body: func(v Vars) any { return map[string]any{"agent_run_id": v["run_id"], "status": "passed", "score": 3} }},

		Exercise{Op: "GET /agents/evaluation-criteria/{criteria_id}/summary", Name: "counts", Setup: evalSetup, Status: http.StatusOK},
		Exercise{Op: "GET /agents/evaluation-criteria/{criteria_id}/summary", Name: "malformed id", Path: "/agents/evaluation-criteria/x/summary",
			Status: http.StatusUnprocessableEntity},

		Exercise{Op: "GET /agents/evaluation-results/non-manual-summary", Name: "account-wide", Setup: evalSetup, Status: http.StatusOK},
		Exercise{Op: "GET /agents/evaluation-results/non-manual-summary", Name: "one agent at the latest version", Setup: evalSetup, Headers: strict,
			Path: "/agents/evaluation-results/non-manual-summary?agent_id={agent_id}&days=7", Status: http.StatusOK},
		Exercise{Op: "GET /agents/evaluation-results/non-manual-summary", Name: "unknown agent at the latest version", Headers: strict,
			Path: "/agents/evaluation-results/non-manual-summary?agent_id=" + unknown, Status: http.StatusNotFound},
		Exercise{Op: "GET /agents/evaluation-results/non-manual-summary", Name: "days out of range",
			Path: "/agents/evaluation-results/non-manual-summary?days=731", Status: http.StatusUnprocessableEntity, Check: expectLoc("query", "days")},

		Exercise{Op: "GET /agents/{agent_id}/evaluation-results", Name: "filtered", Setup: evalSetup,
			Path: "/agents/{agent_id}/evaluation-results?step=t&status=passed", Status: http.StatusOK},
		Exercise{Op: "GET /agents/{agent_id}/evaluation-results", Name: "strict envelope", Setup: evalSetup, Headers: strict, Status: http.StatusOK,
			Schema: Envelope("EvaluationResultWithCriteriaResponse")},
		Exercise{Op: "GET /agents/{agent_id}/evaluation-results", Name: "bad time", Setup: evalSetup,
			Path: "/agents/{agent_id}/evaluation-results?time_to=soon", Status: http.StatusUnprocessableEntity},

		Exercise{Op: "GET /agents/{agent_id}/evaluation-runs", Name: "grouped", Setup: evalSetup, Status: http.StatusOK},
		Exercise{Op: "GET /agents/{agent_id}/evaluation-runs", Name: "strict envelope", Setup: evalSetup, Headers: strict, Status: http.StatusOK,
			Schema: Envelope("EvaluationRunSummaryResponse")},
		Exercise{Op: "GET /agents/{agent_id}/evaluation-runs", Name: "page out of range", Setup: evalSetup,
			Path: "/agents/{agent_id}/evaluation-runs?page=0", Status: http.StatusUnprocessableEntity},

		Exercise{Op: "GET /agents/{agent_id}/runs/{run_id}/evaluation-results", Name: "legacy array", Setup: evalSetup, Status: http.StatusOK},
		Exercise{Op: "GET /agents/{agent_id}/runs/{run_id}/evaluation-results", Name: "strict envelope", Setup: evalSetup, Headers: strict,
			Status: http.StatusOK, Schema: Envelope("EvaluationResultWithCriteriaResponse")},
		Exercise{Op: "GET /agents/{agent_id}/runs/{run_id}/evaluation-results", Name: "malformed run id", Setup: evalSetup,
			Path: "/agents/{agent_id}/runs/x/evaluation-results", Status: http.StatusUnprocessableEntity},

		Exercise{Op: "POST /governance/ai-assistant", Name: "a plan", Status: http.StatusOK,
			Body: map[string]any{"user_input": "Block e-mail addresses and phone numbers in every agent's output"}},
		Exercise{Op: "POST /governance/ai-assistant", Name: "blank request", Status: http.StatusBadRequest, Body: map[string]any{"user_input": "   "}},
		Exercise{Op: "POST /governance/ai-assistant", Name: "member", As: Member, Status: http.StatusForbidden, Body: map[string]any{"user_input": "block pii"}},
		Exercise{Op: "POST /governance/ai-assistant", Name: "no input", Status: http.StatusUnprocessableEntity, Body: map[string]any{}},

		Exercise{Op: "GET /governance/ai-assistant/conversations", Name: "one", Setup: govSetup, Status: http.StatusOK},
		Exercise{Op: "GET /governance/ai-assistant/conversations", Name: "member", As: Member, Status: http.StatusForbidden},
		Exercise{Op: "GET /governance/ai-assistant/conversations", Name: "limit too large", Path: "/governance/ai-assistant/conversations?limit=101",
			Status: http.StatusUnprocessableEntity},

		Exercise{Op: "POST /governance/ai-assistant/{conversation_id}/accept", Name: "applied", Setup: govSetup, Status: http.StatusOK},
		Exercise{Op: "POST /governance/ai-assistant/{conversation_id}/accept", Name: "already declined", Setup: func(t *testing.T, e *Env) Vars {
			v := govSetup(t, e)
			if err := e.S.Governance.Decline(context.Background(), e.Tenant.AccountID, v["conversation_id"]); err != nil {
				t.Fatal(err)
			}
			return v
		}, Status: http.StatusBadRequest},
		Exercise{Op: "POST /governance/ai-assistant/{conversation_id}/accept", Name: "member", As: Member, Setup: govSetup, Status: http.StatusForbidden},
		Exercise{Op: "POST /governance/ai-assistant/{conversation_id}/accept", Name: "malformed id", Path: "/governance/ai-assistant/x/accept",
			Status: http.StatusUnprocessableEntity},

		Exercise{Op: "POST /governance/ai-assistant/{conversation_id}/decline", Name: "declined", Setup: govSetup, Status: http.StatusNoContent},
		Exercise{Op: "POST /governance/ai-assistant/{conversation_id}/decline", Name: "already accepted", Setup: func(t *testing.T, e *Env) Vars {
			v := govSetup(t, e)
			if _, err := e.S.Governance.Accept(context.Background(), e.Tenant.AccountID, v["conversation_id"]); err != nil {
				t.Fatal(err)
			}
			return v
		}, Status: http.StatusBadRequest},
		Exercise{Op: "POST /governance/ai-assistant/{conversation_id}/decline", Name: "member", As: Member, Setup: govSetup, Status: http.StatusForbidden},
		Exercise{Op: "POST /governance/ai-assistant/{conversation_id}/decline", Name: "malformed id", Path: "/governance/ai-assistant/x/decline",
			Status: http.StatusUnprocessableEntity},
	)
}

func sleepBriefly() { time.Sleep(25 * time.Millisecond) }
