package web_test

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

const (
	showDef   = `{"child_steps":[{"id":"greet","step_type":"display_result","template":"Hello {{input}}"}]}`
	reviewDef = `{"child_steps":[{"id":"review","step_type":"human_in_the_loop","instructions":"Publish {{input}}?",
		"child_steps":[{"id":"publish","step_type":"display_result","template":"published: {{input}}"}]}]}`
)

// apiClient is the public client as the test server's owner key.
func apiClient(t testing.TB, srv *testserver.Server, key string) *client.Client {
	t.Helper()
	c, err := client.New(client.WithBaseURL(srv.URL), client.WithAPIKey(key))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitStatus polls a run until it has one of the statuses.
func waitStatus(t testing.TB, c *client.Client, runID string, statuses ...string) *client.AgentRunResponse {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, err := c.GetRun(context.Background(), runID, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range statuses {
			if r.Status == s {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s is %s, want %v", runID, r.Status, statuses)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRunsPages: the runs list, a run's page, the overview and the reviews
// page render what the API says, act through it, and show another
// account's run as a 404.
func TestRunsPages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		greeter := srv.StoreAgent(t, srv.AccountID, "Greeter", showDef, "dynamic_input")
		caller := srv.StoreAgent(t, srv.AccountID, "Caller", `{"child_steps":[{"id":"call","step_type":"call_agent","agent_id":"`+greeter+`","input":"{{input}}"}]}`, "dynamic_input")
		reviewed := srv.StoreAgent(t, srv.AccountID, "Publisher", reviewDef, "dynamic_input")
		done, err := api.RunAndWait(ctx, greeter, client.AgentRunRequest{Input: `{"name":"Ada","langs":["en","fr"]}`})
		if err != nil || done.Status != client.RunCompleted {
			t.Fatal(done, err)
		}
		parent, err := api.RunAndWait(ctx, caller, client.AgentRunRequest{Input: "Bob"})
		if err != nil || parent.Status != client.RunCompleted {
			t.Fatal(parent, err)
		}
		parked, err := api.StartRun(ctx, reviewed, client.AgentRunRequest{Input: "the draft"})
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, api, parked.RunID, client.RunWaitingHuman)

		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)

		// The list: every agent's runs with their agents' names.
		p := b.get("/console/runs")
		p.mustContain(t, done.RunID, parent.RunID, parked.RunID, "Greeter", "Caller", "Publisher", "waiting_human", "call_agent")
		p = b.get("/console/runs?status=waiting_human")
		p.mustContain(t, parked.RunID)
		if strings.Contains(p.Body, done.RunID) {
			t.Fatal("status filter shows a completed run")
		}
		p = b.get("/console/runs?agent=" + caller + "&since=1h")
		p.mustContain(t, parent.RunID)
		if strings.Contains(p.Body, done.RunID) {
			t.Fatal("agent filter shows another agent's run")
		}
		p = b.get("/console/runs?trigger=call_agent")
		p.mustContain(t, "↖ parent")
		b.get("/console/runs?q="+url.QueryEscape("published draft")).mustContain(t, "Steps matching")
		if p = b.get("/console/runs?trigger=Not-A-Trigger"); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("bad trigger: %d", p.Status)
		}

		// A run's page: steps, pretty-printed JSON input, output.
		p = b.get("/console/runs/" + done.RunID)
		p.mustContain(t, "greet", "display_result", "Hello", "&#34;langs&#34;: [", "Run again with the same input", "Timeline")
		if strings.Contains(p.Body, "sse-connect") {
			t.Fatal("a finished run's page connects to its events")
		}
		// The parent links its sub-run.
		det, err := api.GetRunDetails(ctx, parent.RunID)
		if err != nil || len(det.Children) != 1 {
			t.Fatal(det, err)
		}
		b.get("/console/runs/"+parent.RunID).mustContain(t, "Sub-run", "/console/runs/"+det.Children[0].RunID)
		// A running run's page is live.
		b.get("/console/runs/"+parked.RunID).mustContain(t, `sse-connect="/console/runs/`+parked.RunID+`/events"`, "Cancel run")

		// A model step shows its model and tokens.
		modelAgent := srv.StoreAgent(t, srv.AccountID, "Summariser", `{"child_steps":[{"id":"ask","step_type":"prompt_call","prompt_template":"Summarise: {{input}}"}]}`, "dynamic_input")
		asked, err := api.RunAndWait(ctx, modelAgent, client.AgentRunRequest{Input: "Rivers flow to the sea."})
		if err != nil || asked.Status != client.RunCompleted {
			t.Fatal(asked, err)
		}
		b.get("/console/runs/"+asked.RunID).mustContain(t, `class="tag model"`, "tokens in")

		// The overview.
		p = b.get("/console/")
		p.mustContain(t, "Overview", "<svg", "failure rate", "reviews waiting for you", "Publish the draft?")

		// The reviews page: approve with a comment; the run goes on.
		p = b.get("/console/reviews")
		p.mustContain(t, "Publish the draft?", "the draft", parked.RunID)
		p = b.post("/console/reviews/"+parked.RunID+"/decide", url.Values{"step_key": {"review"}, "decision": {"approve"}, "comment": {"looks right"}})
		p.mustContain(t, "Decided the review")
		waitStatus(t, api, parked.RunID, client.RunCompleted)
		// Deciding again is a notice, not an error page.
		b.get("/console/reviews")
		b.post("/console/reviews/"+parked.RunID+"/decide", url.Values{"decision": {"reject"}}).mustContain(t, "already decided")

		// Cancel a parked run; run one again.
		again, err := api.StartRun(ctx, reviewed, client.AgentRunRequest{Input: "second"})
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, api, again.RunID, client.RunWaitingHuman)
		b.get("/console/runs/" + again.RunID)
		b.post("/console/runs/"+again.RunID+"/cancel", nil)
		if r := waitStatus(t, api, again.RunID, client.RunFailed); r.LastError() != "Run cancelled" {
			t.Fatalf("cancelled run: %+v", r)
		}
		b.get("/console/runs/"+again.RunID).mustContain(t, "Run cancelled")
		b.get("/console/runs/" + done.RunID)
		p = b.post("/console/runs/"+done.RunID+"/rerun", nil)
		if !strings.HasPrefix(p.URL, "/console/runs/") || strings.HasSuffix(p.URL, done.RunID) {
			t.Fatalf("run again went to %s", p.URL)
		}
		rerun := waitStatus(t, api, strings.TrimPrefix(p.URL, "/console/runs/"), client.RunCompleted)
		if rerun.Input == nil || *rerun.Input != *done.Input {
			t.Fatalf("run again's input: %v", rerun.Input)
		}

		// Another account: the list shows none of these; a run is a 404, and
		// so are its events, its cancel and its files.
		other := srv.NewTenant(t, "other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		if p := ob.get("/console/runs"); strings.Contains(p.Body, done.RunID) || p.Status != http.StatusOK {
			t.Fatalf("other account's list: %d", p.Status)
		}
		for _, path := range []string{"/console/runs/" + done.RunID, "/console/runs/" + done.RunID + "/events", "/console/runs/" + done.RunID + "/live",
			"/console/runs/" + done.RunID + "/attachments/eA"} {
			if p := ob.get(path); p.Status != http.StatusNotFound {
				t.Fatalf("%s for another account: %d", path, p.Status)
			}
		}
		ob.get("/console/runs")
		if p := ob.post("/console/runs/"+again.RunID+"/cancel", nil); p.Status != http.StatusNotFound {
			t.Fatalf("cancel for another account: %d", p.Status)
		}
		if p := ob.post("/console/runs/"+done.RunID+"/rerun", nil); p.Status != http.StatusNotFound {
			t.Fatalf("run again for another account: %d", p.Status)
		}
		if p := ob.get("/console/reviews"); strings.Contains(p.Body, "Publish") {
			t.Fatal("other account sees the reviews")
		}
		// Not signed in: the sign-in page, not the data.
		anon := newBrowser(t, srv)
		if p := anon.get("/console/runs/" + done.RunID); !strings.Contains(p.URL, "/signin") {
			t.Fatalf("anonymous run page at %s", p.URL)
		}
	})
}

// sseEvent is one event the console's run stream sent.
type sseEvent struct{ ID, Type, Data string }

// readEvents reads a run page's event stream until close, the stream's
// end, or each answers false.
func readEvents(t testing.TB, b *browser, runID, lastID string, each func(sseEvent) bool) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.srv.URL+"/console/runs/"+runID+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.Type != "" {
				if !each(ev) || ev.Type == "close" {
					return resp.StatusCode
				}
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			ev.ID = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.Type = line[7:]
		case strings.HasPrefix(line, "data: "):
			if ev.Data != "" {
				ev.Data += "\n"
			}
			ev.Data += line[6:]
		}
	}
	return resp.StatusCode
}

// TestRunPageLive: a run page's event stream sends the timeline as the run
// moves, ends with close, and a reconnect with Last-Event-ID resumes after
// that event, without repeating it; after the end it answers 204.
func TestRunPageLive(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		reviewed := srv.StoreAgent(t, srv.AccountID, "Publisher", reviewDef, "dynamic_input")
		run, err := api.StartRun(ctx, reviewed, client.AgentRunRequest{Input: "live draft"})
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, api, run.RunID, client.RunWaitingHuman)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)

		// First connection: the events so far, up to the timeline showing
		// the run waiting; then the browser goes away (a reload).
		var first sseEvent
		readEvents(t, b, run.RunID, "", func(ev sseEvent) bool {
			if ev.Type == "timeline" && strings.Contains(ev.Data, "waiting_human") {
				first = ev
				return false
			}
			return true
		})
		if first.ID == "" || !strings.HasPrefix(first.ID, run.RunID+":") {
			t.Fatalf("first timeline event: %+v", first)
		}
		if _, err := api.DecideReview(ctx, run.RunID, client.ReviewDecisionRequest{Decision: client.DecisionApprove}); err != nil {
			t.Fatal(err)
		}
		// The reconnect resumes after that event: later events only, up to
		// the completed run and close.
		var rest []sseEvent
		readEvents(t, b, run.RunID, first.ID, func(ev sseEvent) bool { rest = append(rest, ev); return true })
		if len(rest) < 2 || rest[len(rest)-1].Type != "close" {
			t.Fatalf("resumed events: %+v", rest)
		}
		seq := func(id string) int {
			n, _ := strconv.Atoi(strings.TrimPrefix(id, run.RunID+":"))
			return n
		}
		for _, ev := range rest {
			if ev.Type != "close" && seq(ev.ID) <= seq(first.ID) {
				t.Fatalf("event %s repeated after resuming from %s", ev.ID, first.ID)
			}
		}
		final := rest[len(rest)-2]
		if final.Type != "timeline" || !strings.Contains(final.Data, "published: live draft") || !strings.Contains(final.Data, "completed") {
			t.Fatalf("final timeline: %+v", final)
		}
		// The run has ended: a browser that saw everything is told to stop.
		if code := readEvents(t, b, run.RunID, rest[len(rest)-1].ID, func(sseEvent) bool { return true }); code != http.StatusNoContent {
			t.Fatalf("reconnect after the end: %d", code)
		}
		if code := readEvents(t, b, run.RunID, "not-an-id", func(sseEvent) bool { return true }); code != http.StatusBadRequest {
			t.Fatalf("bad Last-Event-ID: %d", code)
		}
	})
}

// TestRunPageStreamEndsOnDrain: when the API's process drains its streams
// (shutting down), an open run page's stream ends at once rather than
// retrying against the draining process, so the browser reconnects, with
// its last event id, to a process that is up.
func TestRunPageStreamEndsOnDrain(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		api := apiClient(t, srv, srv.Key)
		agent := srv.StoreAgent(t, srv.AccountID, "Publisher", reviewDef, "dynamic_input")
		run, err := api.StartRun(context.Background(), agent, client.AgentRunRequest{Input: "x"})
		if err != nil {
			t.Fatal(err)
		}
		waitStatus(t, api, run.RunID, client.RunWaitingHuman)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		var drained time.Time
		var after []sseEvent
		readEvents(t, b, run.RunID, "", func(ev sseEvent) bool {
			if drained.IsZero() {
				if ev.Type == "timeline" {
					drained = time.Now()
					srv.S.API.DrainStreams()
				}
				return true
			}
			after = append(after, ev)
			return true
		})
		// The client's own reconnection would have waited 1 s, then 2 s…
		if took := time.Since(drained); drained.IsZero() || took > 900*time.Millisecond {
			t.Fatalf("stream ended %v after the drain", took)
		}
		for _, ev := range after {
			if ev.Type == "close" {
				t.Fatalf("a drained stream said close: %+v", after)
			}
		}
	})
}
