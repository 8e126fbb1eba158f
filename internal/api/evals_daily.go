package api

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/fault"
)

// The daily pass rates of an agent's evaluation results, an extension:
// what a chart of the pass rate over time needs, added up by the database,
// instead of pages of results.

const evaluationDailyDoc = "An agent's evaluation results added up per UTC day of their evaluation (evaluated_at) over the last `days` " +
	"days (30 unless given, at most 365; today is the last): the count of each outcome, the flagged ones, and the pass rate " +
	"(passed / (total - skipped - pending), null when none was judged). Days without results are left out; the oldest day comes first."

type evaluationDailyInput struct {
	AgentPathParam
	Days int `query:"days" default:"30" minimum:"1" maximum:"365" doc:"How many days back, today included."`
}

// EvaluationDayResponse is one day of GET /agents/{agent_id}/evaluation-results/daily.
type EvaluationDayResponse struct {
	Date     string   `json:"date" doc:"The UTC day, YYYY-MM-DD."`
	Total    int      `json:"total"`
	Passed   int      `json:"passed"`
	Failed   int      `json:"failed"`
	Error    int      `json:"error"`
	Skipped  int      `json:"skipped"`
	Pending  int      `json:"pending"`
	Flagged  int      `json:"flagged"`
	PassRate *float64 `json:"pass_rate" doc:"passed / (total - skipped - pending); null when no result of the day was judged."`
}

// EvaluationDailyResponse is an agent's results per day.
type EvaluationDailyResponse struct {
	AgentID string                  `json:"agent_id"`
	From    string                  `json:"from" doc:"The first UTC day of the window, YYYY-MM-DD."`
	To      string                  `json:"to" doc:"The last UTC day of the window (today), YYYY-MM-DD."`
	Days    []EvaluationDayResponse `json:"days"`
}

type evaluationDailyOutput struct{ Body EvaluationDailyResponse }

func (s *Server) getEvaluationDaily(ctx context.Context, in *evaluationDailyInput) (*evaluationDailyOutput, error) {
	now := time.Now().UTC()
	days, err := s.deps.Evals.DailyResults(ctx, principal(ctx).AccountID, in.AgentID, in.Days, now)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	out := EvaluationDailyResponse{AgentID: in.AgentID, From: now.AddDate(0, 0, 1-in.Days).Format(time.DateOnly),
		To: now.Format(time.DateOnly), Days: make([]EvaluationDayResponse, len(days))}
	for i, d := range days {
		day := EvaluationDayResponse{Date: d.Date, Total: d.Total, Passed: d.Passed, Failed: d.Failed, Error: d.Error,
			Skipped: d.Skipped, Pending: d.Pending, Flagged: d.Flagged}
		if judged := d.Total - d.Skipped - d.Pending; judged > 0 {
			r := float64(d.Passed) / float64(judged)
			day.PassRate = &r
		}
		out.Days[i] = day
	}
	return &evaluationDailyOutput{Body: out}, nil
}
