package realclient_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestPlaygroundClient(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		fakes, models := playgroundtest.Start(t)
		// A terser answer than the offline model's, so the evaluator can
		// tell them apart (a tie names no best model).
		fakes.OpenAI.SetDefault(fakellm.Reply{Text: "It is Paris.", Usage: fakellm.Usage{Input: 20, Output: 8}})
		ts := testserver.Start(t, d, models)
		if _, err := billing.NewCredits(ts.DB).Grant(ctx, ts.AccountID, 100_000, "test", "grant"); err != nil {
			t.Fatal(err)
		}
		c := newRunClient(t, ts)

		created, err := c.CreateExperiment(ctx, client.PlaygroundCreateRequest{Prompt: "What is the capital of France?",
			SystemPrompt: "Paris is the capital of France.", ModelIDs: []string{"agentry_offline", "openai_gpt_4o_mini"},
			EvaluationMode: "prompt", EvaluatorModelID: "agentry_offline", EvaluationComplexity: "medium"})
		if err != nil || created.Status != client.ExperimentPending {
			t.Fatalf("create: %+v %v", created, err)
		}
		e, err := c.WaitExperiment(ctx, created.ExperimentID, 30*time.Millisecond, 30*time.Second)
		if err != nil || e.Status != client.ExperimentCompleted || *e.ProgressCurrent != 4 {
			t.Fatalf("wait: %+v %v", e, err)
		}
		res, err := e.Results()
		if err != nil || len(res.Models) != 2 || res.Evaluation == nil || res.Evaluation.BestModelID == nil || res.Totals.Calls != 4 {
			t.Fatalf("results: %+v %v", res, err)
		}
		for _, m := range res.Models {
			if m.Status != "completed" || m.Output == nil || m.Evaluation == nil || m.Evaluation.Score == nil || len(m.Evaluation.Criteria) != 2 {
				t.Errorf("%s: %+v", m.ModelID, m)
			}
		}
		if _, err := c.CancelExperiment(ctx, e.ID); !errors.Is(err, client.ErrConflict) {
			t.Errorf("cancel a finished experiment: %v", err)
		}

		// A stalled model is cancelled mid-call.
		fakes.OpenAI.Enqueue(fakellm.Reply{Text: "late", Delay: time.Minute})
		slow, err := c.CreateExperiment(ctx, client.PlaygroundCreateRequest{Prompt: "p", ModelIDs: []string{"openai_gpt_4o_mini"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.Poll(ctx, client.PollOptions{Interval: 20 * time.Millisecond, Timeout: 20 * time.Second},
			func(ctx context.Context) (*client.Experiment, error) { return c.GetExperiment(ctx, slow.ExperimentID) },
			func(x *client.Experiment) bool {
				return x.Status == client.ExperimentRunning && len(fakes.OpenAI.Requests()) == 2
			}); err != nil {
			t.Fatal(err)
		}
		if st, err := c.CancelExperiment(ctx, slow.ExperimentID); err != nil || st != client.ExperimentCanceled {
			t.Fatalf("cancel: %q %v", st, err)
		}
		x, err := c.GetExperiment(ctx, slow.ExperimentID)
		if err != nil || x.Status != client.ExperimentCanceled {
			t.Errorf("after cancel: %+v %v", x, err)
		}

		// Lists, paged over in both versions.
		for _, v := range []string{client.DefaultVersion, client.LatestVersion} {
			var ids []string
			for s, err := range c.Experiments(ctx, client.ExperimentListOptions{Days: 1, Limit: 1}, client.WithRequestVersion(v)) {
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, s.ID)
			}
			if len(ids) != 2 || ids[0] != slow.ExperimentID {
				t.Errorf("%s: %v", v, ids)
			}
		}
		today := time.Now().UTC().Format(time.DateOnly)
		p, err := c.ListExperiments(ctx, client.ExperimentListOptions{StartDate: today, EndDate: today, Offset: 1})
		if err != nil || p.Total != 2 || len(p.Items) != 1 || p.Items[0].ID != e.ID || len(p.Items[0].SelectedModelIDs) != 2 {
			t.Fatalf("ListExperiments: %+v %v", p, err)
		}

		// Delete, then it is gone.
		if err := c.DeleteExperiment(ctx, e.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetExperiment(ctx, e.ID); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("get after delete: %v", err)
		}

		// Refusals, typed.
		_, err = c.CreateExperiment(ctx, client.PlaygroundCreateRequest{Prompt: "p", ModelIDs: []string{"no_such_model"}})
		var ve *client.ValidationError
		if !errors.As(err, &ve) || ve.Items[0].Field() != "body.model_ids.0" {
			t.Errorf("unknown model: %v", err)
		}
		broke := ts.NewTenant(t, "broke")
		if _, err := billing.NewCredits(ts.DB).Debit(ctx, broke.AccountID, 1000, "test", "drain"); err != nil {
			t.Fatal(err)
		}
		bc := newRunClient(t, ts, client.WithAPIKey(broke.Key))
		_, err = bc.CreateExperiment(ctx, client.PlaygroundCreateRequest{Prompt: "p", ModelIDs: []string{"agentry_offline"}})
		var pay *client.InsufficientCreditsError
		if !errors.As(err, &pay) || pay.AccountID != broke.AccountID {
			t.Errorf("402: %v", err)
		}
		if _, err := bc.GetExperiment(ctx, slow.ExperimentID); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("another account's experiment: %v", err)
		}
	})
}
