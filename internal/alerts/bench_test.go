package alerts_test

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// BenchmarkRunFailedAlertLatency measures how long after a failed run ends
// its run_failed alert is raised, while runs are started at a steady rate
// (100 runs/s; -benchtime=Nx sets how many runs). Every run is of its own
// failing agent with its own run_failed config, so every failure opens an
// alert; the latency is the alert's created_at less the run's ended_at,
// both written by the server. It reports the percentiles, and the rate
// the runs actually finished at (the machine may not sustain the target).
//
//	go test -run '^$' -bench RunFailedAlertLatency -benchtime 500x ./internal/alerts
//
// SERVICE_TEST_DATABASE_URL set runs it on PostgreSQL, else on SQLite.
func BenchmarkRunFailedAlertLatency(b *testing.B) {
	const rate = 100 // runs started per second
	d := store.SQLite
	if dialects := storetest.Dialects(); slices.Contains(dialects, store.Postgres) {
		d = store.Postgres
	}
	s := start(b, d)
	fail := refuser(b)
	n := b.N
	agents := make([]string, n)
	for i := range agents {
		agents[i] = s.StoreAgent(b, s.AccountID, fmt.Sprintf("flaky %d", i),
			`{"child_steps":[{"id":"call","step_type":"webhook_call","url":"`+fail+`/x"}]}`, "dynamic_input")
		createConfig(b, s, s.Key, map[string]any{"alert_type": "run_failed", "agent_id": agents[i]})
	}
	b.ResetTimer()
	began := time.Now()
	tick := time.NewTicker(time.Second / rate)
	var wg sync.WaitGroup
	for i := range n {
		<-tick.C
		wg.Add(1)
		go func(agent string) {
			defer wg.Done()
			if r := s.Do(b, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "x"}); r.Status != http.StatusOK {
				b.Errorf("start run: %d %s", r.Status, r.Body)
			}
		}(agents[i])
	}
	tick.Stop()
	wg.Wait()
	reportAlertLatency(b, s, n, began, time.Since(began))
}

// reportAlertLatency waits for n run_failed alerts of the server's owner
// account and reports the time from each run's end to its alert.
func reportAlertLatency(b *testing.B, s *testserver.Server, n int, began time.Time, submitted time.Duration) {
	var lat []time.Duration
	var lastEnd time.Time
	deadline := time.Now().Add(2 * time.Minute)
	for {
		rows, err := s.DB.R.QueryContext(ctx, `SELECT a.created_at, r.ended_at FROM alerts a JOIN runs r ON r.id = a.agent_run_id
			WHERE a.account_id = $1`, s.AccountID)
		if err != nil {
			b.Fatal(err)
		}
		lat = lat[:0]
		for rows.Next() {
			var created, ended time.Time
			if err := rows.Scan(&created, &ended); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, created.Sub(ended))
			if ended.After(lastEnd) {
				lastEnd = ended
			}
		}
		rows.Close()
		if len(lat) >= n || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.StopTimer()
	if len(lat) < n {
		b.Fatalf("%d of %d failures raised an alert within 2 minutes", len(lat), n)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(n)/submitted.Seconds(), "started-runs/s")
	b.ReportMetric(float64(n)/lastEnd.Sub(began).Seconds(), "finished-runs/s")
	over := 0
	for _, l := range lat {
		if l > time.Second {
			over++
		}
	}
	b.ReportMetric(float64(over), "alerts-over-1s")
}

// BenchmarkRunFailedAlertPath drives the alert path alone at 100 failed
// runs/s: each run is recorded failed in the runs table and handed to the
// runs area's hook (Runs.Finished) as a worker finishing it would, so the
// figure does not depend on how many runs/s the machine can execute.
//
//	go test -run '^$' -bench RunFailedAlertPath -benchtime 1000x ./internal/alerts
func BenchmarkRunFailedAlertPath(b *testing.B) {
	const rate = 100
	d := store.SQLite
	if slices.Contains(storetest.Dialects(), store.Postgres) {
		d = store.Postgres
	}
	s := start(b, d)
	n := b.N
	agents := make([]string, n)
	for i := range agents {
		agents[i] = s.StoreAgent(b, s.AccountID, fmt.Sprintf("flaky %d", i), `{"child_steps":[{"id":"t","step_type":"text","text":"x"}]}`, "dynamic_input")
		createConfig(b, s, s.Key, map[string]any{"alert_type": "run_failed", "agent_id": agents[i]})
	}
	b.ResetTimer()
	began := time.Now()
	tick := time.NewTicker(time.Second / rate)
	var wg sync.WaitGroup
	for i := range n {
		<-tick.C
		wg.Add(1)
		go func(agent string) {
			defer wg.Done()
			r, err := runs.NewRepo(s.DB, nil).CreateRun(ctx, runs.Run{AccountID: s.AccountID, AgentID: agent})
			if err != nil {
				b.Error(err)
				return
			}
			att, err := runs.NewRepo(s.DB, nil).StartRunAttempt(ctx, r.ID)
			if err != nil {
				b.Error(err)
				return
			}
			res := runs.RunResult{Status: runs.RunFailed, Error: "boom", ErrorCount: 1}
			if err := runs.NewRepo(s.DB, nil).FinishRunAttempt(ctx, r.ID, att, res); err != nil {
				b.Error(err)
				return
			}
			s.S.Runs.Finished(r, res)
		}(agents[i])
	}
	tick.Stop()
	wg.Wait()
	reportAlertLatency(b, s, n, began, time.Since(began))
}
