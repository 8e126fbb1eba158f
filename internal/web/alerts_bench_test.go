package web_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// The alerts and models areas' benchmarks: each page's p50 and p95 from
// the browser's side over a loopback socket (the console, its in-process
// API calls and the database together), as runs_bench_test.go measures.
//
//	go test -run '^$' -bench 'AlertsPages|ModelsPages' -benchtime 100x ./internal/web/
//
// (SERVICE_TEST_DATABASE_URL set runs them on PostgreSQL too.)

// seedAlerts writes n alerts of accountID straight into the alerts table,
// spread over the 30 days before now and over agents and statuses, for
// lists at scale (raising 10,000 alerts one by one would need as many
// configs, each with one open alert). It returns their ids, oldest first.
func seedAlerts(tb testing.TB, db *store.DB, accountID string, agents []string, n int) []string {
	tb.Helper()
	ctx := context.Background()
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	statuses := []string{"resolved", "dismissed", "acknowledged", "triggered", "resolved"}
	types := []string{"run_failed", "slow_run", "governance_blocked", "consecutive_failures"}
	span, end := 30*24*time.Hour, time.Now().UTC()
	ids := make([]string, 0, n)
	for i := range n {
		created := end.Add(-span + time.Duration(i)*(span/time.Duration(n)))
		id := store.NewID()
		ids = append(ids, id)
		if _, err := tx.ExecContext(ctx, `INSERT INTO alerts (id, account_id, alert_type, title, description, status, agent_id, details,
			created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
			id, accountID, types[i%len(types)], fmt.Sprintf("Alert %d of the agent", i), "The agent's run failed: the model answered 500.",
			statuses[i%len(statuses)], agents[i%len(agents)], `{"occurrences":1}`, created); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	if _, err := db.W.ExecContext(ctx, `ANALYZE alerts`); err != nil {
		tb.Fatal(err)
	}
	return ids
}

// benchPages reads each page b.N times in its own sub-benchmark.
func benchPages(b *testing.B, br *browser, pages []struct{ name, path, want string }) {
	for _, pg := range pages {
		b.Run(pg.name, func(b *testing.B) {
			var durations []time.Duration
			b.ResetTimer()
			for range b.N {
				durations = append(durations, timedGet(b, br, pg.path, pg.want))
			}
			b.StopTimer()
			reportLatency(b, durations)
		})
	}
}

// BenchmarkAlertsPages renders the alerts area of an account with 10,000
// alerts over 30 days across 4 agents: the inbox's first page, a filtered
// page, a page deep in the list, an alert with its thread, the configs and
// a config with its delivery log, and the preferences.
func BenchmarkAlertsPages(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := start(b, d)
			ctx := context.Background()
			var agents []string
			for i := range 4 {
				agents = append(agents, srv.StoreAgent(b, srv.AccountID, fmt.Sprintf("Agent %d", i), showDef, "dynamic_input"))
			}
			ids := seedAlerts(b, srv.DB, srv.AccountID, agents, 10_000)
			api := apiClient(b, srv, srv.Key)
			// Deep in the list: older than the 7,500th newest alert.
			deep, err := api.GetAlert(ctx, ids[2500])
			if err != nil {
				b.Fatal(err)
			}
			deepQuery := url.Values{"before": {*deep.Alert.CreatedAt}, "after": {deep.Alert.ID}}.Encode()
			cfg, err := api.CreateAlertConfig(ctx, client.CreateAlertConfigRequest{AlertType: "governance_blocked", AgentID: agents[0]})
			if err != nil {
				b.Fatal(err)
			}
			a := raiseAlert(b, srv, api, srv.AccountID, agents[0], "Card number in the input")
			for i := range 20 {
				if _, err := api.CommentOnAlert(ctx, a.ID, fmt.Sprintf("Comment %d on the alert.", i)); err != nil {
					b.Fatal(err)
				}
			}
			settle(b, srv.DB)
			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			benchPages(b, br, []struct{ name, path, want string }{
				{"inbox", "/console/alerts", "alerts-table"},
				{"filtered", "/console/alerts?status=acknowledged&agent=" + agents[2] + "&since=168h", "alerts-table"},
				{"deep", "/console/alerts?" + deepQuery, "alerts-table"},
				{"alert", "/console/alerts/" + a.ID, "Comment 19"},
				{"configs", "/console/alerts/configs?agent=" + agents[0], "configs-table"},
				{"config", "/console/alerts/configs/" + cfg.ID, "Delivery log"},
				{"preferences", "/console/alerts/preferences", "Organization preferences"},
			})
		})
	}
}

// BenchmarkModelsPages renders the models area: the catalog (every
// built-in model), a model's page, the model alerts, the playground and a
// finished experiment.
func BenchmarkModelsPages(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			srv := testserver.Start(b, d)
			ctx := context.Background()
			if _, err := billing.NewCredits(srv.DB).Grant(ctx, srv.AccountID, 100_000, "test", "bench:"+srv.AccountID); err != nil {
				b.Fatal(err)
			}
			api := apiClient(b, srv, srv.Key)
			e, err := api.CreateExperiment(ctx, client.PlaygroundCreateRequest{Prompt: "Rivers flow to the sea. Summarise.",
				ModelIDs: []string{"agentry_offline"}, EvaluationMode: "prompt", EvaluatorModelID: "agentry_offline"})
			if err != nil {
				b.Fatal(err)
			}
			if x, err := api.WaitExperiment(ctx, e.ExperimentID, 50*time.Millisecond, 30*time.Second); err != nil || x.Status != client.ExperimentCompleted {
				b.Fatal(x, err)
			}
			br := newBrowser(b, srv)
			br.signInWithKey(srv.Key)
			benchPages(b, br, []struct{ name, path, want string }{
				{"catalog", "/console/models", `id="model-agentry_offline"`},
				{"model", "/console/models/agentry_offline", "Usage by this account"},
				{"alerts", "/console/models/alerts", "Model alerts"},
				{"playground", "/console/models/playground", e.ExperimentID},
				{"experiment", "/console/models/playground/" + e.ExperimentID, `id="result-agentry_offline"`},
			})
		})
	}
}
