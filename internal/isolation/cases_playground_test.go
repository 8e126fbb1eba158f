package isolation

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/playground"
	"github.com/agentry/agentry/internal/testserver"
)

// The model playground: experiments are the account's own. A's experiment
// is stored pending, without a job, so it is still there to be cancelled
// or deleted when B tries.

func pgExperimentOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	x, err := c.S.Playground.StorePending(context.Background(), playground.Experiment{AccountID: c.A.AccountID, Prompt: "A's secret prompt",
		ModelIDs: []string{"agentry_offline"}, EvaluationMode: "manual", EvaluationComplexity: "medium"})
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"experiment_id": x.ID}
}

// pgIntact expects A's experiment to be visible to A and still pending.
func pgIntact(t testing.TB, c *Ctx) {
	t.Helper()
	x, err := c.S.Playground.Get(context.Background(), c.A.AccountID, c.Vars["experiment_id"])
	if err != nil || x.Status != playground.StatusPending || x.CancelRequested {
		t.Errorf("A's experiment after B's attempt: %+v %v", x, err)
	}
}

func pgNotFoundIntact(t testing.TB, c *Ctx, r testserver.Response) {
	t.Helper()
	NotFound()(t, c, r)
	pgIntact(t, c)
}

func init() {
	register(
		Case{Op: "GET /models/playground/experiments", Name: "B lists experiments", Setup: pgExperimentOfA,
			Expect: EmptyList("experiments"), Control: NonEmptyList("experiments")},
		Case{Op: "GET /models/playground/experiments/{experiment_id}", Name: "B reads A's experiment", Setup: pgExperimentOfA,
			Expect: NotFound()},
		Case{Op: "POST /models/playground/experiments/{experiment_id}/cancel", Name: "B cancels A's experiment", Setup: pgExperimentOfA,
			Expect: pgNotFoundIntact},
		Case{Op: "DELETE /models/playground/experiments/{experiment_id}", Name: "B deletes A's experiment", Setup: pgExperimentOfA,
			Expect: pgNotFoundIntact, Control: Status(http.StatusNoContent)},
		Case{Op: "POST /models/playground/experiments", Name: "B's experiment is B's", Setup: pgExperimentOfA,
			Body: map[string]any{"prompt": "B's prompt", "model_ids": []string{"agentry_offline"}},
			Expect: Status(http.StatusOK, func(t testing.TB, c *Ctx, r testserver.Response) {
				t.Helper()
				var created struct {
					ID string `json:"experiment_id"`
				}
				r.JSON(t, &created)
				ctx := context.Background()
				if _, err := c.S.Playground.Get(ctx, c.B.AccountID, created.ID); err != nil {
					t.Errorf("B's experiment is not in B's account: %v", err)
				}
				if _, err := c.S.Playground.Get(ctx, c.A.AccountID, created.ID); err == nil {
					t.Error("B's experiment landed in A's account")
				}
				pgIntact(t, c)
			})},
	)
}
