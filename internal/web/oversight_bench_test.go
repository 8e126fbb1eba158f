package web_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/governance"
	"github.com/agentry/agentry/internal/memory"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// The oversight areas' page benchmarks, at realistic sizes: a memory bank
// of 100,000 entries over 1,000 conversation keys (and 25 more banks),
// an agent with 1,000 evaluation results (a third failed) and an account
// with 2,000 recorded flags and blocks. Each reports p50-ms and p95-ms of
// the page as a browser sees it over a loopback socket, cycling through
// the memory list, the bank's page and its stats panel (loaded after the
// page, as it adds up every entry), the agent's evaluations and the
// governance page:
//
//	go test -run '^$' -bench OversightPages -benchtime 200x ./internal/web/

// seedMemoryEntries writes n turns into a bank in one transaction, spread
// over keys conversation keys and the last 20 days (test data, written as
// add_chat_turn would write them, but in bulk).
func seedMemoryEntries(b *testing.B, db *store.DB, accountID, bankID string, n, keys int) {
	b.Helper()
	ctx := context.Background()
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO memory_entries (id, account_id, bank_id, partition_key, speaker, content, metadata,
		tags, tokens, summary, content_id, run_id, created_at) VALUES ($1,$2,$3,$4,$5,$6,'{}','[]',$7,FALSE,NULL,NULL,$8)`)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now().Add(-20 * 24 * time.Hour)
	for i := range n {
		speaker := [2]string{"user", "assistant"}[i%2]
		at := start.Add(time.Duration(i) * 20 * 24 * time.Hour / time.Duration(n)).UTC()
		if _, err := st.ExecContext(ctx, store.NewID(), accountID, bankID, fmt.Sprintf("customer-%04d", i%keys), speaker,
			fmt.Sprintf("Turn %d: the order %d was shipped to Berlin on Tuesday.", i, 10000+i), 14, at); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	// Written with SQL of its own: the bank's stat totals counted afresh.
	if err := memory.TestRows(db).RebuildMemoryStats(ctx, bankID); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkOversightPages(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := start(b, d)
			ctx := context.Background()
			api := apiClient(b, srv, srv.Key)
			turns := 500
			bank, err := api.CreateMemoryBank(ctx, client.CreateMemoryBankRequest{Name: "Support conversations", Type: "conversation", MaxTurns: &turns})
			if err != nil {
				b.Fatal(err)
			}
			for i := range 25 {
				if _, err := api.CreateMemoryBank(ctx, client.CreateMemoryBankRequest{Name: fmt.Sprintf("Bank %d", i)}); err != nil {
					b.Fatal(err)
				}
			}
			seedMemoryEntries(b, srv.DB, srv.AccountID, bank.ID, 100_000, 1_000)
			agent := seedEvaluations(b, srv, api, 1_000)
			seedViolations(b, srv, agent, 2_000)

			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			pages := []struct{ name, path, want string }{
				{"memory", "/console/memory", "Bank 24"},
				{"bank", "/console/memory/" + bank.ID, "Compaction"},
				{"bank-stats", "/console/memory/" + bank.ID + "/stats", "customer-"},
				{"evaluations", "/console/evaluations/" + agent, "pass-rate"},
				{"governance", "/console/governance", "Flagged and blocked runs"},
			}
			var durations []time.Duration
			perPage := map[string][]time.Duration{}
			b.ResetTimer()
			for i := range b.N {
				p := pages[i%len(pages)]
				took := timedGet(b, br, p.path, p.want)
				durations = append(durations, took)
				perPage[p.name] = append(perPage[p.name], took)
			}
			b.StopTimer()
			reportLatency(b, durations)
			for name, ds := range perPage {
				slices.Sort(ds)
				b.ReportMetric(float64(ds[min(len(ds)-1, len(ds)*95/100)].Microseconds())/1000, name+"-p95-ms")
			}
		})
	}
}

// seedEvaluations gives an agent a criterion with n results on its runs
// (a third failed, with explanations), recorded as a harness would.
func seedEvaluations(b *testing.B, srv *testserver.Server, api *client.Client, n int) string {
	b.Helper()
	ctx := context.Background()
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
	for i := range n {
		status, score := "passed", 1.0
		if i%3 == 0 {
			status, score = "failed", 0
		}
		if _, err := api.CreateEvaluationResult(ctx, crit.ID, client.EvaluationResultInput{AgentRunID: runs[i%len(runs)], Status: status,
			Score: &score, Details: map[string]any{"explanation": "The greeting does not say hello."}}); err != nil {
			b.Fatal(err)
		}
	}
	return agent
}

// seedViolations records n flags and blocks of a policy on an agent.
func seedViolations(b *testing.B, srv *testserver.Server, agent string, n int) {
	b.Helper()
	ctx := context.Background()
	for i := range n {
		action := [2]string{"flag", "block"}[i%2]
		if err := srv.S.Governance.RecordViolation(ctx, governance.GovernanceViolation{AccountID: srv.AccountID, AgentID: agent,
			RunID: store.NewID(), Stage: "input", Action: action, Rule: "pii:email",
			Reason: `governance policy "No personal data": the run input contains an e-mail address`}); err != nil {
			b.Fatal(err)
		}
	}
}
