package api_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
)

// BenchmarkAccountSearch measures GET /search over real HTTP on SQLite with
// 10,000 resources in the account (6,000 agents, 2,000 solutions, 2,000
// knowledge bases with descriptions), cycling through prefix, substring,
// description, no-match, filtered and UUID queries. It reports the p99 and
// p50 latency of one request as p99-ms and p50-ms, and the CPU time one
// request costs (client and server together) as cpu-ms/op. The machine
// this runs on may be shared: read the latencies with its load (uptime).
//
//	go test -run '^$' -bench BenchmarkAccountSearch -benchtime 2000x ./internal/api/
func BenchmarkAccountSearch(b *testing.B) {
	s := testserver.Start(b, store.SQLite)
	ctx := context.Background()
	words := []string{"harbour", "ferry", "invoice", "weekly", "support", "digest", "lighthouse", "market", "report", "policy",
		"customer", "pricing", "handbook", "contract", "newsletter", "triage", "summary", "alerts", "onboarding", "release"}
	var someID string
	err := s.DB.Tx(ctx, func(tx *sql.Tx) error {
		now := store.Now()
		for i := 0; i < 10000; i++ {
			id := store.NewID()
			name := fmt.Sprintf("%s %s %d", words[i%len(words)], words[(i/len(words))%len(words)], i)
			desc := fmt.Sprintf("Handles %s for the %s team", words[(i*7)%len(words)], words[(i*3)%len(words)])
			var err error
			switch {
			case i < 6000:
				_, err = tx.ExecContext(ctx, `INSERT INTO agents (id, account_id, name, description, schema_version, definition, change_id,
					definition_saved_at, evaluation_mode, max_retries, retry_on_failure, prompt_model_auto_upgrade_strategy,
					prompt_model_auto_rollback_enabled, created_at, updated_at)
					VALUES ($1, $2, $3, $4, 'v1', '{}', $1, $5, 'none', 0, false, 'none', false, $5, $5)`, id, s.AccountID, name, desc, now)
			case i < 8000:
				_, err = tx.ExecContext(ctx, `INSERT INTO solutions (id, account_id, name, description, created_at, updated_at)
					VALUES ($1, $2, $3, $4, $5, $5)`, id, s.AccountID, name, desc, now)
			default:
				_, err = tx.ExecContext(ctx, `INSERT INTO knowledge_bases (id, account_id, name, description, readonly, created_at, updated_at)
					VALUES ($1, $2, $3, $4, false, $5, $5)`, id, s.AccountID, name, desc, now)
			}
			if err != nil {
				return err
			}
			if i == 4321 {
				someID = id
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	queries := []string{"q=harbour", "q=ferry+weekly", "q=digest+12", "q=team", "q=newsletter&entity_type=solution", "q=zzzz",
		"q=" + someID, "q=ndbo", "q=handles+pricing&limit=50", "q=release+triage+99"}
	client := &http.Client{}
	do := func(q string) {
		req, _ := http.NewRequest("GET", s.URL+"/search?"+q, nil)
		req.Header.Set("X-API-Key", s.Key)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%s: %d", q, resp.StatusCode)
		}
	}
	for _, q := range queries { // warm up
		do(q)
	}
	lat := make([]time.Duration, 0, b.N)
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		do(queries[i%len(queries)])
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) / time.Duration(b.N)
	// CPU time per request (client and server are this process): what a
	// request costs, whatever else the machine is doing.
	b.ReportMetric(float64(cpu.Microseconds())/1000, "cpu-ms/op")
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(float64(len(lat)-1)*p)].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(0.50), "p50-ms")
}
