package realclient_test

import (
	"errors"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// The account-wide run views through the public client: the list walked
// by cursor, the summary, a run's details, and following a run from an
// event id; another account's run is a *APIError 404.
func TestAccountRunViewsOnRealServer(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c := newRunClient(t, ts)
		agent := makeAgent(t, ts, `{"child_steps":[{"id":"a","step_type":"display_result","template":"one {{input}}"},
			{"id":"b","step_type":"display_result","template":"two {{input}}"}]}`)
		var started []string
		for _, in := range []string{"x", "y", "z"} {
			r, err := c.RunAndWait(ctx, agent, client.AgentRunRequest{Input: in})
			if err != nil || r.Status != client.RunCompleted {
				t.Fatalf("run: %+v %v", r, err)
			}
			started = append(started, r.RunID)
		}
		var walked []string
		for r, err := range c.AllAccountRuns(ctx, client.AccountRunsOptions{AgentID: agent, Limit: 2}) {
			if err != nil {
				t.Fatal(err)
			}
			walked = append(walked, r.RunID)
		}
		if len(walked) != 3 || walked[0] != started[2] || walked[2] != started[0] {
			t.Fatalf("walked %v, started %v", walked, started)
		}
		p, err := c.AccountRuns(ctx, client.AccountRunsOptions{Status: client.RunFailed})
		if err != nil || len(p.Data) != 0 || p.NextCursor != nil {
			t.Fatalf("failed runs: %+v %v", p, err)
		}
		sum, err := c.RunsSummary(ctx, 2)
		if err != nil || sum.Total != 3 || sum.ByStatus[client.RunCompleted] != 3 || len(sum.Buckets) != 2 || sum.P50Seconds == nil {
			t.Fatalf("summary: %+v %v", sum, err)
		}
		det, err := c.GetRunDetails(ctx, started[0])
		if err != nil || det.AgentID != agent || det.Status != client.RunCompleted || det.TriggerType != "dynamic_input" {
			t.Fatalf("details: %+v %v", det, err)
		}

		// Following from the first step's completion yields what came after
		// it only, up to done.
		var all []client.RunEvent
		for ev, err := range c.FollowRun(ctx, agent, started[1]) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, ev)
		}
		cut := -1
		for i, ev := range all {
			if ev.Type == client.EventStepCompleted {
				cut = i
				break
			}
		}
		if cut < 0 {
			t.Fatalf("no step_completed in %+v", all)
		}
		var rest []client.RunEvent
		for ev, err := range c.FollowRunFrom(ctx, agent, all[cut].ID) {
			if err != nil {
				t.Fatal(err)
			}
			rest = append(rest, ev)
		}
		if len(rest) != len(all)-cut-1 || rest[0].Seq != all[cut+1].Seq || rest[len(rest)-1].Type != client.EventDone {
			t.Fatalf("resumed %d events from %d of %d", len(rest), cut, len(all))
		}

		// A model step's attempt names its model and tokens; the others none.
		asked, err := c.RunAndWait(ctx, makeAgent(t, ts, streamDef), client.AgentRunRequest{Input: "Keep it short."})
		if err != nil || asked.Status != client.RunCompleted {
			t.Fatalf("model run: %+v %v", asked, err)
		}
		det, err = c.GetRunDetails(ctx, asked.RunID)
		if err != nil || len(det.StepUsage) != 2 {
			t.Fatalf("step usage: %+v %v", det, err)
		}
		if u := det.StepUsage[0]; u.AgentStepID != "ask" || u.Model == nil || *u.Model == "" || u.InputTokens <= 0 || u.OutputTokens <= 0 {
			t.Fatalf("prompt_call usage: %+v", u)
		}
		if u := det.StepUsage[1]; u.AgentStepID != "stream" || u.Model != nil || u.InputTokens != 0 {
			t.Fatalf("streaming_result usage: %+v", u)
		}

		other := ts.NewTenant(t, "other")
		oc := newRunClient(t, ts, client.WithAPIKey(other.Key))
		var ae *client.APIError
		if _, err := oc.GetRunDetails(ctx, started[0]); !errors.As(err, &ae) || ae.StatusCode != 404 {
			t.Fatalf("other account's details: %v", err)
		}
		if p, err := oc.AccountRuns(ctx, client.AccountRunsOptions{}); err != nil || len(p.Data) != 0 {
			t.Fatalf("other account's list: %+v %v", p, err)
		}
	})
}
