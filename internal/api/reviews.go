package api

import (
	"context"
	"time"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/runs"
)

// Human review of runs parked on human_in_the_loop steps: an extension
// (the Agent Platform API has no operation to decide a review). The
// account's owners and admins may decide every review, other users those
// whose step names them in assignee_user_ids.

// RunReviewResponse is a review a human_in_the_loop step asked for.
type RunReviewResponse struct {
	RunID           string     `json:"run_id" doc:"The parked run."`
	AgentID         string     `json:"agent_id"`
	StepKey         string     `json:"step_key" doc:"The step asking, as the run knows it (the step id, qualified inside loops)."`
	Status          string     `json:"status" enum:"pending,approved,rejected"`
	Instructions    string     `json:"instructions"`
	Content         string     `json:"content" doc:"What the reviewer is asked to approve: the step's input."`
	AllowEdit       bool       `json:"allow_edit" doc:"Whether edited_content may replace the content on approval."`
	AssigneeUserIDs []string   `json:"assignee_user_ids" doc:"Users who may decide besides the account's owners and admins."`
	OnTimeout       string     `json:"on_timeout" enum:"reject,approve,fail"`
	RequestedAt     time.Time  `json:"requested_at"`
	Deadline        time.Time  `json:"deadline"`
	DecidedAt       *time.Time `json:"decided_at"`
	DecidedBy       *string    `json:"decided_by" doc:"The deciding user; null for an operator or the deadline."`
	TimedOut        bool       `json:"timed_out" doc:"Decided by the deadline's on_timeout policy."`
	Comment         *string    `json:"comment"`
	EditedContent   *string    `json:"edited_content"`
}

// RunReviewDecisionRequest is the body of a review decision.
type RunReviewDecisionRequest struct {
	StepKey       string  `json:"step_key,omitempty" required:"false" maxLength:"1000" doc:"The review to decide; may be left out when the run waits on one review only."`
	Decision      string  `json:"decision" enum:"approve,reject"`
	Comment       string  `json:"comment,omitempty" required:"false" maxLength:"4000" doc:"Why; kept with the decision."`
	EditedContent *string `json:"edited_content,omitempty" required:"false" nullable:"true" maxLength:"262144" doc:"On approval, the content passed on instead of the original (steps with allow_edit only)."`
}

type listReviewsInput struct {
	Page  int    `query:"page" default:"1" minimum:"1" maximum:"1000000"`
	Limit int    `query:"limit" default:"50" minimum:"1" maximum:"100"`
	RunID string `query:"run_id" format:"uuid" required:"false" doc:"Only this run's reviews."`
}

type listReviewsOutput struct{ Body any }

type decideReviewInput struct {
	RunID string `path:"run_id" format:"uuid"`
	Body  RunReviewDecisionRequest
}

type reviewOutput struct{ Body RunReviewResponse }

// Descriptions of the review operations (routes in api.go).
const (
	listPendingReviewsDoc = "Undecided reviews of human_in_the_loop steps in the account, oldest first: all of them for owners and admins, those naming the caller in assignee_user_ids otherwise."
	decideReviewDoc       = "Decides a review of a run parked on a human_in_the_loop step; the run then continues (on rejection the step's branch ends). " +
		"Owners and admins may decide every review, other users those whose step names them in assignee_user_ids (403 otherwise). " +
		"409 when the review is already decided or the run has ended."
)

// reviewer is the caller as a reviewer.
func reviewer(ctx context.Context) runs.Reviewer {
	p := principal(ctx)
	return runs.Reviewer{UserID: p.UserID, Admin: p.CanAdminister()}
}

func (s *Server) listPendingReviews(ctx context.Context, in *listReviewsInput) (*listReviewsOutput, error) {
	rs, total, err := s.deps.Runs.PendingReviews(ctx, principal(ctx).AccountID, reviewer(ctx), in.RunID, in.Page, in.Limit)
	if err != nil {
		return nil, err
	}
	items := make([]RunReviewResponse, len(rs))
	for i, rv := range rs {
		items[i] = reviewResponse(rv)
	}
	// A new list: the canonical envelope at every version.
	envelope := func(items []RunReviewResponse, p Pagination) any {
		return Envelope[RunReviewResponse]{Data: items, Pagination: p}
	}
	return &listReviewsOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), envelope)}, nil
}

func (s *Server) decideReview(ctx context.Context, in *decideReviewInput) (*reviewOutput, error) {
	b := in.Body
	p := principal(ctx)
	d := runs.Decision{Approved: b.Decision == "approve", Comment: b.Comment}
	if b.EditedContent != nil {
		if !d.Approved {
			return nil, Invalid([]any{"body", "edited_content"}, "edited_content goes with an approval only", "value_error")
		}
		d.Edited = *b.EditedContent
	}
	rv, err := s.deps.Runs.DecideAs(ctx, p.AccountID, reviewer(ctx), in.RunID, b.StepKey, d)
	if err != nil {
		return nil, fault.Name(err, "Review")
	}
	return &reviewOutput{Body: reviewResponse(rv)}, nil
}

func reviewResponse(rv runs.Review) RunReviewResponse {
	out := RunReviewResponse{RunID: rv.RunID, AgentID: rv.AgentID, StepKey: rv.StepKey, Status: "pending", Instructions: rv.Instructions,
		Content: rv.Content, AllowEdit: rv.AllowEdit, AssigneeUserIDs: rv.AssigneeUserIDs, OnTimeout: rv.OnTimeout,
		RequestedAt: rv.RequestedAt, Deadline: rv.Deadline, DecidedAt: rv.DecidedAt, TimedOut: rv.TimedOut}
	if out.AssigneeUserIDs == nil {
		out.AssigneeUserIDs = []string{}
	}
	if rv.DecidedAt != nil {
		out.Status = "rejected"
		if rv.Approved {
			out.Status = "approved"
		}
		if rv.Edited != "" {
			out.EditedContent = &rv.Edited
		}
	}
	if rv.DecidedBy != "" {
		out.DecidedBy = &rv.DecidedBy
	}
	if rv.Comment != "" {
		out.Comment = &rv.Comment
	}
	return out
}
