package api

import (
	"context"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/runs"
)

// Reruns, an extension (docs/versions.md#reruns): a new run from any step
// of a finished run, reusing the recorded outputs of the steps before it.

// RerunRequest is the body of POST /agents/runs/{run_id}/rerun.
type RerunRequest struct {
	FromStep string  `json:"from_step" minLength:"1" maxLength:"1000" doc:"The step key to run again from: a step's agent_step_id in the run's steps (qualified by its item inside for_each bodies)."`
	Input    *string `json:"input,omitempty" required:"false" nullable:"true" doc:"The input from_step receives instead of the one recorded; the run's own input is unchanged."`
	ChangeID *string `json:"change_id,omitempty" required:"false" nullable:"true" maxLength:"64" doc:"The version of the workflow to run (a change_id from GET /agents/{agent_id}/versions); the original run's by default."`
}

type rerunInput struct {
	RunID string `path:"run_id" format:"uuid"`
	Body  RerunRequest
}

// rerunDoc describes the operation (route in api.go).
const rerunDoc = "Starts a new run from a step of a finished (completed, failed or cancelled) run. The steps the original run completed before from_step started keep their recorded outputs (copied into the new run, marked reused, not executed nor billed again); from_step and everything after it run again, on the original run's version of the workflow unless change_id names another, and with input replacing from_step's recorded input when given. " +
	"Answers the new run's first snapshot (202, status pending), whose rerun_of names the original; the original's snapshot lists its reruns. " +
	"409 when the run has not finished or the agent is paused; 422 when from_step did not run in that run or the chosen version has no such step, or change_id is no version of the agent."

func (s *Server) rerunRun(ctx context.Context, in *rerunInput) (*runOutput, error) {
	b := in.Body
	r, err := s.deps.Runs.Rerun(ctx, principal(ctx).AccountID, in.RunID, runs.RerunRequest{FromStep: b.FromStep, Input: b.Input,
		ChangeID: deref(b.ChangeID)})
	if err != nil {
		return nil, fault.Name(err, "Resource")
	}
	return &runOutput{Body: s.deps.Runs.Started(r)}, nil
}
