// Command load measures the authenticated request path under load: it
// starts the real server in this process (SQLite in a temporary directory,
// or PostgreSQL with -pg), drives GET /me with an API key from a fixed
// number of keep-alive connections for a fixed time, does the same to a
// bare net/http JSON handler with identical client settings (the two take
// turns, in rounds), and reports throughput, latency percentiles, CPU time
// per request, their ratio, and the targets.
//
//	go run ./bench/load                      # 50 connections, 10 s each
//	go run ./bench/load -duration 30s -strict
//	go run ./bench/load -pg 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable'
//	go run ./bench/load -cpuprofile me.pprof # profile the GET /me phase
//
// Everything listens on 127.0.0.1 only. The client and both servers share
// the machine's CPUs, so on a small machine the absolute figures are a
// floor; the ratio to the bare handler and the CPU time per request are the
// steadier figures.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"time"
)

// Targets the issue sets for GET /me.
const (
	minRatio = 0.25                  // of the bare handler's req/s
	minRPS   = 5000                  // req/s
	maxP99   = 15 * time.Millisecond // 99th percentile latency
)

// Bounds on the flags, so a typo cannot start an unbounded run.
const (
	maxDuration    = 5 * time.Minute
	maxConcurrency = 1000
)

func main() {
	var (
		duration    = flag.Duration("duration", 10*time.Second, "measured time per target (at most 5m)")
		warmup      = flag.Duration("warmup", time.Second, "unmeasured time per target before measuring")
		concurrency = flag.Int("c", 50, "concurrent connections (at most 1000)")
		rounds      = flag.Int("rounds", 5, "alternate the targets this many times, each round a share of -duration, so background load on the machine weighs on both alike (1 with -cpuprofile)")
		pg          = flag.String("pg", "", "run the server on this PostgreSQL server (a temporary schema is created and dropped) instead of SQLite")
		strict      = flag.Bool("strict", false, "exit 1 when a target is missed")
		cpuprofile  = flag.String("cpuprofile", "", "write a CPU profile of the GET /me phase (client and server share this process) to this file")
	)
	flag.Parse()
	if *duration <= 0 || *duration > maxDuration || *warmup < 0 || *warmup > time.Minute {
		fail("-duration must be in (0, 5m] and -warmup in [0, 1m]")
	}
	if *concurrency < 1 || *concurrency > maxConcurrency {
		fail("-c must be in [1, 1000]")
	}
	if *rounds < 1 || *rounds > 100 || *duration/time.Duration(*rounds) < 100*time.Millisecond {
		fail("-rounds must be in [1, 100], and leave each round at least 100ms")
	}
	if *cpuprofile != "" {
		*rounds = 1 // one uninterrupted GET /me phase, so the profile holds nothing else
	}
	// The server logs its start and stop; keep the report readable.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	passed, err := run(ctx, *duration, *warmup, *concurrency, *rounds, *pg, *cpuprofile)
	if err != nil {
		fail(err.Error())
	}
	if *strict && !passed {
		os.Exit(1)
	}
}

func run(ctx context.Context, duration, warmup time.Duration, concurrency, rounds int, pg, cpuprofile string) (bool, error) {
	dataDir, err := os.MkdirTemp("", "agentry-load-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dataDir)
	databaseURL, dbName := "", "SQLite (temporary directory)"
	if pg != "" {
		u, drop, err := pgSchema(ctx, pg)
		if err != nil {
			return false, err
		}
		defer drop()
		databaseURL, dbName = u, "PostgreSQL (temporary schema)"
	}

	serverCtx, stopServers := context.WithCancel(ctx)
	a, err := startAgentry(serverCtx, dataDir, databaseURL)
	if err != nil {
		stopServers()
		return false, err
	}
	defer func() {
		stopServers()
		<-a.done
	}()
	bareURL, err := startBare(serverCtx)
	if err != nil {
		return false, err
	}
	if err := a.checkMe(ctx); err != nil {
		return false, err
	}

	fmt.Printf("load: %d connections, %v warm-up + %v measured per target in %d alternating rounds, GOMAXPROCS=%d, NumCPU=%d, %s, rate limit off\n\n",
		concurrency, warmup, duration, rounds, runtime.GOMAXPROCS(0), runtime.NumCPU(), dbName)

	bareT := Target{Name: "bare net/http", URL: bareURL + "/"}
	meT := Target{Name: "GET /me", URL: a.URL + "/me", Header: http.Header{"X-Api-Key": {a.Key}}}
	var profile *os.File
	if cpuprofile != "" {
		if profile, err = os.Create(cpuprofile); err != nil {
			return false, err
		}
		defer profile.Close()
	}
	bare, me, pool, err := alternate(ctx, a, bareT, meT, concurrency, rounds, warmup, duration, profile)
	if err != nil {
		return false, err
	}
	passed := report(bare, me)
	// Time spent queueing for a pooled database connection is latency no
	// CPU profile shows; report it beside the figures.
	fmt.Printf("\nserver read pool during GET /me: %d max open connections, %d waits for a connection (%.1f%% of requests), %v waited in total (%.3f ms per request)\n",
		pool.MaxOpenConnections, pool.WaitCount, 100*float64(pool.WaitCount)/float64(max(1, me.Requests)), pool.WaitDuration.Round(time.Millisecond),
		float64(pool.WaitDuration)/float64(time.Millisecond)/float64(max(1, me.Requests)))
	return passed, nil
}

// alternate measures the two targets in turns, rounds times, each turn a
// share of duration, and merges each target's turns. Background load on a
// shared machine then weighs on both alike. The first turn of each is
// preceded by warmup. With profile set, only the GET /me turns are profiled.
// It also returns the server's read-pool statistics over the GET /me turns.
func alternate(ctx context.Context, a *agentry, bareT, meT Target, concurrency, rounds int, warmup, duration time.Duration, profile *os.File) (bare, me Result, pool sql.DBStats, err error) {
	bareClient, meClient := newClient(concurrency), newClient(concurrency)
	defer bareClient.CloseIdleConnections()
	defer meClient.CloseIdleConnections()
	bare, me = Result{Name: bareT.Name}, Result{Name: meT.Name}
	slice := duration / time.Duration(rounds)
	for i := range rounds {
		w := time.Duration(0)
		if i == 0 {
			w = warmup
		}
		bare.Add(Drive(ctx, bareClient, bareT, concurrency, w, slice))
		if profile != nil {
			if err := pprof.StartCPUProfile(profile); err != nil {
				return bare, me, pool, err
			}
		}
		before := a.S.DB.R.Stats()
		me.Add(Drive(ctx, meClient, meT, concurrency, w, slice))
		after := a.S.DB.R.Stats()
		if profile != nil {
			pprof.StopCPUProfile()
		}
		pool.MaxOpenConnections = after.MaxOpenConnections
		pool.WaitCount += after.WaitCount - before.WaitCount
		pool.WaitDuration += after.WaitDuration - before.WaitDuration
		if ctx.Err() != nil {
			return bare, me, pool, ctx.Err()
		}
	}
	return bare, me, pool, nil
}

// report prints both runs and the targets, and says whether all were met.
func report(bare, me Result) bool {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
	fmt.Printf("%-14s %10s %9s %10s %10s %10s %10s %9s %12s\n", "target", "requests", "req/s", "p50", "p90", "p99", "max", "failures", "CPU/request")
	for _, r := range []Result{bare, me} {
		fmt.Printf("%-14s %10d %9.0f %10s %10s %10s %10s %9d %9.1f µs\n", r.Name, r.Requests, r.RPS(),
			ms(r.Percentile(50)), ms(r.Percentile(90)), ms(r.Percentile(99)), ms(r.Percentile(100)), r.Failures,
			float64(r.CPUPerRequest())/float64(time.Microsecond))
		if r.FirstErr != "" {
			fmt.Printf("    first failure: %s\n", r.FirstErr)
		}
	}
	ratio := 0.0
	if bare.RPS() > 0 {
		ratio = me.RPS() / bare.RPS()
	}
	fmt.Printf("\nGET /me / bare = %.1f%%\n\n", ratio*100)

	all := true
	check := func(ok bool, format string, args ...any) {
		verdict := "PASS"
		if !ok {
			verdict, all = "FAIL", false
		}
		fmt.Printf("%s  %s\n", verdict, fmt.Sprintf(format, args...))
	}
	check(ratio >= minRatio, "GET /me throughput ≥ %.0f%% of the bare handler's (%.1f%%)", minRatio*100, ratio*100)
	check(me.RPS() >= minRPS, "GET /me ≥ %d req/s (%.0f)", minRPS, me.RPS())
	check(me.Percentile(99) <= maxP99, "GET /me p99 ≤ %v (%s)", maxP99, ms(me.Percentile(99)))
	check(me.Failures == 0 && bare.Failures == 0, "no failed requests (%d GET /me, %d bare)", me.Failures, bare.Failures)
	return all
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "load:", msg)
	os.Exit(2)
}
