package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/agentry/agentry/client"
)

// The reviews page: the human reviews the signed-in user may decide (all of
// the account's for owners and admins, those naming them otherwise, as the
// API decides), each approved or rejected with a comment.

type reviewsView struct {
	Reviews []client.RunReview
	Total   int
	Done    string // the run just decided
	Problem string
}

func (c *Console) reviewsPage(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	p, err := cl.ListPendingReviews(req.Ctx(), client.ReviewListOptions{Limit: 100})
	if err != nil {
		return err
	}
	v := reviewsView{Reviews: p.Items, Total: p.Total, Done: req.URL.Query().Get("decided"), Problem: req.URL.Query().Get("problem")}
	return req.Page(http.StatusOK, "reviews.html", "Reviews", "reviews", v)
}

func (c *Console) reviewDecide(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := req.ParseForm(); err != nil {
		return req.Error(http.StatusBadRequest, "The form could not be read.")
	}
	decision := req.PostForm.Get("decision")
	if decision != client.DecisionApprove && decision != client.DecisionReject {
		return req.Error(http.StatusBadRequest, "Choose approve or reject.")
	}
	in := client.ReviewDecisionRequest{StepKey: req.PostForm.Get("step_key"), Decision: decision,
		Comment: strings.TrimSpace(req.PostForm.Get("comment"))}
	runID := req.PathValue("run_id")
	if _, err := cl.DecideReview(req.Ctx(), runID, in); err != nil {
		var ae *client.APIError
		if errors.Is(err, client.ErrConflict) || errors.As(err, &ae) && ae.StatusCode == http.StatusUnprocessableEntity {
			msg := "The review was already decided, or its run has ended."
			if ae != nil && ae.StatusCode == http.StatusUnprocessableEntity {
				msg = ae.Message
			}
			return req.Redirect(Prefix + "reviews?problem=" + urlQueryEscape(msg))
		}
		return err
	}
	return req.Redirect(Prefix + "reviews?decided=" + urlQueryEscape(runID))
}
