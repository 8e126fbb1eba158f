// Command runload measures runs end to end over HTTP against a real
// agentry server started as a child process (so its memory is measured
// alone), on SQLite by default or PostgreSQL with -pg:
//
//	go run ./bench/runload -mode throughput   # runs/s of a 5-step offline agent (target ≥ 100/s)
//	go run ./bench/runload -mode streams      # 1,000 SSE streams held open (target ≤ 300 MB RSS)
//	go run ./bench/runload -mode queue        # 10,000 runs queued at once: none lost, none run twice
//	go run ./bench/runload -mode traces       # runs/s exporting every run's trace to a loopback OTLP receiver against not exporting (target: within 10%)
//
// Traffic goes to 127.0.0.1 only; every loop is bounded in count and time.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
)

const key = "agk_bench_runload_0123456789abcdefghij"

// fiveSteps is the benchmark agent: five steps, one of them a model call on
// the built-in offline model.
const fiveSteps = `{"child_steps":[{"id":"prep","step_type":"text","text":"Question: {{input}}","child_steps":[
 {"id":"ask","step_type":"prompt_call","model":"agentry_offline","prompt_template":"{{input}}\n\nThe harbour opens at dawn. Ships leave at noon. The market closes at six.","child_steps":[
 {"id":"tidy","step_type":"regex_replace","rules":[{"pattern":"\\s+","replacement":" "}],"child_steps":[
 {"id":"wrap","step_type":"text","text":"Answer: {{input}}","child_steps":[
 {"id":"show","step_type":"display_result"}]}]}]}]}]}`

// parked is an agent whose runs wait for a human, holding their streams open.
const parked = `{"child_steps":[{"id":"review","step_type":"human_in_the_loop","instructions":"approve?","child_steps":[{"id":"show","step_type":"display_result"}]}]}`

func main() {
	mode := flag.String("mode", "throughput", "throughput, streams, queue or traces")
	pg := flag.String("pg", "", "PostgreSQL URL (default: SQLite in a temporary directory)")
	conc := flag.Int("c", 32, "concurrent clients (throughput)")
	dur := flag.Duration("d", 10*time.Second, "duration (throughput)")
	streams := flag.Int("streams", 1000, "SSE streams to hold (streams)")
	total := flag.Int("n", 10000, "runs to queue (queue)")
	serve := flag.Bool("serve", false, "internal: run the server (the child process)")
	addrFile := flag.String("addr-file", "", "internal: where the child writes its address")
	dataDir := flag.String("data-dir", "", "internal: the child's data directory")
	profile := flag.String("cpuprofile", "", "write the server's CPU profile to this file")
	maxRuns := flag.Int("runs", 0, "stop after this many completed runs (throughput; 0: run for -d)")
	wrap := flag.String("wrap", "", `command prefix for the server process, e.g. "valgrind --tool=callgrind" to count its instructions`)
	rounds := flag.Int("rounds", 4, "rounds per server, alternating (traces; -d is split over them)")
	protocol := flag.String("protocol", "http/protobuf", "OTLP protocol of the traced server: http/protobuf or grpc (traces)")
	flag.Parse()
	if *serve {
		runServer(*pg, *addrFile, *dataDir, *profile)
		return
	}
	if *mode == "traces" {
		if err := traces(*pg, *conc, *dur, *rounds, *protocol, *profile); err != nil {
			fmt.Fprintln(os.Stderr, "runload:", err)
			os.Exit(1)
		}
		return
	}
	srv, err := startChild(*pg, *profile, strings.Fields(*wrap), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "runload:", err)
		os.Exit(1)
	}
	defer srv.stop()
	switch *mode {
	case "throughput":
		err = throughput(srv, *conc, *dur, int64(*maxRuns))
	case "streams":
		err = holdStreams(srv, *streams)
	case "queue":
		err = queue(srv, *total)
	default:
		err = fmt.Errorf("unknown mode %q", *mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "runload:", err)
		os.Exit(1)
	}
}

// runServer is the child: a real server with rate limits off (the load is
// one credential; the limiter is per credential and would measure itself).
func runServer(pg, addrFile, dir, profile string) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg := server.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir, cfg.DatabaseURL, cfg.BootstrapAPIKey, cfg.RateLimit = dir, pg, key, 0
	cfg.DefaultCredits = 1e12
	cfg.MaxWorkers = 64
	// The load is one credential too: the stream caps would refuse it.
	cfg.MaxStreamsPerKey, cfg.MaxStreamsPerAccount = 0, 0
	s, err := server.New(ctx, cfg, io.Discard)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	addr, err := s.Listen()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	k, _ := auth.APIKeyByHash(ctx, s.DB, auth.HashKey(key))
	for name, def := range map[string]string{"five": fiveSteps, "parked": parked} {
		a, err := agents.NewRepo(s.DB).CreateAgent(ctx, agents.NewAgent{Agent: agents.Agent{AccountID: k.AccountID, Name: name, Definition: json.RawMessage(def),
			Settings: agents.AgentSettings{EvaluationMode: "output_expectation", ModelUpgradeStrategy: "none", MaxRetries: 3}},
			Trigger: agents.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.WriteFile(addrFile+"."+name, []byte(a.ID), 0o600)
	}
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	os.WriteFile(addrFile, []byte(addr.String()), 0o600)
	if err := s.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}

type child struct {
	cmd          *exec.Cmd
	base         string
	five, parked string
	pg           string
	dir          string
	client       *http.Client
}

// startChild starts the server process; env, when set, is added to its
// environment (the OTEL_* variables of the traces mode).
func startChild(pg, profile string, wrap []string, env []string) (*child, error) {
	f, err := os.CreateTemp("", "runload-addr-")
	if err != nil {
		return nil, err
	}
	f.Close()
	os.Remove(f.Name())
	dir, err := os.MkdirTemp("", "runload-")
	if err != nil {
		return nil, err
	}
	argv := append(append([]string(nil), wrap...), os.Args[0], "-serve", "-addr-file", f.Name(), "-pg", pg, "-data-dir", dir, "-cpuprofile", profile)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, pg: pg, dir: dir, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2000, MaxConnsPerHost: 0,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}}}
	deadline := time.Now().Add(60 * time.Second)
	if len(wrap) > 0 {
		deadline = time.Now().Add(15 * time.Minute) // an instrumenting wrapper is slow to start
	}
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(f.Name()); err == nil && len(b) > 0 {
			c.base = "http://" + string(b)
			five, _ := os.ReadFile(f.Name() + ".five")
			par, _ := os.ReadFile(f.Name() + ".parked")
			c.five, c.parked = string(five), string(par)
			return c, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Kill()
	return nil, fmt.Errorf("server did not start")
}

func (c *child) stop() {
	defer os.RemoveAll(c.dir)
	c.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		c.cmd.Process.Kill()
	}
}

// cpuSeconds reads the CPU time (user and system) the child has used.
func (c *child) cpuSeconds() float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/stat")
	if err != nil {
		return -1
	}
	// Fields after the command name (in parentheses, which may hold spaces).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return -1
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // clock ticks; 100 a second on Linux
}

// rssMB reads the child's resident memory.
func (c *child) rssMB() float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return -1
}

func (c *child) post(ctx context.Context, path, body string) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, "POST", c.base+path, strings.NewReader(body))
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	return c.client.Do(req)
}

// streamUntilDone posts a streamed run and reads events until done.
func (c *child) streamUntilDone(ctx context.Context, agent string) error {
	resp, err := c.post(ctx, "/agents/"+agent+"/runs/stream", `{"input":"When do ships leave?"}`)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("stream: %d %s", resp.StatusCode, b)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() == "event: done" {
			return nil
		}
	}
	return fmt.Errorf("stream ended without done: %v", sc.Err())
}

func throughput(c *child, conc int, d time.Duration, maxRuns int64) error {
	db := "sqlite"
	if c.pg != "" {
		db = "postgres"
	}
	m := measure(c, conc, d, maxRuns)
	lat := m.lat
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[int(p*float64(len(lat)-1))]
	}
	fmt.Printf("throughput on %s: %d runs of a 5-step offline agent in %.1fs with %d clients: %.0f runs/s, latency p50 %v p99 %v, %d failed, server CPU %.2f ms/run, server RSS %.0f MB\n",
		db, m.runs, m.seconds, conc, m.rate(), pct(.5).Round(time.Millisecond), pct(.99).Round(time.Millisecond), m.failed, m.cpuPerRun(), c.rssMB())
	verdict("runs/s ≥ 100", m.rate() >= 100)
	return nil
}

// measured is one throughput measurement.
type measured struct {
	runs, failed int64
	seconds, cpu float64 // wall time; the server's CPU time
	lat          []time.Duration
}

func (m measured) rate() float64 { return float64(m.runs) / m.seconds }

func (m measured) cpuPerRun() float64 {
	if m.runs == 0 {
		return 0
	}
	return m.cpu / float64(m.runs) * 1000
}

// measure runs the 5-step agent with conc clients for d (or maxRuns runs).
func measure(c *child, conc int, d time.Duration, maxRuns int64) measured {
	var (
		done, failed atomic.Int64
		mu           sync.Mutex
		lat          []time.Duration
	)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var started atomic.Int64
	var wg sync.WaitGroup
	cpu0 := c.cpuSeconds()
	start := time.Now()
	for i := 0; i < conc; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if maxRuns > 0 && started.Add(1) > maxRuns {
					return
				}
				t := time.Now()
				if err := c.streamUntilDone(ctx, c.five); err != nil {
					if ctx.Err() == nil {
						failed.Add(1)
						fmt.Fprintln(os.Stderr, err)
					}
					continue
				}
				done.Add(1)
				mu.Lock()
				lat = append(lat, time.Since(t))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	cpu := c.cpuSeconds() - cpu0
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return measured{runs: done.Load(), failed: failed.Load(), seconds: el, cpu: cpu, lat: lat}
}

func holdStreams(c *child, n int) error {
	before := c.rssMB()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var opened atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 50)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			resp, err := c.post(ctx, "/agents/"+c.parked+"/runs/stream", `{"input":"doc"}`)
			<-sem
			if err != nil || resp.StatusCode != 200 {
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			counted := false
			for sc.Scan() {
				if !counted && strings.HasPrefix(sc.Text(), "event: waiting_human") {
					opened.Add(1)
					counted = true
				}
			}
		}()
	}
	deadline := time.Now().Add(120 * time.Second)
	for opened.Load() < int64(n) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // let allocations settle
	rss := c.rssMB()
	fmt.Printf("streams: %d of %d SSE streams open on parked runs; server RSS %.0f MB (%.0f MB before)\n", opened.Load(), n, rss, before)
	verdict("all streams held", opened.Load() == int64(n))
	verdict("RSS ≤ 300 MB", rss <= 300)
	cancel()
	wg.Wait()
	return nil
}

func queue(c *child, n int) error {
	ids := make([]string, n)
	var failed atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			resp, err := c.post(context.Background(), "/agents/"+c.five+"/runs", `{"input":"q`+strconv.Itoa(i)+`"}`)
			if err != nil {
				failed.Add(1)
				return
			}
			var r struct {
				RunID string `json:"run_id"`
			}
			json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			ids[i] = r.RunID
		}()
	}
	wg.Wait()
	queued := time.Since(start)
	// Wait for every run to finish, reading the database directly.
	db, err := store.Open(context.Background(), c.pg, c.dir)
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(20 * time.Minute)
	for time.Now().Before(deadline) {
		var left int
		db.R.QueryRow(`SELECT COUNT(*) FROM runs WHERE status NOT IN ('completed', 'failed')`).Scan(&left)
		if left == 0 {
			break
		}
		time.Sleep(time.Second)
	}
	var completed, failedRuns, multi, wrongSteps int
	db.R.QueryRow(`SELECT COUNT(*) FROM runs WHERE status = 'completed'`).Scan(&completed)
	db.R.QueryRow(`SELECT COUNT(*) FROM runs WHERE status = 'failed'`).Scan(&failedRuns)
	db.R.QueryRow(`SELECT COUNT(*) FROM (SELECT run_id FROM run_attempts GROUP BY run_id HAVING COUNT(*) > 1) x`).Scan(&multi)
	db.R.QueryRow(`SELECT COUNT(*) FROM (SELECT run_id FROM run_steps GROUP BY run_id HAVING COUNT(*) <> 5) x`).Scan(&wrongSteps)
	el := time.Since(start)
	fmt.Printf("queue: %d runs queued in %v (%d refused); all finished after %v: %d completed, %d failed, %d executed more than once, %d with a step count other than 5\n",
		n, queued.Round(time.Millisecond), failed.Load(), el.Round(time.Second), completed, failedRuns, multi, wrongSteps)
	verdict("none lost", completed == n)
	verdict("none run twice", multi == 0 && wrongSteps == 0)
	return nil
}

func verdict(what string, ok bool) {
	if ok {
		fmt.Println("  PASS", what)
	} else {
		fmt.Println("  FAIL", what)
	}
}
