package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// The solutions area's and the search page's benchmarks, reported as p50
// and p95 milliseconds (reportLatency, runs_bench_test.go), measured from
// the browser's side over a loopback socket. For example:
//
//	go test -run '^$' -bench 'SolutionsListPage|SolutionPage|SolutionPlanPage|SearchPage' -benchtime 100x ./internal/web/
//
// The account they read is a busy one: 500 solutions, 2,000 agents, and
// the solution shown groups 100 agents, 20 knowledge bases over 20 sources
// and has 500 assistant turns.

// seedSolutions fills the account and returns the busy solution's id.
func seedSolutions(b testing.TB, srv *testserver.Server) string {
	b.Helper()
	ctx := context.Background()
	api := apiClient(b, srv, srv.Key)
	var agents []string
	for i := range 2000 {
		agents = append(agents, srv.StoreAgent(b, srv.AccountID, fmt.Sprintf("Harbour agent %04d", i), showDef, "dynamic_input"))
	}
	var busy string
	for i := range 500 {
		s, err := api.CreateSolution(ctx, fmt.Sprintf("Harbour solution %03d", i), "tides, ships and the weather at the quay")
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			busy = s.ID
		}
	}
	if _, err := api.LinkSolutionResources(ctx, busy, client.SolutionAgents, agents[:100]); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		src, err := api.CreateSource(ctx, client.CreateSourceRequest{Name: fmt.Sprintf("Manuals %02d", i), SourceType: "custom_index"})
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("Manuals index %02d", i)
		kb, err := api.CreateKnowledgeBase(ctx, client.KnowledgeBaseRequest{Name: &name, SourceIDs: &[]string{src.ID}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := api.LinkSolutionResources(ctx, busy, client.SolutionSourceConnections, []string{src.ID}); err != nil {
			b.Fatal(err)
		}
		if _, err := api.LinkSolutionResources(ctx, busy, client.SolutionKnowledgeBases, []string{kb.ID}); err != nil {
			b.Fatal(err)
		}
	}
	answer := "A plan of three actions."
	for i := range 500 {
		if _, err := api.AddSolutionConversation(ctx, busy, client.AddConversationTurnRequest{UserInput: fmt.Sprintf("Request %d: summarise the tides", i), AIResponse: &answer}); err != nil {
			b.Fatal(err)
		}
	}
	return busy
}

// benchSolutions runs one page's benchmark on both databases.
func benchSolutions(b *testing.B, each func(b *testing.B, br *browser, busy string, i int) time.Duration) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := start(b, d)
			busy := seedSolutions(b, srv)
			settle(b, srv.DB)
			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			br.get("/console/solutions") // the CSRF token, for the POSTs
			var durations []time.Duration
			b.ResetTimer()
			for i := range b.N {
				durations = append(durations, each(b, br, busy, i))
			}
			b.StopTimer()
			reportLatency(b, durations)
		})
	}
}

// BenchmarkSolutionsListPage: the list's first page, a search, a later page.
func BenchmarkSolutionsListPage(b *testing.B) {
	paths := []string{"/console/solutions", "/console/solutions?q=solution+04", "/console/solutions?page=7"}
	benchSolutions(b, func(b *testing.B, br *browser, _ string, i int) time.Duration {
		return timedGet(b, br, paths[i%len(paths)], "solutions-table")
	})
}

// BenchmarkSolutionPage: the busy solution's page.
func BenchmarkSolutionPage(b *testing.B) {
	benchSolutions(b, func(b *testing.B, br *browser, busy string, _ int) time.Duration {
		return timedGet(b, br, "/console/solutions/"+busy, "Manuals index 19")
	})
}

// BenchmarkSolutionPlanPage: describing what is wanted in the busy
// solution and reading the plan (the built-in planner, which validates
// the plan against the account's resources).
func BenchmarkSolutionPlanPage(b *testing.B) {
	benchSolutions(b, func(b *testing.B, br *browser, busy string, _ int) time.Duration {
		return timedFormPost(b, br, "/console/solutions/"+busy+"/plan",
			url.Values{"user_input": {"Answer customer questions from the product manuals I upload"}}, "accept-plan")
	})
}

// BenchmarkSearchPage: the header's search matching hundreds of resources
// of two types (50 shown) and the documentation, in keyword and semantic
// mode in turn.
func BenchmarkSearchPage(b *testing.B) {
	paths := []string{"/console/search?q=harbour", "/console/search?q=harbour+agent+01&mode=semantic", "/console/search?q=schedules&type=agent"}
	benchSolutions(b, func(b *testing.B, br *browser, _ string, i int) time.Duration {
		return timedGet(b, br, paths[i%len(paths)], "docs-results")
	})
}

// timedFormPost submits a form and returns how long it took; the answer must
// be a 200 with want in it.
func timedFormPost(b *testing.B, br *browser, path string, form url.Values, want string) time.Duration {
	b.Helper()
	form.Set("csrf", br.csrf)
	req, err := http.NewRequest(http.MethodPost, br.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	start := time.Now()
	resp, err := br.hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
		b.Fatalf("%s: %d %v\n%.2000s", path, resp.StatusCode, err, body)
	}
	return took
}
