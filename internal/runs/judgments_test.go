package runs_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// TestJudgmentsOfACrashedAttemptAreRecorded: an attempt that journaled a
// judged step and then died (no end, no mark) loses nothing. The attempt
// that takes the run back does not judge the step again (it is
// completed), yet marks the run as it ends, so the judgment the dead
// attempt journaled becomes a result.
func TestJudgmentsOfACrashedAttemptAreRecorded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		def, _, err := definition.ParseDefinition([]byte(`{"child_steps":[{"id":"ask","step_type":"prompt_call","model":"agentry_offline",
			"prompt_template":"{{input}}","child_steps":[{"id":"show","step_type":"display_result"}]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		// An API-only server: no worker takes the run but the one below.
		api := testserver.Start(t, d, func(c *server.Config) { c.Role = server.RoleAPI })
		agent := storeAgent(t, api, def, definition.TriggerDynamicInput)
		c, err := api.S.Evals.StoreCriterion(ctx, evals.EvaluationCriterion{AccountID: api.AccountID, AgentID: agent, StepID: "ask",
			EvaluationMode: "eval_and_retry", Enabled: true, PassThreshold: 1})
		if err != nil {
			t.Fatal(err)
		}
		in := "what time is it"
		r, err := runs.NewRepo(api.DB, nil).CreateRun(ctx, runs.Run{AccountID: api.AccountID, AgentID: agent, Input: &in})
		if err != nil {
			t.Fatal(err)
		}

		// Attempt 1 journals the judged model step, then dies.
		if n, err := runs.NewRepo(api.DB, nil).StartRunAttempt(ctx, r.ID); err != nil || n != 1 {
			t.Fatalf("attempt %d, %v", n, err)
		}
		judgment := evals.StepJudgment{ID: store.NewID(), CriteriaID: c.ID, EvaluationMode: "eval_and_retry", Status: "passed",
			Details: json.RawMessage(`{"checks":[],"explanation":"fine","pass_threshold":1}`), EvaluatedAt: store.Now()}
		judged, _ := json.Marshal([]evals.StepJudgment{judgment})
		j := runs.NewJournal(api.S.Runs, r)
		rec := engine.StepRecord{ID: store.NewID(), Key: "ask", StepID: "ask", StepType: "prompt_call", Status: engine.StatusProcessing,
			Input: in, Attempt: 1, StartedAt: time.Now()}
		if err := j.StepStarted(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Status, rec.Output, rec.EndedAt, rec.Judgments = engine.StatusCompleted, "noon", time.Now(), judged
		if err := j.StepFinished(ctx, rec); err != nil {
			t.Fatal(err)
		}

		// Its job is retried: attempt 2 takes the run back and ends it.
		w := &runs.Worker{S: api.S.Runs, CancelPoll: time.Second}
		if err := w.Work(ctx, &river.Job[runs.RunArgs]{JobRow: &rivertype.JobRow{Attempt: 2}, Args: runs.RunArgs{RunID: r.ID}}); err != nil {
			t.Fatal(err)
		}
		if got, _ := runs.NewRepo(api.DB, nil).Run(ctx, api.AccountID, r.ID); got.Status != runs.RunCompleted {
			t.Fatalf("the recovered run is %s", got.Status)
		}
		rs, total, err := api.S.Evals.AgentResults(ctx, evals.ResultFilter{AccountID: api.AccountID, AgentID: agent, Limit: -1})
		if err != nil {
			t.Fatal(err)
		}
		if total != 1 || rs[0].ID != judgment.ID || rs[0].AgentRunID != r.ID || rs[0].AgentStepRunID != rec.ID || rs[0].StepID != "ask" {
			t.Fatalf("results after recovery: %d %+v", total, rs)
		}
	})
}
