package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store/storetest"
)

// The runs area's benchmarks. Each reports the p50 and p95 latency of one
// page (or one event) as p50-ms and p95-ms, measured from the browser's
// side over a loopback socket: the console, its in-process API calls and
// the database together. The machine these run on may be shared: read the
// figures with its load. For example:
//
//	go test -run '^$' -bench 'RunsListPage|RunPage200|RunPageFirstEvent' -benchtime 200x ./internal/web/
//
// (SERVICE_TEST_DATABASE_URL set runs them on PostgreSQL too.)

// reportLatency adds the p50 and p95 of durations to the benchmark.
func reportLatency(b *testing.B, durations []time.Duration) {
	b.Helper()
	if len(durations) == 0 {
		return
	}
	slices.Sort(durations)
	at := func(p float64) float64 {
		i := min(int(float64(len(durations))*p+0.999999)-1, len(durations)-1)
		return float64(durations[max(i, 0)].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.95), "p95-ms")
}

// timedGet reads a page and returns how long it took; the page must be a
// 200 with want in it.
func timedGet(b *testing.B, br *browser, path, want string) time.Duration {
	b.Helper()
	req, err := http.NewRequest(http.MethodGet, br.srv.URL+path, nil)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	resp, err := br.hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
		b.Fatalf("%s: %d %v", path, resp.StatusCode, err)
	}
	return took
}

// BenchmarkRunsListPage renders /console/runs of an account with 100,000
// runs over 7 days across 4 agents: the first page, a filtered one, and a
// page deep in the list (by cursor), in turn.
func BenchmarkRunsListPage(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := start(b, d)
			var agents []string
			for i := range 4 {
				agents = append(agents, srv.StoreAgent(b, srv.AccountID, fmt.Sprintf("Agent %d", i), showDef, "dynamic_input"))
			}
			ids := storetest.SeedRuns(b, srv.DB, srv.AccountID, agents, 100_000, time.Now(), 7*24*time.Hour)
			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			paths := []string{"/console/runs", "/console/runs?status=failed&since=24h", "/console/runs?agent=" + agents[2] + "&cursor=" + ids[len(ids)/2]}
			var durations []time.Duration
			b.ResetTimer()
			for i := range b.N {
				durations = append(durations, timedGet(b, br, paths[i%len(paths)], "runs-table"))
			}
			b.StopTimer()
			reportLatency(b, durations)
		})
	}
}

// BenchmarkRunPage200Steps renders the page of a finished run of 200 steps.
func BenchmarkRunPage200Steps(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := start(b, d)
			var steps []string
			for i := range 200 {
				steps = append(steps, fmt.Sprintf(`{"id":"s%03d","step_type":"display_result","template":"step %d of {{input}}"}`, i, i))
			}
			agent := srv.StoreAgent(b, srv.AccountID, "Long", `{"child_steps":[`+strings.Join(steps, ",")+`]}`, "dynamic_input")
			api := apiClient(b, srv, srv.Key)
			run, err := api.RunAndWait(context.Background(), agent, client.AgentRunRequest{Input: `{"order":42,"lines":["a","b"]}`})
			if err != nil || run.Status != client.RunCompleted {
				b.Fatal(run, err)
			}
			full, err := api.GetRun(context.Background(), run.RunID, true)
			if err != nil || len(full.Steps) != 200 {
				b.Fatalf("%d steps, %v", len(full.Steps), err)
			}
			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			var durations []time.Duration
			b.ResetTimer()
			for range b.N {
				durations = append(durations, timedGet(b, br, "/console/runs/"+run.RunID, "s199"))
			}
			b.StopTimer()
			reportLatency(b, durations)
		})
	}
}

// BenchmarkRunPageFirstEvent measures, on an open run page's event stream,
// the time from a commit that moves the run (a review approved) to the
// page's next event arriving, counted from the start of the API call that
// commits (so the call's own time is included: an upper bound).
// Each iteration parks a new run on a review, connects, waits for the
// stream's catch-up, then approves.
func BenchmarkRunPageFirstEvent(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := start(b, d)
			ctx := context.Background()
			api := apiClient(b, srv, srv.Key)
			agent := srv.StoreAgent(b, srv.AccountID, "Publisher", reviewDef, "dynamic_input")
			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			var durations []time.Duration
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				run, err := api.StartRun(ctx, agent, client.AgentRunRequest{Input: "x"})
				if err != nil {
					b.Fatal(err)
				}
				waitStatus(b, api, run.RunID, client.RunWaitingHuman)
				b.StartTimer()
				var committed time.Time
				readEvents(b, br, run.RunID, "", func(ev sseEvent) bool {
					if committed.IsZero() {
						if ev.Type == "timeline" && strings.Contains(ev.Data, "waiting_human") {
							// From before the call: the commit happens within it,
							// so this bounds the delay from above.
							committed = time.Now()
							if _, err := api.DecideReview(ctx, run.RunID, client.ReviewDecisionRequest{Decision: client.DecisionApprove}); err != nil {
								b.Fatal(err)
							}
						}
						return true
					}
					durations = append(durations, time.Since(committed))
					return false
				})
			}
			b.StopTimer()
			reportLatency(b, durations)
		})
	}
}
