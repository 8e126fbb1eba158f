package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// sseServer answers every POST with the given SSE body (or status).
func sseServer(t *testing.T, status int, body func(n int64) string) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if status != http.StatusOK {
			http.Error(w, `{"detail":"nope"}`, status)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, chunk := range strings.SplitAfter(body(n), "\n\n") {
			w.Write([]byte(chunk))
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func testTarget(name, url string, event func(string, string) (bool, bool, error)) *target {
	return &target{Name: name, Event: event, NewRequest: func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, "POST", url, strings.NewReader("{}"))
	}}
}

func agentryStream(output string) string {
	return "id: r:0\nevent: init\ndata: {\"status\":\"pending\"}\n\n" +
		"id: r:1\nevent: step_completed\ndata: {\"step_id\":\"prep\"}\n\n" +
		"id: r:2\nevent: done\ndata: {\"status\":\"completed\",\"output\":" + fmt.Sprintf("%q", output) + "}\n\n"
}

func langgraphStream(result string) string {
	return "event: metadata\ndata: {\ndata:   \"run_id\": \"x\"\ndata: }\n\n" +
		"event: values\ndata: {\"input\":\"q\"}\n\n" +
		"event: values\ndata: {\ndata:   \"input\": \"q\",\ndata:   \"result\": " + fmt.Sprintf("%q", result) + "\ndata: }\n\n"
}

func TestStreamRunCompletesOnBothServersEventShapes(t *testing.T) {
	ag, _ := sseServer(t, 200, func(int64) string { return agentryStream(wantOutput) })
	lg, _ := sseServer(t, 200, func(int64) string { return langgraphStream(wantOutput) })
	for _, tg := range []*target{testTarget("agentry", ag.URL, agentryEvent), testTarget("langgraph", lg.URL, langgraphEvent)} {
		r, err := streamRun(context.Background(), http.DefaultClient, tg)
		if err != nil {
			t.Fatalf("%s: %v", tg.Name, err)
		}
		if r.FirstEvent <= 0 || r.Total < r.FirstEvent {
			t.Errorf("%s: first event %v, total %v", tg.Name, r.FirstEvent, r.Total)
		}
	}
}

func TestStreamRunRefusesIncompleteOrWrongRuns(t *testing.T) {
	cases := map[string]struct {
		status int
		body   string
		event  func(string, string) (bool, bool, error)
		want   string
	}{
		"http error":            {500, "", agentryEvent, "HTTP 500"},
		"agentry wrong output":  {200, agentryStream("something else"), agentryEvent, "run ended completed"},
		"agentry failed run":    {200, "event: done\ndata: {\"status\":\"failed\",\"output\":null}\n\n", agentryEvent, "run ended failed"},
		"agentry no done":       {200, "event: init\ndata: {}\n\n", agentryEvent, "ended before the run completed"},
		"langgraph no result":   {200, "event: values\ndata: {\"input\":\"q\"}\n\n", langgraphEvent, "ended before the run completed"},
		"langgraph wrong":       {200, langgraphStream("nope"), langgraphEvent, `langgraph result "nope"`},
		"langgraph error event": {200, "event: error\ndata: {\"error\":\"boom\"}\n\n", langgraphEvent, "boom"},
	}
	for name, c := range cases {
		srv, _ := sseServer(t, c.status, func(int64) string { return c.body })
		_, err := streamRun(context.Background(), http.DefaultClient, testTarget(name, srv.URL, c.event))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
}

func TestDriveCountsCompletedRunsAndFailuresApart(t *testing.T) {
	// Every fifth run fails; the rest complete.
	srv, calls := sseServer(t, 200, func(n int64) string {
		if n%5 == 0 {
			return "event: done\ndata: {\"status\":\"failed\"}\n\n"
		}
		return agentryStream(wantOutput)
	})
	p := drive(context.Background(), srv.Client(), testTarget("agentry", srv.URL, agentryEvent), 4, 300*time.Millisecond)
	if p.Runs == 0 || p.Failed == 0 {
		t.Fatalf("runs %d, failed %d: want both", p.Runs, p.Failed)
	}
	if got := int64(p.Runs + p.Failed); got > calls.Load() {
		t.Errorf("%d runs counted for %d requests", got, calls.Load())
	}
	if p.RunsPerSec <= 0 || p.P50 <= 0 || p.P99 < p.P50 || p.FirstEvent <= 0 || p.Concurrency != 4 {
		t.Errorf("phase %+v", p)
	}
	if !strings.Contains(p.FirstError, "run ended failed") {
		t.Errorf("first error %q", p.FirstError)
	}
}

func TestPercentileIsNearestRank(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i))
	}
	if p := percentile(ds, .5); p != 50 {
		t.Errorf("p50 = %v, want 50", p)
	}
	if p := percentile(ds, .99); p != 99 {
		t.Errorf("p99 = %v, want 99", p)
	}
	if p := percentile([]time.Duration{7}, .99); p != 7 {
		t.Errorf("p99 of one = %v", p)
	}
	if p := percentile(nil, .5); p != 0 {
		t.Errorf("p50 of none = %v", p)
	}
}
