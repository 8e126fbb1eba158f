package realclient_test

import (
	"errors"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

const reviewDef = `{"child_steps":[{"id":"review","step_type":"human_in_the_loop","instructions":"Publish {{input}}?","allow_edit":true,
	"child_steps":[{"id":"show","step_type":"display_result","template":"published: {{input}}"}]}]}`

// parkedRun starts a run that waits for a review.
func parkedRun(t *testing.T, c *client.Client, agent string) string {
	t.Helper()
	r, err := c.StartRun(ctx, agent, client.AgentRunRequest{Input: "draft"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := c.GetRun(ctx, r.RunID, false)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == client.RunWaitingHuman {
			return r.RunID
		}
		if client.RunTerminal(got.Status) || time.Now().After(deadline) {
			t.Fatalf("run did not park: %s %s", got.Status, got.LastError())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestReviewsOnRealServer(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c := newRunClient(t, ts)
		agent := makeAgent(t, ts, reviewDef)
		first, second := parkedRun(t, c, agent), parkedRun(t, c, agent)

		page, err := c.ListPendingReviews(ctx, client.ReviewListOptions{Limit: 1})
		if err != nil || len(page.Items) != 1 || page.Total != 2 || !page.HasNext || page.Items[0].RunID != first ||
			page.Items[0].Status != client.ReviewPending || page.Items[0].Content != "draft" {
			t.Fatalf("ListPendingReviews = %+v, %v", page, err)
		}
		n := 0
		for rv, err := range c.PendingReviews(ctx, client.ReviewListOptions{RunID: second}) {
			if err != nil || rv.RunID != second {
				t.Fatalf("PendingReviews: %+v %v", rv, err)
			}
			n++
		}
		if n != 1 {
			t.Fatalf("one run's reviews: %d", n)
		}

		edited := "final"
		rv, err := c.DecideReview(ctx, first, client.ReviewDecisionRequest{Decision: client.DecisionApprove, Comment: "ok", EditedContent: &edited})
		if err != nil || rv.Status != client.ReviewApproved || rv.Comment == nil || *rv.Comment != "ok" || rv.StepKey != "review" {
			t.Fatalf("DecideReview = %+v, %v", rv, err)
		}
		done, err := c.PollRun(ctx, first, 20*time.Millisecond, 20*time.Second)
		if err != nil || done.OutputText() != "published: final" {
			t.Fatalf("resumed run: %+v %v", done, err)
		}
		if _, err := c.DecideReview(ctx, first, client.ReviewDecisionRequest{Decision: client.DecisionReject}); !errors.Is(err, client.ErrConflict) {
			t.Fatalf("second decision: %v", err)
		}
		rv, err = c.DecideReview(ctx, second, client.ReviewDecisionRequest{StepKey: "review", Decision: client.DecisionReject})
		if err != nil || rv.Status != client.ReviewRejected {
			t.Fatalf("reject: %+v %v", rv, err)
		}
		other := ts.NewTenant(t, "other")
		oc := newRunClient(t, ts, client.WithAPIKey(other.Key))
		if _, err := oc.DecideReview(ctx, second, client.ReviewDecisionRequest{Decision: client.DecisionApprove}); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("another account: %v", err)
		}
	})
}
