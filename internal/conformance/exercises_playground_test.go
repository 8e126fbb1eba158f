package conformance

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/playground"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/version"
)

// The model playground. Experiments that must still be pending when the
// request arrives (cancel, delete) are stored directly, without a job, so
// the offline model cannot finish them first.

const pgPath = "/models/playground/experiments"

// pgPending stores a pending experiment of the exercise's account.
func pgPending(t *testing.T, e *Env) Vars {
	x, err := e.S.Playground.StorePending(context.Background(), playground.Experiment{AccountID: e.Tenant.AccountID, Prompt: "Name a colour.",
		ModelIDs: []string{"agentry_offline"}, EvaluationMode: "manual", EvaluationComplexity: "medium"})
	if err != nil {
		t.Fatal(err)
	}
	return Vars{"experiment_id": x.ID}
}

// pgRun creates an experiment over the API and waits for it to finish.
func pgRun(t *testing.T, e *Env) Vars {
	r := e.Do(t, http.MethodPost, pgPath, map[string]any{"prompt": "Summarize: the sky is blue. The grass is green.",
		"model_ids": []string{"agentry_offline"}, "evaluation_mode": "prompt", "evaluator_model_id": "agentry_offline"})
	var c struct {
		ID string `json:"experiment_id"`
	}
	r.JSON(t, &c)
	if r.Status != http.StatusOK {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		var x struct{ Status string }
		e.Do(t, http.MethodGet, pgPath+"/"+c.ID, nil).JSON(t, &x)
		if playground.Terminal(x.Status) {
			return Vars{"experiment_id": c.ID}
		}
		if time.Now().After(deadline) {
			t.Fatalf("experiment still %s", x.Status)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

func pgStatus(want string) func(t *testing.T, e *Env, r testserver.Response) {
	return func(t *testing.T, e *Env, _ testserver.Response) {
		var x struct{ Status string }
		e.Do(t, http.MethodGet, pgPath+"/"+e.Vars["experiment_id"], nil).JSON(t, &x)
		if x.Status != want {
			t.Errorf("status %q, want %q", x.Status, want)
		}
	}
}

func pgTotal(n int) func(t *testing.T, e *Env, r testserver.Response) {
	return func(t *testing.T, _ *Env, r testserver.Response) {
		var l struct{ Total int }
		r.JSON(t, &l)
		if l.Total != n {
			t.Errorf("total %d, want %d", l.Total, n)
		}
	}
}

func init() {
	strict := []string{version.Header + ": " + version.StrictEnvelope}
	unknown := pgPath + "/0190a3b4-0000-7000-8000-000000000000"
	register(
		Exercise{Op: "POST /models/playground/experiments", Name: "one model, manual", Status: http.StatusOK,
			Body: map[string]any{"prompt": "What colour is the sky?", "model_ids": []string{"agentry_offline"}}},
		Exercise{Op: "POST /models/playground/experiments", Name: "every field", Status: http.StatusOK,
			Body: map[string]any{"prompt": "What colour is the sky?", "system_prompt": "The sky is blue.", "model_ids": []string{"agentry_offline"},
				"evaluation_mode": "prompt", "evaluation_complexity": "simple", "evaluator_model_id": "agentry_offline",
				"include_step_output_in_evaluation": true, "selected_step_output": "Blue.",
				"json_template": `{"messages": [{"role": "user", "content": "{{prompt}}"}]}`}},
		Exercise{Op: "POST /models/playground/experiments", Name: "unknown model", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"prompt": "p", "model_ids": []string{"no_such_model"}}, Check: expectLoc("body", "model_ids", 0.0)},
		Exercise{Op: "POST /models/playground/experiments", Name: "no models", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"prompt": "p", "model_ids": []string{}}},
		Exercise{Op: "POST /models/playground/experiments", Name: "no prompt", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"model_ids": []string{"agentry_offline"}}, Check: expectLoc("body", "prompt")},
		Exercise{Op: "POST /models/playground/experiments", Name: "account cannot pay", Status: http.StatusPaymentRequired,
			Setup: func(t *testing.T, e *Env) Vars {
				bal, _ := billing.NewCredits(e.DB).Balance(context.Background(), e.Tenant.AccountID)
				if _, err := billing.NewCredits(e.DB).Debit(context.Background(), e.Tenant.AccountID, bal, "conformance", "drain"); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			Body: map[string]any{"prompt": "p", "model_ids": []string{"agentry_offline"}}},

		Exercise{Op: "GET /models/playground/experiments", Name: "empty", Status: http.StatusOK, Check: pgTotal(0)},
		Exercise{Op: "GET /models/playground/experiments", Name: "window and page", Setup: pgRun,
			Path: pgPath + "?days=7&limit=5&offset=0", Status: http.StatusOK, Check: pgTotal(1)},
		Exercise{Op: "GET /models/playground/experiments", Name: "explicit dates", Setup: pgPending,
			Path:   pgPath + "?start_date=" + time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly) + "&end_date=" + time.Now().UTC().Format(time.DateOnly),
			Status: http.StatusOK, Check: pgTotal(1)},
		Exercise{Op: "GET /models/playground/experiments", Name: "strict envelope", Setup: pgPending, Headers: strict, Status: http.StatusOK,
			Schema: Envelope("ExperimentSummaryResponse")},
		Exercise{Op: "GET /models/playground/experiments", Name: "days out of range", Path: pgPath + "?days=731",
			Status: http.StatusUnprocessableEntity, Check: expectLoc("query", "days")},
		Exercise{Op: "GET /models/playground/experiments", Name: "not a date", Path: pgPath + "?start_date=last-week",
			Status: http.StatusUnprocessableEntity, Check: expectLoc("query", "start_date")},

		Exercise{Op: "GET /models/playground/experiments/{experiment_id}", Name: "finished, with results", Setup: pgRun, Status: http.StatusOK,
			Check: pgStatus("completed")},
		Exercise{Op: "GET /models/playground/experiments/{experiment_id}", Name: "pending", Setup: pgPending, Status: http.StatusOK},
		Exercise{Op: "GET /models/playground/experiments/{experiment_id}", Name: "unknown", Path: unknown, Status: http.StatusNotFound},
		Exercise{Op: "GET /models/playground/experiments/{experiment_id}", Name: "malformed id", Path: pgPath + "/x",
			Status: http.StatusUnprocessableEntity, Check: expectLoc("path", "experiment_id")},

		Exercise{Op: "POST /models/playground/experiments/{experiment_id}/cancel", Name: "pending", Setup: pgPending, Status: http.StatusOK,
			Check: pgStatus("canceled")},
		Exercise{Op: "POST /models/playground/experiments/{experiment_id}/cancel", Name: "already finished", Setup: pgRun, Status: http.StatusConflict,
			Check: pgStatus("completed")},
		Exercise{Op: "POST /models/playground/experiments/{experiment_id}/cancel", Name: "unknown", Path: unknown + "/cancel", Status: http.StatusNotFound},
		Exercise{Op: "POST /models/playground/experiments/{experiment_id}/cancel", Name: "malformed id", Path: pgPath + "/x/cancel",
			Status: http.StatusUnprocessableEntity, Check: expectLoc("path", "experiment_id")},

		Exercise{Op: "DELETE /models/playground/experiments/{experiment_id}", Name: "soft delete", Setup: pgPending, Status: http.StatusNoContent,
			Check: func(t *testing.T, e *Env, _ testserver.Response) {
				if r := e.Do(t, http.MethodGet, pgPath+"/"+e.Vars["experiment_id"], nil); r.Status != http.StatusNotFound {
					t.Errorf("get after delete: %d", r.Status)
				}
			}},
		Exercise{Op: "DELETE /models/playground/experiments/{experiment_id}", Name: "unknown", Path: unknown, Status: http.StatusNotFound},
		Exercise{Op: "DELETE /models/playground/experiments/{experiment_id}", Name: "malformed id", Path: pgPath + "/x",
			Status: http.StatusUnprocessableEntity, Check: expectLoc("path", "experiment_id")},
	)
}
