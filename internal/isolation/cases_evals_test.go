package isolation

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/testserver"
)

// Evaluations: A's criteria, results, runs and summaries are A's; B reads
// none of them, changes none, and cannot hang results or drafts on them.
func init() {
	register(
		Case{Op: "POST /agents/{agent_id}/evaluation-criteria", Name: "B cannot add criteria to A's agent", Setup: evalOfA,
			Body: map[string]any{"step_id": "t"}, Expect: NotFound(), Control: Status(http.StatusCreated)},
		Case{Op: "GET /agents/{agent_id}/evaluation-criteria", Name: "B does not list A's criteria", Setup: evalOfA,
			Expect: NotFound(), Control: Status(http.StatusOK, NonEmptyList(""))},
		Case{Op: "POST /agents/{agent_id}/evaluation-criteria/test-draft", Name: "B cannot draft on A's agent", Setup: evalOfA,
			Body: map[string]any{"step_output": "x", "expectation_config": map[string]any{"contains": "x"}}, Expect: NotFound()},
		Case{Op: "POST /agents/{agent_id}/evaluation-criteria/test-draft", Name: "B cannot draft on A's step run", Setup: evalOfA,
			Path: "/agents/{b_agent_id}/evaluation-criteria/test-draft",
			Body: func(v Vars) any {
				return map[string]any{"agent_step_run_id": v["step_run_id"], "expectation_config": map[string]any{"contains": "x"}}
			},
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				if strings.Contains(string(r.Body), "secret of A") {
					t.Error("B read A's step output")
				}
			}, NoControl: true},
		Case{Op: "GET /agents/evaluation-criteria/{criteria_id}", Name: "B cannot read A's criterion", Setup: evalOfA, Expect: NotFound()},
		Case{Op: "PATCH /agents/evaluation-criteria/{criteria_id}", Name: "B cannot change A's criterion", Setup: evalOfA,
			Body: map[string]any{"enabled": false}, Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				NotFound()(t, c, r)
				if got, err := c.S.Evals.StoredCriterion(context.Background(), c.A.AccountID, c.Vars["criteria_id"]); err != nil || !got.Enabled {
					t.Errorf("A's criterion changed: %+v %v", got, err)
				}
			}, Control: Status(http.StatusOK)},
		Case{Op: "DELETE /agents/evaluation-criteria/{criteria_id}", Name: "B cannot delete A's criterion", Setup: evalOfA,
			Expect: NotFound(), Control: Status(http.StatusNoContent)},
		Case{Op: "GET /agents/evaluation-criteria/{criteria_id}/compatible-runs", Name: "B does not list A's compatible runs", Setup: evalOfA,
			Expect: NotFound(), Control: Status(http.StatusOK, NonEmptyList("data"))},
		Case{Op: "GET /agents/evaluation-criteria/{criteria_id}/results", Name: "B does not list A's results", Setup: evalOfA,
			Expect: NotFound(), Control: Status(http.StatusOK, NonEmptyList("data"))},
		Case{Op: "POST /agents/evaluation-criteria/{criteria_id}/results", Name: "B cannot add results to A's criterion", Setup: evalOfA,
			Body: func(v Vars) any { return map[string]any{"agent_run_id": v["run_id"], "status": "passed"} }, Expect: NotFound(),
			Control: Status(http.StatusCreated)},
		Case{Op: "POST /agents/evaluation-criteria/{criteria_id}/results", Name: "B cannot record a result on A's run", Setup: evalOfA,
			Path:   "/agents/evaluation-criteria/{b_criteria_id}/results",
			Body:   func(v Vars) any { return map[string]any{"agent_run_id": v["run_id"], "status": "passed"} },
			Expect: Status(http.StatusUnprocessableEntity), NoControl: true},
		Case{Op: "GET /agents/evaluation-criteria/{criteria_id}/summary", Name: "B cannot read A's summary", Setup: evalOfA, Expect: NotFound()},
		Case{Op: "GET /agents/evaluation-results/non-manual-summary", Name: "B's summary counts none of A's results", Setup: evalOfA,
			Expect: Status(http.StatusOK, totalIs(0)), Control: Status(http.StatusOK, totalIs(1))},
		Case{Op: "GET /agents/evaluation-results/non-manual-summary", Name: "B cannot scope the summary to A's agent", Setup: evalOfA,
			Path: "/agents/evaluation-results/non-manual-summary?agent_id={agent_id}", Headers: []string{"Service-Version: 2026-07-27"},
			Expect: NotFound(), Control: Status(http.StatusOK, totalIs(1))},
		Case{Op: "GET /agents/{agent_id}/evaluation-results", Name: "B does not list A's agent's results", Setup: evalOfA,
			Expect: NotFound(), Control: Status(http.StatusOK, NonEmptyList("data"))},
		Case{Op: "GET /agents/{agent_id}/evaluation-runs", Name: "B does not list A's evaluation runs", Setup: evalOfA,
			Expect: NotFound(), Control: Status(http.StatusOK, NonEmptyList("data"))},
		Case{Op: "GET /agents/{agent_id}/evaluation-results/daily", Name: "B does not read A's agent's daily pass rates", Setup: evalOfA,
			Expect: NotFound(), Control: Status(http.StatusOK, NonEmptyList("days"))},
		Case{Op: "GET /agents/{agent_id}/runs/{run_id}/evaluation-results", Name: "B does not list A's run's results", Setup: evalOfA,
			Expect: NotFound(), Control: Status(http.StatusOK, NonEmptyList(""))},
	)
}

// evalOfA gives A a run of its agent, a criterion on its step and a
// non-manual result; B gets an agent and a criterion of its own.
func evalOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	v := runOfA(t, c)
	ctx := context.Background()
	crit, err := c.S.Evals.StoreCriterion(ctx, evals.EvaluationCriterion{AccountID: c.A.AccountID, AgentID: v["agent_id"], StepID: "t",
		EvaluationMode: "eval_and_retry", Enabled: true, PassThreshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	steps, err := runs.NewRepo(c.DB, nil).Steps(ctx, v["run_id"])
	if err != nil || len(steps) == 0 {
		t.Fatalf("A's steps: %v", err)
	}
	score := 1.0
	if _, err := c.S.Evals.StoreResult(ctx, evals.EvaluationResult{AccountID: c.A.AccountID, AgentID: v["agent_id"], CriteriaID: crit.ID,
		AgentRunID: v["run_id"], AgentStepRunID: steps[0].ID, StepID: "t", EvaluationMode: "eval_and_retry", Status: "passed", Score: &score}); err != nil {
		t.Fatal(err)
	}
	bAgent := c.StoreAgent(t, c.B.AccountID, "B's agent", `{"child_steps":[{"id":"t","step_type":"text","text":"b"}]}`, "dynamic_input")
	bCrit, err := c.S.Evals.StoreCriterion(ctx, evals.EvaluationCriterion{AccountID: c.B.AccountID, AgentID: bAgent, StepID: "t",
		EvaluationMode: "output_expectation", Enabled: true, PassThreshold: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	v["criteria_id"], v["step_run_id"], v["b_agent_id"], v["b_criteria_id"] = crit.ID, steps[0].ID, bAgent, bCrit.ID
	return v
}

// totalIs checks a summary's total.
func totalIs(n int) Expectation {
	return func(t testing.TB, _ *Ctx, r testserver.Response) {
		t.Helper()
		var body struct{ Total int }
		r.JSON(t, &body)
		if body.Total != n {
			t.Errorf("total %d, want %d: %.300s", body.Total, n, r.Body)
		}
	}
}
