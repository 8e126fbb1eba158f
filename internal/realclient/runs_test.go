package realclient_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// Definitions the run tests use: a chain of text steps, and a model answer
// streamed token by token by the built-in offline model (no network).
const (
	chainDef  = `{"child_steps":[{"id":"greet","step_type":"text","text":"Hello {{input}}","child_steps":[{"id":"show","step_type":"display_result","template":"{{input}}!"}]}]}`
	streamDef = `{"child_steps":[{"id":"ask","step_type":"prompt_call","prompt_template":"Summarise: Rivers flow to the sea. Rain fills the rivers again. Clouds carry the rain inland. {{input}}",
		"child_steps":[{"id":"stream","step_type":"streaming_result"}]}]}`
)

// makeAgent stores an agent with a definition, as the agents area would.
func makeAgent(t *testing.T, ts *testserver.Server, def string) string {
	t.Helper()
	return ts.StoreAgent(t, ts.AccountID, "run test agent", def, "dynamic_input")
}

func newRunClient(t *testing.T, ts *testserver.Server, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(append([]client.Option{client.WithBaseURL(ts.URL), client.WithAPIKey(ts.Key)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRunsOnRealServer(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c := newRunClient(t, ts)
		agent := makeAgent(t, ts, chainDef)

		start, err := c.StartRun(ctx, agent, client.AgentRunRequest{Input: "world", Metadata: map[string]any{"k": 1}})
		if err != nil || start.RunID == "" || start.Status != client.RunPending || start.Attempts == nil {
			t.Fatalf("StartRun = %+v, %v", start, err)
		}
		done, err := c.PollRun(ctx, start.RunID, 20*time.Millisecond, 20*time.Second)
		if err != nil || done.Status != client.RunCompleted || done.OutputText() != "Hello world!" || done.Steps != nil || done.LastError() != "" {
			t.Fatalf("PollRun = %+v, %v", done, err)
		}
		full, err := c.GetRun(ctx, start.RunID, true)
		if err != nil || len(full.Steps) != 2 || full.Steps[0].AgentStepID != "greet" || *full.Steps[0].Output != "Hello world" ||
			full.Steps[1].StepType != "display_result" || full.Steps[0].ToolCalls == nil || full.Credits == nil {
			t.Fatalf("GetRun with steps = %+v, %v", full, err)
		}

		// A run started without a stream can be followed from its first event.
		var followed []client.RunEvent
		for ev, err := range c.FollowRun(ctx, agent, start.RunID) {
			if err != nil {
				t.Fatal(err)
			}
			followed = append(followed, ev)
		}
		if len(followed) < 4 || followed[0].Type != client.EventStatus || followed[len(followed)-1].Snapshot.OutputText() != "Hello world!" {
			t.Fatalf("FollowRun: %+v", followed)
		}
		for i, ev := range followed {
			if ev.Seq != int64(i+1) || ev.RunID != start.RunID {
				t.Fatalf("FollowRun event %d: %+v", i, ev)
			}
		}

		// Two more runs, one of them failing, to page and filter through.
		failing := makeAgent(t, ts, `{"child_steps":[{"id":"a","step_type":"text","text":"{{metadata.absent}}"}]}`)
		bad, err := c.StartRun(ctx, failing, client.AgentRunRequest{Input: "x"})
		if err != nil {
			t.Fatal(err)
		}
		failed, err := c.PollRun(ctx, bad.RunID, 20*time.Millisecond, 20*time.Second)
		if err != nil || failed.Status != client.RunFailed || !strings.Contains(failed.LastError(), "metadata.absent") {
			t.Fatalf("a missing reference must fail the run: %+v (%q), %v", failed, failed.LastError(), err)
		}
		for _, in := range []string{"two", "three"} {
			r, err := c.StartRun(ctx, agent, client.AgentRunRequest{Input: in, Priority: true})
			if err != nil || !r.Priority {
				t.Fatalf("StartRun priority = %+v, %v", r, err)
			}
			if _, err := c.PollRun(ctx, r.RunID, 20*time.Millisecond, 20*time.Second); err != nil {
				t.Fatal(err)
			}
		}
		p, err := c.ListRuns(ctx, agent, client.RunListOptions{Limit: 2})
		if err != nil || len(p.Items) != 2 || p.Total != 3 || !p.HasNext || p.Shape != client.ShapeEnvelope {
			t.Fatalf("ListRuns = %+v, %v", p, err)
		}
		if p.Items[0].Input == nil || *p.Items[0].Input != "three" {
			t.Errorf("runs must be listed newest first: %v", *p.Items[0].Input)
		}
		var inputs []string
		for r, err := range c.Runs(ctx, agent, client.RunListOptions{Limit: 1, Status: client.RunCompleted}) {
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, *r.Input)
		}
		if strings.Join(inputs, ",") != "three,two,world" {
			t.Fatalf("Runs over every page = %v", inputs)
		}
		p, err = c.ListRuns(ctx, failing, client.RunListOptions{Status: client.RunCompleted})
		if err != nil || len(p.Items) != 0 || p.Total != 0 {
			t.Fatalf("status filter: %+v, %v", p, err)
		}

		found, err := c.SearchTraces(ctx, client.AgentTraceSearchRequest{Query: "hello world", TopN: 5, AgentID: agent})
		if err != nil || found.Total == 0 || found.Total != len(found.Matches) || *found.Matches[0].AgentRunID != start.RunID ||
			*found.Matches[0].AgentID != agent || found.Matches[0].Score <= 0 {
			t.Fatalf("SearchTraces = %+v, %v", found, err)
		}
		found, err = c.SearchTraces(ctx, client.AgentTraceSearchRequest{Query: "hello world", AgentID: failing})
		if err != nil || found.Total != 0 {
			t.Fatalf("SearchTraces filtered by another agent = %+v, %v", found, err)
		}
		_, err = c.SearchTraces(ctx, client.AgentTraceSearchRequest{Query: " "})
		if !errors.Is(err, client.ErrUnprocessable) {
			t.Fatalf("empty query: %v", err)
		}

		// Cancelling a finished run is the server's 409, typed.
		_, err = c.CancelRun(ctx, start.RunID)
		var apiErr *client.APIError
		if !errors.Is(err, client.ErrConflict) || !errors.As(err, &apiErr) || apiErr.StatusCode != 409 || !strings.Contains(apiErr.Message, "finished") {
			t.Fatalf("cancel a finished run: %v", err)
		}
		if _, err := c.GetRun(ctx, store.NewID(), false); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("unknown run: %v", err)
		}
		if _, err := c.StartRun(ctx, store.NewID(), client.AgentRunRequest{Input: "x"}); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("unknown agent: %v", err)
		}
		var followErr error
		for _, err := range c.FollowRun(ctx, failing, start.RunID) {
			followErr = err
		}
		if !errors.Is(followErr, client.ErrNotFound) {
			t.Fatalf("following a run under another agent: %v", followErr)
		}
		if _, err := c.ListRuns(ctx, agent, client.RunListOptions{Status: "bogus"}); !errors.Is(err, client.ErrUnprocessable) {
			t.Fatalf("bad status filter: %v", err)
		}
	})
}

// recordingTransport cuts the first connection of a run stream after
// `cutAfter` complete events, as a proxy or a network drop would, and
// records every stream request it sends.
type recordingTransport struct {
	cutAfter int

	mu      sync.Mutex
	streams []streamRequest
}

type streamRequest struct{ lastEventID, body string }

var errCut = errors.New("test: connection cut")

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(r.URL.Path, "/runs/stream") {
		return http.DefaultTransport.RoundTrip(r)
	}
	body := ""
	if r.GetBody != nil {
		rc, _ := r.GetBody()
		b, _ := io.ReadAll(rc)
		body = string(b)
	}
	rt.mu.Lock()
	first := len(rt.streams) == 0
	rt.streams = append(rt.streams, streamRequest{r.Header.Get("Last-Event-ID"), body})
	rt.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && first && rt.cutAfter > 0 {
		resp.Body = &cutBody{rc: resp.Body, left: rt.cutAfter}
	}
	return resp, err
}

func (rt *recordingTransport) requests() []streamRequest {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]streamRequest(nil), rt.streams...)
}

// cutBody passes `left` complete events (each ends with a blank line), then
// fails every read, like a connection reset.
type cutBody struct {
	rc     io.ReadCloser
	left   int
	prevNL bool
	cut    bool
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.cut {
		return 0, errCut
	}
	n, err := b.rc.Read(p)
	for i := 0; i < n; i++ {
		if p[i] != '\n' {
			b.prevNL = false
			continue
		}
		if b.prevNL {
			b.prevNL = false
			if b.left--; b.left == 0 {
				b.cut = true
				b.rc.Close()
				return i + 1, nil
			}
			continue
		}
		b.prevNL = true
	}
	return n, err
}

func (b *cutBody) Close() error { return b.rc.Close() }

func TestStreamRunResumesAfterADrop(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		agent := makeAgent(t, ts, streamDef)
		rt := &recordingTransport{cutAfter: 5} // init and four run events
		c := newRunClient(t, ts, client.WithHTTPClient(&http.Client{Transport: rt}))

		var evs []client.RunEvent
		for ev, err := range c.StreamRun(ctx, agent, client.AgentRunRequest{Input: "Please.", Metadata: map[string]any{"lang": "en"}}) {
			if err != nil {
				t.Fatalf("after %d events: %v", len(evs), err)
			}
			evs = append(evs, ev)
		}
		if len(evs) < 8 || evs[0].Type != client.EventInit || evs[0].Snapshot == nil || !evs[0].Snapshot.Priority {
			t.Fatalf("events: %+v", evs)
		}
		runID := evs[0].RunID
		var tokens strings.Builder
		for i, ev := range evs {
			// No gap and no repeat across the drop: 0 (init), 1, 2, …
			if ev.Seq != int64(i) || ev.RunID != runID || ev.ID != fmt.Sprintf("%s:%d", runID, i) {
				t.Fatalf("event %d is %s %q (seq %d): the sequence has a gap or a repeat", i, ev.Type, ev.ID, ev.Seq)
			}
			if ev.Type == client.EventStreamToken {
				tokens.WriteString(ev.Token)
			}
		}
		last := evs[len(evs)-1]
		if last.Type != client.EventDone || last.Snapshot == nil || last.Snapshot.Status != client.RunCompleted {
			t.Fatalf("last event: %+v", last)
		}
		if tokens.Len() == 0 || last.Snapshot.OutputText() != tokens.String() {
			t.Fatalf("streamed %q, output %q", tokens.String(), last.Snapshot.OutputText())
		}
		// One cut, one resume: the same run continued after the fifth event
		// (seq 4), with the body ignored, and no second run started.
		reqs := rt.requests()
		if len(reqs) != 2 || reqs[0].lastEventID != "" || !strings.Contains(reqs[0].body, `"input":"Please."`) ||
			strings.Contains(reqs[0].body, "priority") || reqs[1].lastEventID != runID+":4" || reqs[1].body != "{}" {
			t.Fatalf("stream requests: %+v", reqs)
		}
		if p, err := c.ListRuns(ctx, agent, client.RunListOptions{}); err != nil || p.Total != 1 {
			t.Fatalf("the resume started another run: %+v, %v", p, err)
		}

		// RunAndWait follows a stream to its end, across a drop too.
		rt2 := &recordingTransport{cutAfter: 2}
		c2 := newRunClient(t, ts, client.WithHTTPClient(&http.Client{Transport: rt2}))
		snap, err := c2.RunAndWait(ctx, agent, client.AgentRunRequest{Input: "Again."})
		if err != nil || snap.Status != client.RunCompleted || snap.OutputText() == "" || !snap.Priority {
			t.Fatalf("RunAndWait = %+v, %v", snap, err)
		}
		if reqs := rt2.requests(); len(reqs) != 2 || !strings.HasSuffix(reqs[1].lastEventID, ":1") {
			t.Fatalf("RunAndWait stream requests: %+v", reqs)
		}

		// Refusals come back as typed errors before any event.
		if _, err := c.RunAndWait(ctx, store.NewID(), client.AgentRunRequest{Input: "x"}); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("stream of an unknown agent: %v", err)
		}
	})
}

// slowHook is a webhook receiver on loopback that holds every request until
// the test ends, so a run calling it stays processing.
func slowHook(t *testing.T) (string, <-chan struct{}) {
	t.Helper()
	arrived := make(chan struct{}, 10)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL, arrived
}

func allowPrivateWebhooks(c *server.Config) { c.AllowPrivateWebhooks = true }

func TestCancelRunWhileProcessing(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d, allowPrivateWebhooks)
		c := newRunClient(t, ts)
		hook, arrived := slowHook(t)
		agent := makeAgent(t, ts, `{"child_steps":[{"id":"call","step_type":"webhook_call","url":"`+hook+`","timeout_seconds":60}]}`)
		run, err := c.StartRun(ctx, agent, client.AgentRunRequest{Input: "slow"})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-arrived:
		case <-time.After(20 * time.Second):
			t.Fatal("the run never called the webhook")
		}
		snap, err := c.GetRun(ctx, run.RunID, false)
		if err != nil || snap.Status != client.RunProcessing {
			t.Fatalf("before cancelling: %+v, %v", snap, err)
		}
		if _, err := c.CancelRun(ctx, run.RunID); err != nil {
			t.Fatal(err)
		}
		done, err := c.PollRun(ctx, run.RunID, 20*time.Millisecond, 20*time.Second)
		if err != nil || done.Status != client.RunFailed || done.LastError() != "Run cancelled" {
			t.Fatalf("after cancelling: %+v (%q), %v", done, done.LastError(), err)
		}
		if _, err := c.CancelRun(ctx, run.RunID); !errors.Is(err, client.ErrConflict) {
			t.Fatalf("cancelling it again: %v", err)
		}
		// A poll that runs out of time says so, with the last snapshot.
		other, err := c.StartRun(ctx, agent, client.AgentRunRequest{Input: "slow"})
		if err != nil {
			t.Fatal(err)
		}
		last, err := c.PollRun(ctx, other.RunID, 10*time.Millisecond, 100*time.Millisecond)
		if !errors.Is(err, client.ErrPollTimeout) || last == nil || client.RunTerminal(last.Status) {
			t.Fatalf("poll timeout: %+v, %v", last, err)
		}
	})
}

func TestDownloadRunAttachment(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c := newRunClient(t, ts)
		agent := makeAgent(t, ts, chainDef)
		run, err := runs.NewRepo(ts.DB, nil).CreateRun(ctx, runs.Run{AccountID: ts.AccountID, AgentID: agent})
		if err != nil {
			t.Fatal(err)
		}
		payload := bytes.Repeat([]byte("chart "), 50_000)
		key := "runs/" + run.ID + "/chart.png"
		if _, err := ts.S.Blobs.Put(ctx, key, "image/png", bytes.NewReader(payload)); err != nil {
			t.Fatal(err)
		}
		if err := runs.NewRepo(ts.DB, nil).AddRunAttachment(ctx, runs.RunAttachment{StorageKey: key, RunID: run.ID, AccountID: ts.AccountID,
			Name: "chart.png", ContentType: "image/png", Size: int64(len(payload))}); err != nil {
			t.Fatal(err)
		}
		dl, err := c.DownloadRunAttachment(ctx, run.ID, client.RunAttachmentID(key))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(dl.Body)
		dl.Close()
		if err != nil || !bytes.Equal(got, payload) || dl.FileName != "chart.png" || dl.ContentType != "image/png" || dl.ContentLength != int64(len(payload)) {
			t.Fatalf("download: %d bytes, %+v, %v", len(got), dl, err)
		}
		dl, err = c.DownloadRunAttachment(ctx, run.ID, client.RunAttachmentID(key), client.WithQuery(url.Values{"download_name": {"renamed.png"}}))
		if err != nil || dl.FileName != "renamed.png" {
			t.Fatalf("download_name: %+v, %v", dl, err)
		}
		dl.Close()
		if _, err := c.DownloadRunAttachment(ctx, run.ID, client.RunAttachmentID("runs/nope")); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("unknown attachment: %v", err)
		}
		other := ts.NewTenant(t, "other")
		oc, _ := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(other.Key))
		if _, err := oc.DownloadRunAttachment(ctx, run.ID, client.RunAttachmentID(key)); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("another account's attachment: %v", err)
		}
	})
}
