package web_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/store/storetest"
)

// The evaluations and governance pages, at a realistic size: 100 agents,
// one of them with 10,000 evaluation results over the last 30 days (a
// third failed), and 2,000 recorded flags and blocks. p50 and p95 of each
// page as in runs_bench_test.go:
//
//	go test -run '^$' -bench 'EvaluationsPages' -benchtime 100x ./internal/web/
//
// (SERVICE_TEST_DATABASE_URL set runs them on PostgreSQL too.)
func BenchmarkEvaluationsPages(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := start(b, d)
			ctx := context.Background()
			api := apiClient(b, srv, srv.Key)
			for i := range 99 {
				srv.StoreAgent(b, srv.AccountID, fmt.Sprintf("Agent %02d", i), showDef, "dynamic_input")
			}
			agent := srv.StoreAgent(b, srv.AccountID, "Greeter", showDef, "dynamic_input")
			crit, err := api.CreateEvaluationCriteria(ctx, agent, client.EvaluationCriteriaInput{StepID: "greet", ExpectationConfig: []byte(`{"contains": ["hello"]}`)})
			if err != nil {
				b.Fatal(err)
			}
			var runs []string
			for i := range 20 {
				r, err := api.RunAndWait(ctx, agent, client.AgentRunRequest{Input: fmt.Sprint(i)})
				if err != nil {
					b.Fatal(err)
				}
				runs = append(runs, r.RunID)
			}
			// The results, as a harness pushes them, straight into the store
			// (10,000 API calls would only slow the set-up).
			const n = 10_000
			now := time.Now().UTC()
			for i := range n {
				status, score := "passed", 1.0
				if i%3 == 0 {
					status, score = "failed", 0
				}
				if _, err := srv.S.Evals.StoreResult(ctx, evals.EvaluationResult{AccountID: srv.AccountID, AgentID: agent, CriteriaID: crit.ID,
					AgentRunID: runs[i%len(runs)], StepID: "greet", EvaluationMode: "manual", Status: status, Score: &score,
					Details:     []byte(`{"explanation": "The greeting does not say hello."}`),
					EvaluatedAt: now.Add(-time.Duration(n-i) * 30 * 24 * time.Hour / n)}); err != nil {
					b.Fatal(err)
				}
			}
			seedViolations(b, srv, agent, 2_000)
			settle(b, srv.DB)
			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			benchPages(b, br, []struct{ name, path, want string }{
				{"list", "/console/evaluations", "Agent 98"},
				{"agent", "/console/evaluations/" + agent, "pass-rate"},
				{"failures-page-50", "/console/evaluations/" + agent + "?page=50", "pass-rate"},
				{"governance", "/console/governance", "Flagged and blocked runs"},
			})
		})
	}
}
