package telemetry_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/telemetry/otlptest"
	"github.com/agentry/agentry/internal/testserver"
)

// blockingHook holds its first request until the caller gives up, and
// answers every later one at once.
type blockingHook struct {
	mu    sync.Mutex
	calls int
	first chan struct{}
}

func (h *blockingHook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	h.mu.Lock()
	h.calls++
	n := h.calls
	h.mu.Unlock()
	if n == 1 {
		close(h.first)
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
		return
	}
	io.WriteString(w, "hooked")
}

// startWorker runs a worker replica named node on database url; stop
// shuts it down as SIGTERM would, its running jobs cancelled after 100 ms.
func startWorker(t *testing.T, url, node string) (stop func()) {
	t.Helper()
	cfg := server.Defaults()
	cfg.Addr, cfg.DataDir, cfg.DatabaseURL, cfg.Role, cfg.NodeName = "127.0.0.1:0", t.TempDir(), url, server.RoleWorker, node
	cfg.AllowPrivateWebhooks, cfg.DNSResolver, cfg.BootstrapAPIKey = true, "127.0.0.1:1", testserver.BootstrapKey
	cfg.ShutdownTimeout, cfg.JobShutdownTimeout = 2*time.Second, 100*time.Millisecond
	s, err := server.New(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("worker %s: %v", node, err)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("worker %s did not stop", node)
		}
	})
	t.Cleanup(stop)
	return stop
}

// TestRunTraceAcrossReplicas: a run started on an API replica, executed
// by worker B, parked for a review, decided on the API replica, resumed
// on B, interrupted there mid-step (B shuts down) and finished by worker
// C is one trace: the API replica's request span its root, one
// invoke_agent span (sent by C, which ended it) under it, and the steps
// and jobs of B and C under that span.
func TestRunTraceAcrossReplicas(t *testing.T) {
	recv := otlptest.Start(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		traceTo(t, recv, "http/protobuf")
		hook := &blockingHook{first: make(chan struct{})}
		hs := httptest.NewServer(hook)
		defer hs.Close()
		url := storetest.URL(t, d)
		api := testserver.Start(t, d, func(c *server.Config) { c.DatabaseURL, c.Role, c.NodeName = url, server.RoleAPI, "replica-api" })
		agent := api.StoreAgent(t, api.AccountID, "Publisher", `{"child_steps":[{"id":"review","step_type":"human_in_the_loop","instructions":"Publish {{input}}?","child_steps":[
			{"id":"hook","step_type":"webhook_call","url":"`+hs.URL+`","child_steps":[
			{"id":"show","step_type":"display_result","template":"published: {{input}}"}]}]}]}`, "dynamic_input")
		runID := startRun(t, api, agent, "draft")
		stopB := startWorker(t, url, "replica-b")
		if snap := waitRun(t, api, runID); snap.Status != runs.RunWaitingHuman {
			t.Fatalf("run %s, want waiting_human", snap.Status)
		}
		wantStatus(t, api.Do(t, "POST", "/agents/runs/"+runID+"/reviews/decision", api.Key, map[string]any{"decision": "approve"}), http.StatusOK)
		select {
		case <-hook.first:
		case <-time.After(30 * time.Second):
			t.Fatal("the webhook was never called")
		}
		stopB() // mid-step: the job is cancelled and left for another replica
		startWorker(t, url, "replica-c")
		snap := waitRun(t, api, runID)
		if snap.Status != runs.RunCompleted || snap.TraceID == "" {
			t.Fatalf("run %s, trace %q", snap.Status, snap.TraceID)
		}

		var run otlptest.Span
		spans := recv.WaitTrace(t, snap.TraceID, 20*time.Second, func(ss []otlptest.Span) bool {
			for _, s := range ss {
				if strings.HasPrefix(s.Name, "invoke_agent") {
					run = s
				}
			}
			// C's job ends after the run span it sent.
			return run.SpanID != "" && len(otlptest.Named(ss, "step show")) == 1 && len(otlptest.Named(ss, "step hook")) == 2 &&
				len(otlptest.Named(ss, "job agent_run")) >= 3
		})
		node := func(s otlptest.Span) any { return s.Resource["service.instance.id"] }
		if n := len(otlptest.Named(spans, run.Name)); n != 1 {
			t.Errorf("%d run spans, want 1", n)
		}
		if run.Name != "invoke_agent Publisher" || run.Attrs["agentry.run.id"] != runID || run.Attrs["agentry.run.status"] != "completed" || node(run) != "replica-c" {
			t.Errorf("run span %q from %v: %v", run.Name, node(run), run.Attrs)
		}
		req := otlptest.One(t, spans, "POST /agents/{agent_id}/runs")
		if req.ParentID != "" || node(req) != "replica-api" || run.ParentID != req.SpanID {
			t.Errorf("request span (parent %q, from %v) %s; run span under %s", req.ParentID, node(req), req.SpanID, run.ParentID)
		}
		// The run's span covers its life: from its creation to its end.
		if run.Start.After(req.End) || run.End.Before(run.Start.Add(time.Millisecond)) {
			t.Errorf("run span from %v to %v; request ended %v", run.Start, run.End, req.End)
		}
		steps := map[string][]any{}
		for _, s := range spans {
			if strings.HasPrefix(s.Name, "step ") {
				if s.ParentID != run.SpanID {
					t.Errorf("%s from %v is under %s, not the run", s.Name, node(s), s.ParentID)
				}
				steps[s.Name] = append(steps[s.Name], node(s))
			}
		}
		if got := steps["step hook"]; len(got) != 2 || got[0] == got[1] {
			t.Errorf("the interrupted step's attempts ran on %v, want B then C", got)
		}
		if got := steps["step show"]; len(got) != 1 || got[0] != "replica-c" {
			t.Errorf("step show ran on %v", got)
		}
		if got := steps["step review"]; len(got) < 2 || got[0] != "replica-b" {
			t.Errorf("the review step ran on %v, want B (parked, then decided)", got)
		}
		jobs := map[any]int{}
		for _, j := range otlptest.Named(spans, "job agent_run") {
			if j.ParentID != run.SpanID {
				t.Errorf("job span from %v under %s, not the run", node(j), j.ParentID)
			}
			jobs[node(j)]++
		}
		if jobs["replica-b"] < 2 || jobs["replica-c"] < 1 {
			t.Errorf("the run's jobs by replica: %v (want B's first and resumed, C's)", jobs)
		}
		// The decision was a request to the API replica, in the trace of
		// its own; the resumed job hangs under the run all the same.
		for _, s := range spans {
			if s.TraceID != snap.TraceID {
				t.Errorf("span %s in trace %s", s.Name, s.TraceID)
			}
		}
	})
}
