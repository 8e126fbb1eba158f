package runs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/fault"
)

// Reruns (an extension): a new run from any step of a finished run. The
// steps the original run completed before that step started keep their
// recorded outputs: they are copied into the new run's journal, so the
// engine resumes past them exactly as it resumes a run after a crash (not
// executed, not billed again); the step and everything after it run again,
// optionally on another version of the workflow or with another input for
// that step. Copying them in the transaction that records the run makes a
// rerun as durable as any run: a crash at any point resumes it from its
// journal.

// RerunRequest asks for a rerun.
type RerunRequest struct {
	FromStep string  // the step key to run again from
	Input    *string // the input that step receives instead of the recorded one
	ChangeID string  // the workflow version to run ("": the original run's)
}

// FieldError refuses one field of a request (422 at ["body", Field]).
type FieldError struct{ Field, Msg string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// As reads the refusal as the fault vocabulary's Invalid.
func (e *FieldError) As(target any) bool {
	t, ok := target.(**fault.Invalid)
	if ok {
		*t = fault.InvalidField(e.Field, e.Msg).Because(e)
	}
	return ok
}

// ErrNotFinished: only a finished run (completed, failed or cancelled) is
// rerun (409).
var ErrNotFinished error = &fault.Conflict{Err: errors.New("the run has not finished: only a completed, failed or cancelled run can be rerun")}

// Rerun starts a new run from step FromStep of a finished run.
func (s *Service) Rerun(ctx context.Context, accountID, runID string, req RerunRequest) (Run, error) {
	src, err := s.Repo.Run(ctx, accountID, runID)
	if err != nil {
		return Run{}, err
	}
	if !RunTerminal(src.Status) {
		return Run{}, ErrNotFinished
	}
	steps, err := s.Repo.Steps(ctx, src.ID)
	if err != nil {
		return Run{}, err
	}
	from, ok := firstAttempt(steps, req.FromStep)
	if !ok {
		return Run{}, &FieldError{Field: "from_step", Msg: fmt.Sprintf("step %q did not run in run %s; rerun from a step its steps list (agent_step_id, or the step key inside loops)", req.FromStep, src.ID)}
	}
	changeID := req.ChangeID
	if changeID == "" {
		changeID = src.ChangeID
	}
	a, err := s.Agents.ForRunAt(ctx, accountID, src.AgentID, changeID)
	if errors.Is(err, ErrUnknownVersion) {
		return Run{}, &FieldError{Field: "change_id", Msg: "the agent has no version with this change_id (see GET /agents/{agent_id}/versions)"}
	}
	if err != nil {
		return Run{}, err
	}
	if a.Disabled {
		return Run{}, ErrDisabled
	}
	if a.Definition.Find(from.StepID) == nil {
		return Run{}, &FieldError{Field: "from_step", Msg: fmt.Sprintf("version %s of the workflow has no step %q", a.ChangeID, from.StepID)}
	}
	if missing := s.Engine.Registry.Missing(a.Definition); len(missing) > 0 {
		return Run{}, fmt.Errorf("%w: this agent uses %s, which this server does not provide yet", ErrUnavailableStep, strings.Join(missing, ", "))
	}
	if err := billing.NewCredits(s.DB).Require(ctx, accountID, 0); err != nil {
		return Run{}, err
	}
	reused := reusable(steps, from)
	run := Run{AccountID: accountID, AgentID: src.AgentID, TriggerType: src.TriggerType, Input: src.Input,
		Metadata: src.Metadata, InputUploadIDs: src.InputUploadIDs, ChangeID: a.ChangeID,
		RerunOfRunID: src.ID, RerunFromStep: from.Key, RerunInput: req.Input}
	return s.createQueuedWith(ctx, run, func(tx *sql.Tx, r Run) error {
		return s.Repo.CopyStepsTx(ctx, tx, r.ID, r.AccountID, reused)
	})
}

// firstAttempt is the earliest attempt of step key in a run's journal.
func firstAttempt(steps []StepRow, key string) (StepRow, bool) {
	var first StepRow
	found := false
	for _, st := range steps {
		if st.Key == key && (!found || st.StartedAt.Before(first.StartedAt)) {
			first, found = st, true
		}
	}
	return first, found
}

// reusable are the completed, still valid step records that ended before
// from first started: every step whose output from could depend on (its
// ancestors) and none that could depend on from (its descendants, a join
// or merge waiting on its branch: all end after it starts). Steps of other
// branches running meanwhile are run again, which is safe.
func reusable(steps []StepRow, from StepRow) []StepRow {
	var out []StepRow
	for _, st := range steps {
		if st.Key == from.Key || st.Status != engine.StatusCompleted || st.Superseded || st.EndedAt == nil ||
			st.EndedAt.After(from.StartedAt) {
			continue
		}
		out = append(out, st)
	}
	return out
}

// isReused tells a step record a rerun copied from its original run: it
// started before the run was created.
func isReused(r Run, st StepRow) bool {
	return r.RerunOfRunID != "" && st.StartedAt.Before(r.CreatedAt)
}
