package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// GET /agents/{agent_id}/evaluation-results/daily adds an agent's results
// up per UTC day of the window, with each day's pass rate.
func TestEvaluationDaily(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s := testserver.Start(t, d)
		agent := s.StoreAgent(t, s.AccountID, "judged", `{"child_steps":[{"id":"t","step_type":"text","text":"a"}]}`, "dynamic_input")
		crit, err := s.S.Evals.StoreCriterion(ctx, evals.EvaluationCriterion{AccountID: s.AccountID, AgentID: agent, StepID: "t",
			EvaluationMode: "manual", Enabled: true, PassThreshold: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		run := startRun(t, s, s.Key, agent, "x")
		today := time.Now().UTC().Truncate(24 * time.Hour)
		for _, r := range []struct {
			daysAgo int
			status  string
		}{{0, "passed"}, {0, "failed"}, {0, "passed"}, {0, "skipped"}, {3, "failed"}, {6, "passed"}, {7, "passed"}, {40, "passed"}} {
			if _, err := s.S.Evals.StoreResult(ctx, evals.EvaluationResult{AccountID: s.AccountID, AgentID: agent, CriteriaID: crit.ID,
				AgentRunID: run, EvaluationMode: "manual", Status: r.status, EvaluatedAt: today.AddDate(0, 0, -r.daysAgo).Add(time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
		var out api.EvaluationDailyResponse
		r := s.Do(t, "GET", "/agents/"+agent+"/evaluation-results/daily?days=7", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &out)
		day := func(n int) string { return today.AddDate(0, 0, -n).Format(time.DateOnly) }
		if out.AgentID != agent || out.From != day(6) || out.To != day(0) || len(out.Days) != 3 {
			t.Fatalf("window: %+v", out)
		}
		if d := out.Days[0]; d.Date != day(6) || d.Total != 1 || d.Passed != 1 || d.PassRate == nil || *d.PassRate != 1 {
			t.Errorf("6 days ago: %+v", d)
		}
		if d := out.Days[1]; d.Date != day(3) || d.Failed != 1 || d.PassRate == nil || *d.PassRate != 0 {
			t.Errorf("3 days ago: %+v", d)
		}
		if d := out.Days[2]; d.Date != day(0) || d.Total != 4 || d.Passed != 2 || d.Skipped != 1 || d.PassRate == nil || *d.PassRate != 2.0/3 {
			t.Errorf("today: %+v", d)
		}
		// 30 days unless given; a day of skipped results alone has no rate.
		if _, err := s.S.Evals.StoreResult(ctx, evals.EvaluationResult{AccountID: s.AccountID, AgentID: agent, CriteriaID: crit.ID,
			AgentRunID: run, EvaluationMode: "manual", Status: "skipped", EvaluatedAt: today.AddDate(0, 0, -20)}); err != nil {
			t.Fatal(err)
		}
		r = s.Do(t, "GET", "/agents/"+agent+"/evaluation-results/daily", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &out)
		if len(out.Days) != 5 || out.From != day(29) || out.Days[0].Date != day(20) || out.Days[0].PassRate != nil {
			t.Errorf("30 days: %+v", out)
		}
		wantLoc(t, s.Do(t, "GET", "/agents/"+agent+"/evaluation-results/daily?days=366", s.Key, nil), "", "query", "days")
		wantLoc(t, s.Do(t, "GET", "/agents/"+agent+"/evaluation-results/daily?days=0", s.Key, nil), "", "query", "days")
		wantStatus(t, s.Do(t, "GET", "/agents/"+store.NewID()+"/evaluation-results/daily", s.Key, nil), http.StatusNotFound)
		wantLoc(t, s.Do(t, "GET", "/agents/not-a-uuid/evaluation-results/daily", s.Key, nil), "", "path", "agent_id")
	})
}
