package isolation

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/testserver"
)

// Regression runs (extension): B can neither start, list, read nor cancel
// regressions of A's agent, nor replay A's runs on an agent of its own.

// regOfA is a Setup with a finished run of A and a regression replaying it.
func regOfA(t *testing.T, c *Ctx) Vars {
	v := runOfA(t, c)
	r := c.AsA(t, http.MethodPost, "/agents/"+v["agent_id"]+"/regressions", map[string]any{"last_runs": 1})
	if r.Status != http.StatusAccepted {
		t.Fatalf("A's regression: %d %s", r.Status, r.Body)
	}
	var reg struct {
		RegressionID string `json:"regression_id"`
	}
	r.JSON(t, &reg)
	v["regression_id"] = reg.RegressionID
	return v
}

// runOfAAgentOfB is runOfA with an agent of B's to replay it on.
func runOfAAgentOfB(t *testing.T, c *Ctx) Vars {
	v := runOfA(t, c)
	v["b_agent"] = c.StoreAgent(t, c.B.AccountID, "B's", `{"child_steps":[{"id":"t","step_type":"text","text":"b"}]}`, "dynamic_input")
	return v
}

// regNotCancelled checks, after B's 404, that A's regression was not asked to stop.
func regNotCancelled(t testing.TB, c *Ctx, r testserver.Response) {
	t.Helper()
	NotFound()(t, c, r)
	reg, err := c.S.Regressions.Get(context.Background(), c.A.AccountID, c.Vars["agent_id"], c.Vars["regression_id"])
	if err != nil || reg.CancelRequested {
		t.Errorf("B's cancel reached A's regression: %+v %v", reg, err)
	}
}

// noSuchRun checks B's attempt to replay A's run reads as no run at all.
func noSuchRun(t testing.TB, c *Ctx, r testserver.Response) {
	t.Helper()
	if r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422: %s", r.Status, r.Body)
	}
	regs, _, err := c.S.Regressions.List(context.Background(), c.B.AccountID, c.Vars["b_agent"], 1, 10)
	if err != nil || len(regs) != 0 {
		t.Errorf("B's attempt made regressions %v (%v)", regs, err)
	}
}

func init() {
	register(
		Case{Op: "POST /agents/{agent_id}/regressions", Name: "B replays A's agent's runs", Setup: runOfA,
			Body: map[string]any{"last_runs": 1}, Expect: NotFound()},
		Case{Op: "POST /agents/{agent_id}/regressions", Name: "B replays A's run on its own agent", Setup: runOfAAgentOfB,
			Path: "/agents/{b_agent}/regressions", Body: func(v Vars) any { return map[string]any{"run_ids": []string{v["run_id"]}} },
			Expect: noSuchRun, NoControl: true},
		Case{Op: "GET /agents/{agent_id}/regressions", Name: "B lists A's agent's regressions", Setup: regOfA, Expect: NotFound()},
		Case{Op: "GET /agents/{agent_id}/regressions/{regression_id}", Name: "B reads A's regression", Setup: regOfA, Expect: NotFound()},
		Case{Op: "POST /agents/{agent_id}/regressions/{regression_id}/cancel", Name: "B cancels A's regression", Setup: regOfA,
			Expect: regNotCancelled, NoControl: true},
	)
}
