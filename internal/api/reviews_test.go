package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// member adds a user to the account with a role and returns its key and id.
func member(t *testing.T, s *testserver.Server, name, role string) (string, string) {
	t.Helper()
	ctx := context.Background()
	u, _, err := directory.CreateUser(ctx, s.DB, directory.NewUser{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	if err := directory.AddMember(ctx, s.DB, s.AccountID, u.ID, role); err != nil {
		t.Fatal(err)
	}
	return s.IssueKey(t, s.AccountID, u.ID, role), u.ID
}

// waitEnded waits for a run to end.
func waitEnded(t *testing.T, s *testserver.Server, runID string) runs.Run {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, err := runs.NewRepo(s.DB, nil).Run(context.Background(), s.AccountID, runID)
		if err != nil {
			t.Fatal(err)
		}
		if runs.RunTerminal(r.Status) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %s", runID, r.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunReviews: the account's users list and decide the reviews of parked
// runs over HTTP; owners and admins decide any, members only those whose
// step names them; the decision resumes the run and is kept with its comment.
func TestRunReviews(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		assigneeKey, assigneeID := member(t, s, "assignee", store.RoleMember)
		bystanderKey, _ := member(t, s, "bystander", store.RoleMember)
		adminKey, _ := member(t, s, "admin", store.RoleAdmin)
		other := s.NewTenant(t, "other")
		agent := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"review","step_type":"human_in_the_loop","instructions":"Publish {{input}}?",
			"allow_edit":true,"assignee_user_ids":["`+assigneeID+`"],"child_steps":[{"id":"show","step_type":"display_result","template":"published: {{input}}"}]}]}`)
		start := func() string {
			r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "draft"})
			wantStatus(t, r, http.StatusOK)
			var run struct {
				RunID string `json:"run_id"`
			}
			r.JSON(t, &run)
			if got := waitRun(t, s, s.Key, run.RunID); got.Status != runs.RunWaitingHuman {
				t.Fatalf("run %s: %+v", got.Status, got)
			}
			return run.RunID
		}
		list := func(key, query string) api.Envelope[api.RunReviewResponse] {
			r := s.Do(t, "GET", "/agents/runs/reviews"+query, key, nil)
			wantStatus(t, r, http.StatusOK)
			var env api.Envelope[api.RunReviewResponse]
			r.JSON(t, &env)
			return env
		}
		decide := func(key, runID string, body map[string]any) testserver.Response {
			return s.Do(t, "POST", "/agents/runs/"+runID+"/reviews/decision", key, body)
		}

		first := start()
		second := start()
		if env := list(s.Key, ""); env.Pagination.Total != 2 || len(env.Data) != 2 || env.Data[0].RunID != first ||
			env.Data[0].Instructions != "Publish draft?" || env.Data[0].Content != "draft" || env.Data[0].Status != "pending" || !env.Data[0].AllowEdit {
			t.Fatalf("owner's list: %+v", env)
		}
		if env := list(s.Key, "?limit=1&page=2"); len(env.Data) != 1 || env.Data[0].RunID != second || !env.Pagination.HasPrev {
			t.Fatalf("page 2: %+v", env)
		}
		if env := list(s.Key, "?run_id="+second); env.Pagination.Total != 1 || env.Data[0].RunID != second {
			t.Fatalf("one run's: %+v", env)
		}
		if env := list(assigneeKey, ""); env.Pagination.Total != 2 {
			t.Fatalf("the assignee sees %d reviews", env.Pagination.Total)
		}
		if env := list(bystanderKey, ""); env.Pagination.Total != 0 {
			t.Fatalf("a member the steps do not name sees %d reviews", env.Pagination.Total)
		}
		if env := list(other.Key, ""); env.Pagination.Total != 0 {
			t.Fatalf("another account sees %d reviews", env.Pagination.Total)
		}

		approve := map[string]any{"decision": "approve", "comment": "looks good", "edited_content": "final"}
		wantStatus(t, decide(other.Key, first, approve), http.StatusNotFound)
		wantStatus(t, decide(bystanderKey, first, approve), http.StatusForbidden)
		wantLoc(t, decide(s.Key, first, map[string]any{"decision": "maybe"}), "", "body", "decision")
		wantLoc(t, decide(s.Key, first, map[string]any{"decision": "reject", "edited_content": "x"}), "value_error", "body", "edited_content")
		wantLoc(t, decide(s.Key, first, map[string]any{"decision": "approve", "comment": strings.Repeat("x", 4001)}), "", "body", "comment")
		wantStatus(t, decide(s.Key, first, map[string]any{"decision": "approve", "step_key": "nope"}), http.StatusNotFound)

		r := decide(assigneeKey, first, approve)
		wantStatus(t, r, http.StatusOK)
		var rv api.RunReviewResponse
		r.JSON(t, &rv)
		if rv.Status != "approved" || rv.Comment == nil || *rv.Comment != "looks good" || rv.DecidedBy == nil || *rv.DecidedBy != assigneeID ||
			rv.EditedContent == nil || *rv.EditedContent != "final" || rv.DecidedAt == nil || rv.StepKey != "review" {
			t.Fatalf("decision: %s", r.Body)
		}
		if got := waitEnded(t, s, first); got.Status != runs.RunCompleted || got.Output == nil || *got.Output != "published: final" {
			t.Fatalf("resumed run: %s %v %+v", got.Status, got.Output, got)
		}
		wantStatus(t, decide(s.Key, first, map[string]any{"decision": "reject"}), http.StatusConflict)
		if env := list(s.Key, ""); env.Pagination.Total != 1 || env.Data[0].RunID != second {
			t.Fatalf("after a decision: %+v", env)
		}

		// A run cancelled while parked can no longer be decided.
		wantStatus(t, s.Do(t, "DELETE", "/agents/runs/"+second, s.Key, nil), http.StatusOK)
		wantStatus(t, decide(adminKey, second, map[string]any{"decision": "reject", "step_key": "review"}), http.StatusConflict)

		// An admin rejects: the branch ends and the run completes.
		third := start()
		r = decide(adminKey, third, map[string]any{"decision": "reject", "comment": "no"})
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &rv)
		if rv.Status != "rejected" || rv.EditedContent != nil {
			t.Fatalf("rejection: %s", r.Body)
		}
		if got := waitEnded(t, s, third); got.Status != runs.RunCompleted {
			t.Fatalf("rejected run: %s %+v", got.Status, got)
		}
	})
}
