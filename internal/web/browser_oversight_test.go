package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/chromedp/chromedp"
)

// TestBrowserOversight drives the oversight areas in chromium with the
// CSP in force: a memory bank is compacted from its page — the dry run
// first, then for real — its entries browsed (the summary among them,
// then searched, then one key's), and the evaluations and governance pages render
// (with the pass-rate chart as SVG), for the docs' screenshots.
func TestBrowserOversight(t *testing.T) {
	exe := chromium(t)
	srv := testserver.Start(t, store.SQLite)
	ctx := context.Background()
	api := apiClient(t, srv, srv.Key)
	// Under the threshold until the dry run is checked, so no sweep
	// compacts it meanwhile; lowered before compacting for real.
	turns := 20
	bank, err := api.CreateMemoryBank(ctx, client.CreateMemoryBankRequest{Name: "Support conversations", Type: "conversation", MaxTurns: &turns})
	if err != nil {
		t.Fatal(err)
	}
	addTurns(t, srv, srv.AccountID, bank.ID, "cust-ada", 14)

	shots := screenshotDir(t)
	b := browserContext(t, exe, 1280, 900)
	do(t, b, "sign in",
		chromedp.Navigate(srv.URL+"/console/signin"),
		chromedp.WaitVisible(css(`#api_key`)),
		chromedp.SendKeys(css(`#api_key`), srv.Key),
		chromedp.Submit(css(`#api_key`)),
		chromedp.WaitVisible(css(`nav.menu`)),
	)
	do(t, b, "open the bank from the list",
		chromedp.Navigate(srv.URL+"/console/memory"),
		chromedp.WaitVisible(css(`a[href="/console/memory/`+bank.ID+`"]`)),
		shoot(shots, "memory.png"),
		chromedp.Click(css(`a[href="/console/memory/`+bank.ID+`"]`)),
		chromedp.WaitVisible(css(`#bank-stats .stats`)),
	)
	if n := run(t, b, chromedp.Evaluate[int](`document.querySelectorAll('form[action*="/compact"]').length`)); n != 0 {
		t.Fatal("the real compaction is offered before the dry run")
	}
	do(t, b, "dry run",
		chromedp.Click(css(`form[action*="/dry-run"] button`)),
		chromedp.WaitVisible(css(`#dry-run .summary`)),
		shoot(shots, "memory-dry-run.png"),
	)
	if s := run(t, b, chromedp.Text(css(`#dry-run .summary`))); !strings.Contains(s, "Berlin") {
		t.Fatalf("the dry run's summary: %q", s)
	}
	if st, _ := api.MemoryBankStats(ctx, bank.ID, client.MemoryBankStatsOptions{}); st["summary_entries"] != float64(0) {
		t.Fatalf("the dry run wrote: %v", st)
	}
	ten := 10
	if _, err := api.UpdateMemoryBank(ctx, bank.ID, client.UpdateMemoryBankRequest{MaxTurns: &ten}); err != nil {
		t.Fatal(err)
	}
	do(t, b, "compact for real",
		chromedp.Click(css(`form[action*="/compact"] button`)),
		chromedp.WaitVisible(css(`p.flash`)),
	)
	if s := run(t, b, chromedp.Text(css(`p.flash`))); !strings.Contains(s, "Compaction queued") {
		t.Fatalf("after compacting: %q", s)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := api.MemoryBankStats(ctx, bank.ID, client.MemoryBankStatsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := st["summary_entries"].(float64); n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no summary after compacting: %v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	do(t, b, "the bank after compaction",
		chromedp.Navigate(srv.URL+"/console/memory/"+bank.ID),
		chromedp.WaitVisible(css(`#bank-stats .stats`)),
		shoot(shots, "memory-bank.png"),
	)
	do(t, b, "browse the compacted bank's entries",
		chromedp.Click(css(`#browse a[href="/console/memory/`+bank.ID+`/entries"]`)),
		chromedp.WaitVisible(css(`#entries .entry`)),
		shoot(shots, "memory-entries.png"),
	)
	if n := run(t, b, chromedp.Evaluate[int](`document.querySelectorAll('#entries .entry.summary').length`)); n != 1 {
		t.Fatalf("the entries page shows %d summaries, want compaction's one", n)
	}
	do(t, b, "search, then open the key",
		chromedp.SendKeys(css(`#entries-q`), "4413"),
		chromedp.Submit(css(`#entries-q`)),
		chromedp.WaitVisible(css(`#entries-q[value="4413"]`)),
	)
	if s := run(t, b, chromedp.Text(css(`#entries`))); !strings.Contains(s, "Turn 13:") || strings.Contains(s, "Turn 12:") {
		t.Fatalf("the search for 4413 shows: %q", s)
	}
	do(t, b, "the key's entries",
		chromedp.Click(css(`#entries .entry a[href*="key=cust-ada"]`)),
		chromedp.WaitReady(css(`#entries-search input[name="key"]`)),
	)
	if s := run(t, b, chromedp.Text(css(`h1`))); !strings.Contains(s, "cust-ada") {
		t.Fatalf("the key's page is titled %q", s)
	}

	// Evaluations and governance, for their screenshots.
	agent := srv.StoreAgent(t, srv.AccountID, "Greeter", showDef, "dynamic_input")
	crit, err := api.CreateEvaluationCriteria(ctx, agent, client.EvaluationCriteriaInput{StepID: "greet", ExpectationConfig: []byte(`{"contains": ["goodbye"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range []string{"Ada", "Bob", "Cy"} {
		r, err := api.RunAndWait(ctx, agent, client.AgentRunRequest{Input: in})
		if err != nil {
			t.Fatal(err)
		}
		status := "passed"
		if i == 1 {
			status = "failed"
		}
		if _, err := api.CreateEvaluationResult(ctx, crit.ID, client.EvaluationResultInput{AgentRunID: r.RunID, Status: status,
			Details: map[string]any{"explanation": "The greeting never says goodbye."}}); err != nil {
			t.Fatal(err)
		}
	}
	do(t, b, "evaluations",
		chromedp.Navigate(srv.URL+"/console/evaluations/"+agent),
		chromedp.WaitVisible(css(`#pass-rate svg.chart`)),
		shoot(shots, "evaluations.png"),
	)
	name := "No personal data"
	if _, err := api.CreateGovernancePolicy(ctx, client.GovernancePolicyInput{Name: &name,
		Config: []byte(`{"action":"block","rules":[{"type":"pii","kinds":["email"]}]}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.RunAndWait(ctx, agent, client.AgentRunRequest{Input: "mail jane.doe@example.com"}); err != nil {
		t.Fatal(err)
	}
	do(t, b, "governance",
		chromedp.Navigate(srv.URL+"/console/governance"),
		chromedp.WaitVisible(css(`#violations table`)),
		shoot(shots, "governance.png"),
	)
	if s := run(t, b, chromedp.Text(css(`#violations`))); strings.Contains(s, "jane.doe") || !strings.Contains(s, "e-mail address") {
		t.Fatalf("the violations: %q", s)
	}
}
