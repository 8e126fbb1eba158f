package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
)

// Human reviews (an Agentry extension; the Agent Platform API has no such
// operations): a run parked on a human_in_the_loop step waits for one of
// the account's owners or admins, or a user the step names in
// assignee_user_ids, to approve or reject it.

// Review statuses (RunReview.Status).
const (
	ReviewPending  = "pending"
	ReviewApproved = "approved"
	ReviewRejected = "rejected"
)

// Review decisions (ReviewDecisionRequest.Decision).
const (
	DecisionApprove = "approve"
	DecisionReject  = "reject"
)

// RunReview is a review a human_in_the_loop step asked for.
type RunReview struct {
	RunID           string   `json:"run_id"`
	AgentID         string   `json:"agent_id"`
	StepKey         string   `json:"step_key"`
	Status          string   `json:"status"`
	Instructions    string   `json:"instructions"`
	Content         string   `json:"content"` // what the reviewer decides on
	AllowEdit       bool     `json:"allow_edit"`
	AssigneeUserIDs []string `json:"assignee_user_ids"`
	OnTimeout       string   `json:"on_timeout"` // reject, approve or fail
	RequestedAt     string   `json:"requested_at"`
	Deadline        string   `json:"deadline"`
	DecidedAt       *string  `json:"decided_at"`
	DecidedBy       *string  `json:"decided_by"` // user id; nil for an operator or the deadline
	TimedOut        bool     `json:"timed_out"`
	Comment         *string  `json:"comment"`
	EditedContent   *string  `json:"edited_content"`
}

// ReviewDecisionRequest decides a review. StepKey may be empty when the
// run waits on one review only. EditedContent replaces the content on
// approval, for steps with allow_edit.
type ReviewDecisionRequest struct {
	StepKey       string  `json:"step_key,omitempty"`
	Decision      string  `json:"decision"` // DecisionApprove or DecisionReject
	Comment       string  `json:"comment,omitempty"`
	EditedContent *string `json:"edited_content,omitempty"`
}

// ReviewListOptions filter and page GET /agents/runs/reviews.
type ReviewListOptions struct {
	RunID string // one run's reviews; "" for the account's
	Page  int    // 1-based; 1 when zero
	Limit int    // 1–100; the server's 50 when zero
}

func (o ReviewListOptions) query() ListQuery {
	q := ListQuery{Page: o.Page, Limit: min(o.Limit, maxReviewPage)}
	if o.RunID != "" {
		q.Params = url.Values{"run_id": {o.RunID}}
	}
	return q
}

const maxReviewPage = 100

// ListPendingReviews returns one page of the undecided reviews the caller
// may decide, oldest first (GET /agents/runs/reviews).
func (c *Client) ListPendingReviews(ctx context.Context, o ReviewListOptions, opts ...CallOption) (*Page[RunReview], error) {
	return ListPage[RunReview](ctx, c, "/agents/runs/reviews", o.query(), opts...)
}

// PendingReviews iterates over all the undecided reviews the caller may
// decide, fetching pages as the loop needs them.
func (c *Client) PendingReviews(ctx context.Context, o ReviewListOptions, opts ...CallOption) iter.Seq2[RunReview, error] {
	if o.Limit <= 0 {
		o.Limit = maxReviewPage
	}
	return ListAll[RunReview](ctx, c, "/agents/runs/reviews", o.query(), opts...)
}

// DecideReview approves or rejects a review of a parked run; the run then
// continues (POST /agents/runs/{run_id}/reviews/decision). A review
// decided already, or of a run that ended, is a 409 (errors.Is(err,
// ErrConflict)); a caller the step does not name is a 403.
func (c *Client) DecideReview(ctx context.Context, runID string, req ReviewDecisionRequest, opts ...CallOption) (*RunReview, error) {
	var out RunReview
	if err := c.Do(ctx, http.MethodPost, pathf("/agents/runs/%s/reviews/decision", runID), req, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}
