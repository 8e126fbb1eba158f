package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/telemetry/otlptest"
	_ "github.com/jackc/pgx/v5/stdlib" // the pgx driver, to make the schemas
)

// traces measures what exporting traces costs runs: two servers, one
// sending every run's trace (sampling 1.0) to an OTLP receiver on
// loopback in this process, the other exporting nothing, take turns under
// the same load (rounds alternate, and which goes first too), each on a
// database of its own.
// profile, when set, is where the traced server writes its CPU profile.
func traces(pg string, conc int, d time.Duration, rounds int, protocol, profile string) error {
	recv, err := otlptest.Listen()
	if err != nil {
		return err
	}
	defer recv.Close()
	endpoint := recv.HTTPURL
	if protocol == "grpc" {
		endpoint = "http://" + recv.GRPCAddr
	}
	pgOff, pgOn, drop, err := twoSchemas(pg)
	if err != nil {
		return err
	}
	defer drop()
	off, err := startChild(pgOff, "", nil, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_TRACES_EXPORTER=none"})
	if err != nil {
		return err
	}
	defer off.stop()
	on, err := startChild(pgOn, profile, nil, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=" + protocol,
		"OTEL_TRACES_SAMPLER=always_on", "OTEL_TRACES_EXPORTER=otlp"})
	if err != nil {
		return err
	}
	defer on.stop()
	// Warm both up.
	for _, c := range []*child{off, on} {
		if err := c.streamUntilDone(context.Background(), c.five); err != nil {
			return err
		}
	}
	slice := d / time.Duration(2*rounds)
	var mOff, mOn measured
	var rateOff, rateOn []float64
	add := func(to *measured, m measured) {
		to.runs += m.runs
		to.failed += m.failed
		to.seconds += m.seconds
		to.cpu += m.cpu
	}
	spans0 := recv.Count()
	for r := 0; r < rounds; r++ {
		order := []*child{off, on}
		if r%2 == 1 {
			order[0], order[1] = on, off
		}
		for _, c := range order {
			m := measure(c, conc, slice, 0)
			if c == on {
				add(&mOn, m)
				rateOn = append(rateOn, m.rate())
			} else {
				add(&mOff, m)
				rateOff = append(rateOff, m.rate())
			}
			recv.Forget()
		}
	}
	// The spans of the last runs are still queued: give the exporter its
	// delay (5 s by default) to send them before counting.
	time.Sleep(6 * time.Second)
	spans := recv.Count() - spans0
	db := "sqlite"
	if pg != "" {
		db = "postgres"
	}
	fmt.Printf("traces on %s (%s, %d clients, %d rounds of %v each, %d CPUs):\n", db, protocol, conc, rounds, slice, runtime.NumCPU())
	fmt.Printf("  export off: %d runs, %.1f runs/s, server CPU %.2f ms/run, %d failed\n", mOff.runs, mOff.rate(), mOff.cpuPerRun(), mOff.failed)
	fmt.Printf("  export on:  %d runs, %.1f runs/s, server CPU %.2f ms/run, %d failed; %d spans received (%.1f a run)\n",
		mOn.runs, mOn.rate(), mOn.cpuPerRun(), mOn.failed, spans, float64(spans)/float64(max(mOn.runs, 1)))
	dropPct := (mOff.rate() - mOn.rate()) / mOff.rate() * 100
	med := medianDrop(rateOff, rateOn)
	fmt.Printf("  runs/s drop: %.1f%% overall, median of the rounds %.1f%%; CPU per run +%.1f%%\n", dropPct, med,
		(mOn.cpuPerRun()/mOff.cpuPerRun()-1)*100)
	fmt.Printf("  spans the traced server dropped: %s\n", droppedSpans(on))
	verdict("runs/s with export on within 10% of off", dropPct <= 10)
	if mOn.failed+mOff.failed > 0 {
		return fmt.Errorf("%d runs failed", mOn.failed+mOff.failed)
	}
	return nil
}

// medianDrop is the median of the rounds' drops (each round's pair ran
// back to back, so its drop is the least disturbed by the machine's load).
func medianDrop(off, on []float64) float64 {
	var drops []float64
	for i := range min(len(off), len(on)) {
		if off[i] > 0 {
			drops = append(drops, (off[i]-on[i])/off[i]*100)
		}
	}
	if len(drops) == 0 {
		return 0
	}
	sort.Float64s(drops)
	n := len(drops)
	if n%2 == 0 {
		return (drops[n/2-1] + drops[n/2]) / 2
	}
	return drops[n/2]
}

// twoSchemas returns two databases for the two servers: on SQLite ("")
// each child has its own data directory already; on PostgreSQL, a schema
// each, dropped by drop.
func twoSchemas(pg string) (a, b string, drop func(), err error) {
	if pg == "" {
		return "", "", func() {}, nil
	}
	db, err := sql.Open("pgx", pg)
	if err != nil {
		return "", "", nil, err
	}
	names := []string{fmt.Sprintf("runload_traces_off_%d", time.Now().UnixNano()), fmt.Sprintf("runload_traces_on_%d", time.Now().UnixNano())}
	var urls []string
	for _, n := range names {
		if _, err := db.Exec(`CREATE SCHEMA ` + n); err != nil {
			db.Close()
			return "", "", nil, err
		}
		u, err := url.Parse(pg)
		if err != nil {
			db.Close()
			return "", "", nil, err
		}
		q := u.Query()
		q.Set("search_path", n)
		u.RawQuery = q.Encode()
		urls = append(urls, u.String())
	}
	return urls[0], urls[1], func() {
		for _, n := range names {
			db.Exec(`DROP SCHEMA ` + n + ` CASCADE`)
		}
		db.Close()
	}, nil
}

// droppedSpans reads the traced server's drop counters from /metrics.
func droppedSpans(c *child) string {
	resp, err := c.client.Get(c.base + "/metrics")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "agentry_trace_spans_dropped_total{") {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "; ")
}
