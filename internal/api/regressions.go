package api

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/regressions"
)

// Regression runs, an extension (docs/regressions.md): recorded runs of an
// agent replayed on a version of its workflow in the background, judged
// with the agent's evaluation criteria and compared with the originals.

// CreateRegressionRequest is the body of POST /agents/{agent_id}/regressions.
type CreateRegressionRequest struct {
	ChangeID *string  `json:"change_id,omitempty" required:"false" nullable:"true" maxLength:"64" doc:"The version of the workflow to replay the runs on (a change_id from GET /agents/{agent_id}/versions); the current one by default."`
	LastRuns *int     `json:"last_runs,omitempty" required:"false" nullable:"true" doc:"Replay the agent's last N finished (completed or failed) runs, 1 to 100. Give this or run_ids."`
	RunIDs   []string `json:"run_ids,omitempty" required:"false" nullable:"true" maxItems:"100" doc:"Replay these finished runs of the agent (1 to 100). Give this or last_runs."`
}

// RegressionProgress is how far a regression has got.
type RegressionProgress struct {
	Total    int     `json:"total" doc:"The recorded runs it replays."`
	Started  int     `json:"started" doc:"Replays started."`
	Finished int     `json:"finished" doc:"Replays ended, judged and compared."`
	Percent  float64 `json:"percent" doc:"finished over total, in percent."`
}

// RegressionSummary is what a regression found so far.
type RegressionSummary struct {
	PassRateBefore *float64 `json:"pass_rate_before" doc:"Share of the judged runs whose original passed (completed, and no criterion failed); null before any is judged."`
	PassRateAfter  *float64 `json:"pass_rate_after" doc:"Share of the judged runs whose replay passed."`
	PassedBefore   int      `json:"passed_before"`
	PassedAfter    int      `json:"passed_after"`
	Unchanged      int      `json:"unchanged" doc:"Replays with the original's status and exactly its output."`
	Changed        int      `json:"changed"`
	CreditsSpent   float64  `json:"credits_spent" doc:"What the replays and their judging cost so far."`
}

// RegressionRunResponse is one recorded run, its replay and the comparison.
type RegressionRunResponse struct {
	SourceRunID    string          `json:"source_run_id"`
	ReplayRunID    *string         `json:"replay_run_id" doc:"The replay, a run of the agent marked with regression_id; null until started."`
	Status         string          `json:"status" enum:"pending,replaying,done,cancelled"`
	Outcome        *string         `json:"outcome" enum:"unchanged,changed" doc:"Once done: unchanged when the replay ended as the original with exactly its output."`
	Similarity     *float64        `json:"similarity" doc:"How alike the outputs are, 0 to 1 (1 minus the edit distance over the longer length; word-set Jaccard index beyond 4000 characters)."`
	SourceStatus   string          `json:"source_status"`
	ReplayStatus   *string         `json:"replay_status"`
	SourcePassed   *bool           `json:"source_passed"`
	ReplayPassed   *bool           `json:"replay_passed"`
	SourceOutput   *string         `json:"source_output" doc:"The original's output, for a changed output only."`
	ReplayOutput   *string         `json:"replay_output" doc:"The replay's output, for a changed output only."`
	SourceVerdicts []evals.Verdict `json:"source_evaluations" doc:"Each enabled criterion's verdict on the original."`
	ReplayVerdicts []evals.Verdict `json:"replay_evaluations" doc:"Each enabled criterion's verdict on the replay."`
	CreditsSpent   float64         `json:"credits_spent" doc:"The replay's credits and its judging's."`
}

// RegressionResponse is a regression.
type RegressionResponse struct {
	RegressionID     string                  `json:"regression_id"`
	AgentID          string                  `json:"agent_id"`
	ChangeID         string                  `json:"change_id" doc:"The version the runs are replayed on."`
	Status           string                  `json:"status" enum:"queued,running,completed,cancelled"`
	Selection        string                  `json:"selection" enum:"last_runs,run_ids"`
	EstimatedCredits float64                 `json:"estimated_credits" doc:"The up-front estimate: what the recorded runs cost."`
	CancelRequested  bool                    `json:"cancel_requested"`
	CreatedAt        time.Time               `json:"created_at"`
	StartedAt        *time.Time              `json:"started_at"`
	EndedAt          *time.Time              `json:"ended_at"`
	Progress         RegressionProgress      `json:"progress"`
	Report           RegressionSummary       `json:"report"`
	Runs             []RegressionRunResponse `json:"runs,omitempty" doc:"Every recorded run in order (when reading one regression)."`
}

type createRegressionInput struct {
	AgentID string `path:"agent_id" format:"uuid"`
	Body    CreateRegressionRequest
}

type regressionInput struct {
	AgentID      string `path:"agent_id" format:"uuid"`
	RegressionID string `path:"regression_id" format:"uuid"`
}

type listRegressionsInput struct {
	AgentID string `path:"agent_id" format:"uuid"`
	Page    int    `query:"page" default:"1" minimum:"1" maximum:"1000000"`
	Limit   int    `query:"limit" default:"20" minimum:"1" maximum:"100"`
}

type regressionOutput struct{ Body RegressionResponse }

type listRegressionsOutput struct{ Body any }

// Descriptions of the regression operations (routes in api.go).
const (
	createRegressionDoc = "Replays recorded runs of the agent (its last_runs finished runs, or the run_ids named) on a version of its workflow (change_id, the current one by default) in the background: each replay's output is judged with the agent's enabled evaluation criteria, as is the original's, and compared with it. " +
		"Replays are runs marked with the regression: they raise no alert, send no e-mail, and are left out of run lists and summaries. Answers the regression (202, status queued). " +
		"402 when the account's balance does not cover the estimate (what the recorded runs cost); 409 when the agent is paused; 422 for a bad selection or an unknown change_id."
	getRegressionDoc    = "A regression with its progress and report: pass rates before and after, unchanged and changed outputs, credits spent, and every recorded run with its replay (changed outputs side by side)."
	listRegressionsDoc  = "An agent's regressions, newest first, with their progress and report (without the runs)."
	cancelRegressionDoc = "Stops a regression: no more replays start, those running are cancelled, and it ends cancelled keeping what it judged. 409 when it has ended."
)

func (s *Server) regressions() *regressions.Service { return s.deps.Regressions }

func (s *Server) createRegression(ctx context.Context, in *createRegressionInput) (*regressionOutput, error) {
	b := in.Body
	accountID := principal(ctx).AccountID
	reg, err := s.regressions().Start(ctx, accountID, in.AgentID,
		regressions.Request{ChangeID: deref(b.ChangeID), LastRuns: b.LastRuns, RunIDs: b.RunIDs})
	if err != nil {
		return nil, fault.Name(err, "Regression")
	}
	rep, err := s.regressions().Get(ctx, accountID, in.AgentID, reg.ID)
	if err != nil {
		return nil, fault.Name(err, "Regression")
	}
	return &regressionOutput{Body: regressionResponse(rep)}, nil
}

func (s *Server) getRegression(ctx context.Context, in *regressionInput) (*regressionOutput, error) {
	rep, err := s.regressions().Get(ctx, principal(ctx).AccountID, in.AgentID, in.RegressionID)
	if err != nil {
		return nil, fault.Name(err, "Regression")
	}
	return &regressionOutput{Body: regressionResponse(rep)}, nil
}

func (s *Server) cancelRegression(ctx context.Context, in *regressionInput) (*regressionOutput, error) {
	rep, err := s.regressions().Cancel(ctx, principal(ctx).AccountID, in.AgentID, in.RegressionID)
	if err != nil {
		return nil, fault.Name(err, "Regression")
	}
	return &regressionOutput{Body: regressionResponse(rep)}, nil
}

func (s *Server) listRegressions(ctx context.Context, in *listRegressionsInput) (*listRegressionsOutput, error) {
	reps, total, err := s.regressions().List(ctx, principal(ctx).AccountID, in.AgentID, in.Page, in.Limit)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	items := make([]RegressionResponse, len(reps))
	for i, r := range reps {
		items[i] = regressionResponse(r)
	}
	envelope := func(items []RegressionResponse, p Pagination) any {
		return Envelope[RegressionResponse]{Data: items, Pagination: p}
	}
	return &listRegressionsOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), envelope)}, nil
}

func regressionResponse(r regressions.Report) RegressionResponse {
	out := RegressionResponse{RegressionID: r.ID, AgentID: r.AgentID, ChangeID: r.ChangeID, Status: r.Status,
		Selection: r.Selection, EstimatedCredits: r.Estimate, CancelRequested: r.CancelRequested, CreatedAt: r.CreatedAt,
		StartedAt: r.StartedAt, EndedAt: r.EndedAt,
		Progress: RegressionProgress{Total: r.Total, Started: r.Started, Finished: r.Finished},
		Report: RegressionSummary{PassRateBefore: r.PassRate(r.PassedBefore), PassRateAfter: r.PassRate(r.PassedAfter),
			PassedBefore: r.PassedBefore, PassedAfter: r.PassedAfter, Unchanged: r.Unchanged, Changed: r.Changed,
			CreditsSpent: r.CreditsSpent}}
	if r.Total > 0 {
		out.Progress.Percent = float64(int(float64(r.Finished)*1000/float64(r.Total))) / 10
	}
	for _, it := range r.Items {
		v := RegressionRunResponse{SourceRunID: it.SourceRunID, Status: it.Status, Similarity: it.Similarity,
			SourceStatus: it.SourceStatus, SourcePassed: it.SourcePassed, ReplayPassed: it.ReplayPassed,
			SourceOutput: it.SourceOutput, ReplayOutput: it.ReplayOutput, SourceVerdicts: orEmpty(it.SourceVerdicts),
			ReplayVerdicts: orEmpty(it.ReplayVerdicts), CreditsSpent: regressions.Credits(it.ReplayCredits + it.JudgeCredits)}
		if it.ReplayRunID != "" {
			id, st := it.ReplayRunID, it.ReplayStatus
			v.ReplayRunID, v.ReplayStatus = &id, &st
		}
		if it.Outcome != "" {
			o := it.Outcome
			v.Outcome = &o
		}
		out.Runs = append(out.Runs, v)
	}
	return out
}

func orEmpty(v []evals.Verdict) []evals.Verdict {
	if v == nil {
		return []evals.Verdict{}
	}
	return v
}
