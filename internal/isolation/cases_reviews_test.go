package isolation

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/testserver"
)

// parkedRunOfA runs an agent of A that waits for a human review.
func parkedRunOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	agent := c.StoreAgent(t, c.A.AccountID, "A's reviewed agent", `{"child_steps":[{"id":"review","step_type":"human_in_the_loop",
		"instructions":"secret of A: publish?","child_steps":[{"id":"show","step_type":"display_result","template":"{{input}}"}]}]}`, "dynamic_input")
	r := c.AsA(t, http.MethodPost, "/agents/"+agent+"/runs", map[string]any{"input": "alpha"})
	var run struct {
		RunID string `json:"run_id"`
	}
	r.JSON(t, &run)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := runs.NewRepo(c.DB, nil).Run(context.Background(), c.A.AccountID, run.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == runs.RunWaitingHuman {
			return Vars{"agent_id": agent, "run_id": run.RunID}
		}
		if runs.RunTerminal(got.Status) || time.Now().After(deadline) {
			t.Fatalf("A's run did not park: %s %s", got.Status, got.Error)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Reviews (an extension): B neither sees nor decides A's reviews.
func init() {
	register(
		Case{Op: "GET /agents/runs/reviews", Name: "B lists A's pending reviews", Setup: parkedRunOfA,
			Expect: Status(http.StatusOK, EmptyList("data")), Control: NonEmptyList("data")},
		Case{Op: "GET /agents/runs/reviews", Name: "B lists the reviews of A's run", Setup: parkedRunOfA, Path: "/agents/runs/reviews?run_id={run_id}",
			Expect: Status(http.StatusOK, EmptyList("data")), Control: NonEmptyList("data")},
		Case{Op: "POST /agents/runs/{run_id}/reviews/decision", Name: "B approves A's review", Setup: parkedRunOfA,
			Body: map[string]any{"decision": "approve", "comment": "from B"},
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				NotFound()(t, c, r)
				if rv, err := c.S.Runs.Review(context.Background(), c.A.AccountID, c.Vars["run_id"], "review"); err != nil || rv.DecidedAt != nil {
					t.Errorf("B's decision touched A's review: %+v %v", rv, err)
				}
			}},
	)
}
