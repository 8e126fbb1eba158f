package api_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// startAndWait starts a run over HTTP and waits for its end.
func startAndWait(t *testing.T, s *testserver.Server, key, agent, input string) string {
	return startAndWaitIn(t, s, s.AccountID, key, agent, input)
}

// startAndWaitIn is startAndWait for a run of accountID.
func startAndWaitIn(t *testing.T, s *testserver.Server, accountID, key, agent, input string) string {
	t.Helper()
	r := s.Do(t, "POST", "/agents/"+agent+"/runs", key, map[string]any{"input": input})
	wantStatus(t, r, http.StatusOK)
	var run struct {
		RunID string `json:"run_id"`
	}
	r.JSON(t, &run)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := runs.NewRepo(s.DB, nil).Run(context.Background(), accountID, run.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if runs.RunTerminal(got.Status) {
			return run.RunID
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %s", run.RunID, got.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAccountRuns: GET /runs lists the account's runs across agents newest
// first, filters by agent, status, trigger and time, walks pages by cursor
// without gaps or repeats, and shows nothing of another account.
func TestAccountRuns(t *testing.T) {
	t.Parallel()
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		greeter := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"show","step_type":"display_result","template":"hi {{input}}"}]}`)
		caller := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"call","step_type":"call_agent","agent_id":"`+greeter+`","input":"{{input}}"}]}`)
		done1 := startAndWait(t, s, s.Key, greeter, "a")
		parent := startAndWait(t, s, s.Key, caller, "b")
		// Runs nobody executes: pending rows, as many as three pages need.
		var pending []string
		for range 5 {
			r, err := runs.NewRepo(s.DB, nil).CreateRun(ctx, runs.Run{AccountID: s.AccountID, AgentID: greeter})
			if err != nil {
				t.Fatal(err)
			}
			pending = append(pending, r.ID)
		}
		other := s.NewTenant(t, "other")
		otherAgent := makeAgent(t, s, other.AccountID, `{"child_steps":[{"id":"show","step_type":"display_result","template":"x"}]}`)
		otherRun := startAndWaitIn(t, s, other.AccountID, other.Key, otherAgent, "c")

		list := func(key, query string) api.AccountRunsResponse {
			t.Helper()
			r := s.Do(t, "GET", "/runs"+query, key, nil)
			wantStatus(t, r, http.StatusOK)
			var page api.AccountRunsResponse
			r.JSON(t, &page)
			return page
		}
		ids := func(p api.AccountRunsResponse) []string {
			out := []string{}
			for _, r := range p.Data {
				out = append(out, r.RunID)
			}
			return out
		}
		all := list(s.Key, "")
		// 1 + parent + its sub-run + 5 pending, newest first.
		if len(all.Data) != 8 || all.NextCursor != nil {
			t.Fatalf("all runs: %d, next %v", len(all.Data), all.NextCursor)
		}
		for i := 1; i < len(all.Data); i++ {
			if all.Data[i-1].RunID <= all.Data[i].RunID {
				t.Fatalf("not newest first: %v", ids(all))
			}
		}
		for _, r := range all.Data {
			if r.RunID == otherRun {
				t.Fatal("another account's run is listed")
			}
		}
		if all.Data[0].RunID != pending[4] {
			t.Fatalf("newest is %s, want %s", all.Data[0].RunID, pending[4])
		}

		// Pages of 3 by cursor: every run once, in order.
		var walked []string
		cursor := ""
		for pages := 0; ; pages++ {
			q := "?limit=3"
			if cursor != "" {
				q += "&cursor=" + cursor
			}
			p := list(s.Key, q)
			walked = append(walked, ids(p)...)
			if p.NextCursor == nil {
				break
			}
			cursor = *p.NextCursor
			if pages > 5 {
				t.Fatal("cursor never ends")
			}
		}
		if len(walked) != 8 || walked[0] != all.Data[0].RunID || walked[7] != all.Data[7].RunID {
			t.Fatalf("walked %v, want %v", walked, ids(all))
		}

		// Filters.
		if p := list(s.Key, "?status=completed"); len(p.Data) != 3 {
			t.Fatalf("completed: %v", ids(p))
		}
		if p := list(s.Key, "?agent_id="+caller); len(p.Data) != 1 || p.Data[0].RunID != parent || p.Data[0].DurationSeconds == nil {
			t.Fatalf("caller's runs: %+v", p.Data)
		}
		sub := list(s.Key, "?trigger=call_agent")
		if len(sub.Data) != 1 || sub.Data[0].ParentRunID == nil || *sub.Data[0].ParentRunID != parent || sub.Data[0].AgentID != greeter {
			t.Fatalf("sub-runs: %+v", sub.Data)
		}
		if p := list(s.Key, "?trigger=dynamic_input&status=completed"); len(p.Data) != 2 || p.Data[1].RunID != done1 {
			t.Fatalf("API runs: %v", ids(p))
		}
		future := url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339))
		past := url.QueryEscape(time.Now().Add(-time.Hour).Format(time.RFC3339))
		if p := list(s.Key, "?created_after="+future); len(p.Data) != 0 {
			t.Fatalf("created after the future: %v", ids(p))
		}
		if p := list(s.Key, "?created_after="+past+"&created_before="+future); len(p.Data) != 8 {
			t.Fatalf("created in the last hour: %v", ids(p))
		}
		if p := list(s.Key, "?created_before="+past); len(p.Data) != 0 {
			t.Fatalf("created before an hour ago: %v", ids(p))
		}
		// Another account's agent, as a filter, finds nothing of it.
		if p := list(s.Key, "?agent_id="+otherAgent); len(p.Data) != 0 {
			t.Fatalf("other account's agent: %v", ids(p))
		}
		if p := list(other.Key, ""); len(p.Data) != 1 || p.Data[0].RunID != otherRun {
			t.Fatalf("other account sees %v", ids(p))
		}
		// Bad input is a 422 naming the parameter, never a 500.
		for _, q := range []string{"?status=bogus", "?limit=0", "?limit=101", "?cursor=nope", "?agent_id=x", "?trigger=Bad-One", "?created_after=yesterday"} {
			wantStatus(t, s.Do(t, "GET", "/runs"+q, s.Key, nil), http.StatusUnprocessableEntity)
		}

		// Details: agent, trigger, sub-runs; another account's run is a 404.
		r := s.Do(t, "GET", "/runs/"+parent, s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var det api.RunDetailsResponse
		r.JSON(t, &det)
		if det.AgentID != caller || det.TriggerType != "dynamic_input" || len(det.Children) != 1 || det.Children[0].RunID != sub.Data[0].RunID ||
			det.Status != runs.RunCompleted || det.Attachments == nil {
			t.Fatalf("details: %+v", det)
		}
		wantStatus(t, s.Do(t, "GET", "/runs/"+otherRun, s.Key, nil), http.StatusNotFound)
		wantStatus(t, s.Do(t, "GET", "/runs/"+parent, other.Key, nil), http.StatusNotFound)
		wantStatus(t, s.Do(t, "GET", "/runs/"+store.NewID(), s.Key, nil), http.StatusNotFound)
	})
}

// TestRunsSummary: GET /runs/summary adds up the window's runs by status,
// with the failure rate, duration percentiles, credits and hourly buckets,
// of the caller's account only.
func TestRunsSummary(t *testing.T) {
	t.Parallel()
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		ctx := context.Background()
		ok := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"show","step_type":"display_result","template":"hi"}]}`)
		startAndWait(t, s, s.Key, ok, "a")
		startAndWait(t, s, s.Key, ok, "b")
		cancelled, err := runs.NewRepo(s.DB, nil).CreateRun(ctx, runs.Run{AccountID: s.AccountID, AgentID: ok})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, s.Do(t, "DELETE", "/agents/runs/"+cancelled.ID, s.Key, nil), http.StatusOK)
		if _, err := runs.NewRepo(s.DB, nil).CreateRun(ctx, runs.Run{AccountID: s.AccountID, AgentID: ok}); err != nil {
			t.Fatal(err)
		}
		other := s.NewTenant(t, "other")
		startAndWaitIn(t, s, other.AccountID, other.Key, makeAgent(t, s, other.AccountID, `{"child_steps":[{"id":"show","step_type":"display_result","template":"x"}]}`), "c")

		r := s.Do(t, "GET", "/runs/summary", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var sum api.RunsSummaryResponse
		r.JSON(t, &sum)
		if sum.Total != 4 || sum.ByStatus["completed"] != 2 || sum.ByStatus["failed"] != 1 || sum.ByStatus["pending"] != 1 {
			t.Fatalf("summary: %+v", sum)
		}
		if sum.FailureRate < 0.333 || sum.FailureRate > 0.334 {
			t.Fatalf("failure rate %v", sum.FailureRate)
		}
		if sum.P50Seconds == nil || sum.P95Seconds == nil || *sum.P95Seconds < *sum.P50Seconds || len(sum.Buckets) != 24 || sum.BucketSeconds != 3600 {
			t.Fatalf("durations or buckets: %+v", sum)
		}
		last := sum.Buckets[len(sum.Buckets)-1]
		if last.Completed != 2 || last.Failed != 1 || last.Other != 1 {
			t.Fatalf("last bucket %+v", last)
		}
		r = s.Do(t, "GET", "/runs/summary?hours=1", other.Key, nil)
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &sum)
		if sum.Total != 1 || len(sum.Buckets) != 1 {
			t.Fatalf("other account's summary: %+v", sum)
		}
		for _, q := range []string{"?hours=0", "?hours=169", "?hours=x"} {
			wantStatus(t, s.Do(t, "GET", "/runs/summary"+q, s.Key, nil), http.StatusUnprocessableEntity)
		}
	})
}
