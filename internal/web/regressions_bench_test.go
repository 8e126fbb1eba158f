package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// BenchmarkRegressionReportPage renders the report of a finished
// regression over 100 recorded runs (its most, 10 of them changed, shown
// side by side) and the agent's regressions list; p50 and p95 as in
// runs_bench_test.go. For example:
//
//	go test -run '^$' -bench RegressionReportPage -benchtime 100x ./internal/web/
func BenchmarkRegressionReportPage(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := testserver.Start(b, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
			hook, _ := regressionHook(b)
			api := apiClient(b, srv, srv.Key)
			inputs := make([]string, 100)
			for i := range inputs {
				inputs[i] = fmt.Sprintf("question %d", i)
			}
			agent, _ := recordedAgent(b, srv, api, hook.URL, "/v2", inputs...)
			reg, err := api.StartRegression(context.Background(), agent, client.RegressionRequest{LastRuns: 100})
			if err != nil {
				b.Fatal(err)
			}
			if done := waitRegressionEnd(b, api, agent, reg.RegressionID); done.Report.Changed != 10 {
				b.Fatalf("report: %+v", done.Report)
			}
			settle(b, srv.DB)
			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			base := "/console/agents/" + agent + "/regressions"
			for _, page := range []struct{ name, path, want string }{
				{"report", base + "/" + reg.RegressionID, "wrong-question 90"},
				{"list", base, reg.RegressionID},
			} {
				b.Run(page.name, func(b *testing.B) {
					var durations []time.Duration
					for b.Loop() {
						durations = append(durations, timedGet(b, br, page.path, page.want))
					}
					reportLatency(b, durations)
				})
			}
			// The API's answer alone, over the same socket: what the
			// report page costs beyond it is the console's.
			b.Run("api", func(b *testing.B) {
				var durations []time.Duration
				for b.Loop() {
					start := time.Now()
					if _, err := api.GetRegression(context.Background(), agent, reg.RegressionID); err != nil {
						b.Fatal(err)
					}
					durations = append(durations, time.Since(start))
				}
				reportLatency(b, durations)
			})
		})
	}
}
