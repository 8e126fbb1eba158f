package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// The agents area's and the runs area's other pages, at a realistic size:
// an account of 2,000 agents, 100,000 runs over 7 days (about 14,000 in
// the overview's 24 hours), 10,000 alerts and 10 runs waiting for a human
// review. p50 and p95 of each page as in runs_bench_test.go:
//
//	go test -run '^$' -bench 'AgentsPages' -benchtime 100x ./internal/web/
//
// (SERVICE_TEST_DATABASE_URL set runs them on PostgreSQL too.)

// settle brings the planner's statistics up to date after bulk seeding,
// as PostgreSQL's autovacuum does within a minute of a bulk write: pages
// are read in a steady state, not in the seconds after an import, when
// PostgreSQL still plans for empty tables. (SQLite gathers no statistics
// unless told to, and the server never tells it: it is left as it runs.)
func settle(tb testing.TB, db *store.DB) {
	tb.Helper()
	if db.Dialect != store.Postgres {
		return
	}
	if _, err := db.W.ExecContext(context.Background(), `ANALYZE`); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkAgentsPages renders, each in its own sub-benchmark, the agents
// list (every agent, read 100 at a time, and a search over them), an
// agent's page, its workflow with the graph, the overview and the reviews
// waiting.
func BenchmarkAgentsPages(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := start(b, d)
			ctx := context.Background()
			var agents []string
			for i := range 2000 {
				agents = append(agents, srv.StoreAgent(b, srv.AccountID, fmt.Sprintf("Agent %04d", i), showDef, "dynamic_input"))
			}
			storetest.SeedRuns(b, srv.DB, srv.AccountID, agents[:4], 100_000, time.Now(), 7*24*time.Hour)
			seedAlerts(b, srv.DB, srv.AccountID, agents[:4], 10_000)
			api := apiClient(b, srv, srv.Key)
			reviewer := srv.StoreAgent(b, srv.AccountID, "Publisher", reviewDef, "dynamic_input")
			for i := range 10 {
				run, err := api.StartRun(ctx, reviewer, client.AgentRunRequest{Input: fmt.Sprint("post ", i)})
				if err != nil {
					b.Fatal(err)
				}
				waitStatus(b, api, run.RunID, client.RunWaitingHuman)
			}
			settle(b, srv.DB)
			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			benchPages(b, br, []struct{ name, path, want string }{
				{"list", "/console/agents", "Agent 1999"},
				{"search", "/console/agents?q=agent+19", "Agent 1999"},
				{"agent", "/console/agents/" + agents[7], "Save settings"},
				{"workflow", "/console/agents/" + agents[7] + "/workflow", "workflow-form"},
				{"overview", "/console/", "Runs per hour"},
				{"reviews", "/console/reviews", "Publish post 9?"},
			})
		})
	}
}
