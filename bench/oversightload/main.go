// Command oversightload measures what oversight and mail cost runs, end to
// end over HTTP against an in-process agentry server (SQLite by default,
// PostgreSQL with -pg), with the rest of the platform running normally:
//
//	go run ./bench/oversightload -mode policies   # runs/s of the 5-step agent, bare and with a PII policy + a deterministic evaluation on every step (target: drop ≤ 10%)
//	go run ./bench/oversightload -mode sendmail   # what a send_email step adds to a run (target ≤ 5 ms beyond the relay)
//
// Both modes alternate the two agents in rounds, so a change in the shared
// machine's load falls on both alike, and report the process's CPU time
// per run beside wall time (the machine is shared; CPU says what the work
// costs, wall time how long it waited). Traffic goes to 127.0.0.1 only;
// counts and time are bounded.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
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
	"github.com/agentry/agentry/internal/mail/mailtest"
	"github.com/agentry/agentry/internal/server"
)

const key = "agk_bench_oversight_0123456789abcdefghij"

// What the governed agent gets (-policy, -evals): one at a time shows
// which costs what. only runs one of the two agents (-only), for a CPU
// profile of one.
var (
	withPolicy, withEvals bool
	only                  string
)

// fiveSteps is runload's benchmark agent: five steps, one a model call on
// the built-in offline model.
const fiveSteps = `{"child_steps":[{"id":"prep","step_type":"text","text":"Question: {{input}}","child_steps":[
 {"id":"ask","step_type":"prompt_call","model":"agentry_offline","prompt_template":"{{input}}\n\nThe harbour opens at dawn. Ships leave at noon. The market closes at six.","child_steps":[
 {"id":"tidy","step_type":"regex_replace","rules":[{"pattern":"\\s+","replacement":" "}],"child_steps":[
 {"id":"wrap","step_type":"text","text":"Answer: {{input}}","child_steps":[
 {"id":"show","step_type":"display_result"}]}]}]}]}]}`

var stepIDs = []string{"prep", "ask", "tidy", "wrap", "show"}

// The send_email pair: the same text step, with and without a send_email
// step after it.
const (
	textOnly = `{"child_steps":[{"id":"say","step_type":"text","text":"Report: {{input}}"}]}`
	withMail = `{"child_steps":[{"id":"say","step_type":"text","text":"Report: {{input}}","child_steps":[
 {"id":"mail","step_type":"send_email","to":"reader@example.test","subject":"Weekly report","body":"{{input}}"}]}]}`
)

func main() {
	mode := flag.String("mode", "policies", "policies or sendmail")
	pg := flag.String("pg", "", "PostgreSQL URL (default: SQLite in a temporary directory)")
	conc := flag.Int("c", 16, "concurrent clients (policies)")
	dur := flag.Duration("d", 20*time.Second, "total duration, split over the rounds (policies)")
	rounds := flag.Int("rounds", 4, "rounds per agent, alternating")
	n := flag.Int("n", 200, "runs per agent (sendmail, one client)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.BoolVar(&withPolicy, "policy", true, "policies: give the governed agent the PII policy")
	flag.StringVar(&only, "only", "", "policies: run only the bare or the governed agent (for -cpuprofile)")
	flag.BoolVar(&withEvals, "evals", true, "policies: give the governed agent a deterministic evaluation on every step (eval_and_retry)")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "oversightload:", err)
			os.Exit(1)
		}
	}
	err := run(*mode, *pg, *conc, *dur, *rounds, *n)
	pprof.StopCPUProfile()
	if err != nil {
		fmt.Fprintln(os.Stderr, "oversightload:", err)
		os.Exit(1)
	}
}

type bench struct {
	s      *server.Server
	base   string
	client *http.Client
	acct   string
}

func run(mode, pg string, conc int, dur time.Duration, rounds, n int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, err := os.MkdirTemp("", "oversightload")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := server.Defaults()
	cfg.Addr, cfg.DataDir, cfg.DatabaseURL, cfg.BootstrapAPIKey, cfg.RateLimit = "127.0.0.1:0", dir, pg, key, 0
	cfg.DefaultCredits = 1e12
	cfg.MaxWorkers = 64
	cfg.MaxStreamsPerKey, cfg.MaxStreamsPerAccount = 0, 0
	var sink *mailtest.Sink
	if mode == "sendmail" {
		var stop func()
		if sink, stop, err = mailtest.ListenSink("", ""); err != nil {
			return err
		}
		defer stop()
		cfg.SMTPRelayURL = "smtp://" + sink.Addr
	}
	s, err := server.New(ctx, cfg, io.Discard)
	if err != nil {
		return err
	}
	addr, err := s.Listen()
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	k, err := auth.APIKeyByHash(ctx, s.DB, auth.HashKey(key))
	if err != nil {
		return err
	}
	b := &bench{s: s, base: "http://" + addr.String(), acct: k.AccountID,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1000}}}
	dbName := "sqlite"
	if pg != "" {
		dbName = "postgres"
	}
	switch mode {
	case "policies":
		return b.policies(ctx, dbName, conc, dur, rounds)
	case "sendmail":
		return b.sendmail(ctx, dbName, n, rounds, sink)
	}
	return fmt.Errorf("unknown mode %q", mode)
}

func (b *bench) agent(ctx context.Context, name, def, evalMode string) (string, error) {
	a, err := agents.NewRepo(b.s.DB).CreateAgent(ctx, agents.NewAgent{Agent: agents.Agent{AccountID: b.acct, Name: name, Definition: json.RawMessage(def),
		Settings: agents.AgentSettings{EvaluationMode: evalMode, ModelUpgradeStrategy: "none", MaxRetries: 3}},
		Trigger: agents.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)}})
	return a.ID, err
}

func (b *bench) post(ctx context.Context, path string, body any) (*http.Response, error) {
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, "POST", b.base+path, strings.NewReader(string(raw)))
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	return b.client.Do(req)
}

func (b *bench) mustPost(ctx context.Context, path string, body any) error {
	resp, err := b.post(ctx, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("POST %s: %d %s", path, resp.StatusCode, msg)
	}
	return nil
}

// runOnce streams a run to its end and returns its id and final event.
func (b *bench) runOnce(ctx context.Context, agent string) (runID string, err error) {
	resp, err := b.post(ctx, "/agents/"+agent+"/runs/stream", map[string]any{"input": "When do ships leave?"})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		msg, _ := io.ReadAll(resp.Body)
		return "", fmt.Errorf("stream: %d %s", resp.StatusCode, msg)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	next := false
	for sc.Scan() {
		line := sc.Text()
		if runID == "" && strings.Contains(line, `"run_id"`) {
			var v struct {
				RunID string `json:"run_id"`
			}
			if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &v) == nil {
				runID = v.RunID
			}
		}
		if line == "event: done" {
			next = true
			continue
		}
		if next {
			if strings.Contains(line, `"failed"`) {
				return runID, fmt.Errorf("run failed: %s", line)
			}
			return runID, nil
		}
	}
	return runID, fmt.Errorf("stream ended without done: %v", sc.Err())
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type tally struct {
	runs, failed int64
	wall, cpu    time.Duration
	written      int64     // bytes the process wrote (write and pwrite calls)
	rates        []float64 // each round's runs/s
}

// bytesWritten reads what the process has written so far (wchar in
// /proc/self/io: the database's pages and WAL frames, mostly); 0 where
// there is no such file.
func bytesWritten() int64 {
	raw, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// load runs agent with conc clients for d.
func (b *bench) load(ctx context.Context, agent string, conc int, d time.Duration, t *tally) {
	lctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var done, failed atomic.Int64
	var wg sync.WaitGroup
	cpu0, t0, w0 := cpuTime(), time.Now(), bytesWritten()
	for i := 0; i < conc; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lctx.Err() == nil {
				if _, err := b.runOnce(lctx, agent); err != nil {
					if lctx.Err() == nil {
						failed.Add(1)
						fmt.Fprintln(os.Stderr, err)
					}
					continue
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	// Evaluation results are materialized from the runs' journal in
	// batches, in the background; charge each round with all of its
	// own, so none of that work falls into the other agent's round.
	if err := b.s.Evals.Materialize(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "materializing evaluation results:", err)
	}
	wall := time.Since(t0)
	t.rates = append(t.rates, float64(done.Load())/wall.Seconds())
	t.wall += wall
	t.cpu += cpuTime() - cpu0
	t.written += bytesWritten() - w0
	t.runs += done.Load()
	t.failed += failed.Load()
}

func (b *bench) policies(ctx context.Context, db string, conc int, dur time.Duration, rounds int) error {
	bare, err := b.agent(ctx, "bare", fiveSteps, "output_expectation")
	if err != nil {
		return err
	}
	mode := "output_expectation"
	if withEvals {
		mode = "eval_and_retry"
	}
	governed, err := b.agent(ctx, "governed", fiveSteps, mode)
	if err != nil {
		return err
	}
	if withPolicy {
		if err := b.mustPost(ctx, "/governance/policies", map[string]any{"name": "No personal data", "agent_id": governed,
			"config": map[string]any{"action": "block", "rules": []any{map[string]any{"type": "pii"}}}}); err != nil {
			return err
		}
	}
	for _, step := range stepIDs {
		if err := b.mustPost(ctx, "/agents/"+governed+"/evaluation-criteria", map[string]any{"step_id": step,
			"description": "not empty, nothing confidential", "pass_threshold": 1,
			"expectation_config": map[string]any{"min_length": 1, "not_contains": "confidential"}}); err != nil {
			return err
		}
	}
	// Warm up both (compiled policies, prepared statements, page cache).
	for _, a := range []string{bare, governed} {
		if _, err := b.runOnce(ctx, a); err != nil {
			return err
		}
	}
	var tb, tg tally
	slice := dur / time.Duration(2*rounds)
	for r := 0; r < rounds; r++ {
		// Which agent goes first alternates too (bare, governed, governed,
		// bare, …), so nothing that favours the first or the second of a
		// pair (a checkpoint one leaves to the other, the cache) favours
		// one agent.
		order := []string{"bare", "governed"}
		if r%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, which := range order {
			switch {
			case which == "bare" && only != "governed":
				b.load(ctx, bare, conc, slice, &tb)
			case which == "governed" && only != "bare":
				b.load(ctx, governed, conc, slice, &tg)
			}
		}
	}
	var results int
	if err := b.s.DB.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM evaluation_results WHERE account_id = $1`, b.acct).Scan(&results); err != nil {
		return err
	}
	violations, err := b.s.Governance.Violations(ctx, b.acct, "", "")
	if err != nil {
		return err
	}
	rb, rg := float64(tb.runs)/tb.wall.Seconds(), float64(tg.runs)/tg.wall.Seconds()
	cb, cg := tb.cpu/time.Duration(max(tb.runs, 1)), tg.cpu/time.Duration(max(tg.runs, 1))
	fmt.Printf("database=%s clients=%d rounds=%d (%v per agent per round)\n", db, conc, rounds, slice)
	fmt.Printf("bare 5-step agent:     %d runs, %.1f runs/s, process CPU %.2f ms/run, %.1f KiB written/run, %d failed\n",
		tb.runs, rb, ms(cb), kib(tb.written, tb.runs), tb.failed)
	fmt.Printf("with PII policy + deterministic evaluation on all 5 steps: %d runs, %.1f runs/s, process CPU %.2f ms/run, %.1f KiB written/run, %d failed (%d evaluation results, %d violations)\n",
		tg.runs, rg, ms(cg), kib(tg.written, tg.runs), tg.failed, results, violations)
	if tb.runs == 0 || tg.runs == 0 {
		return nil // -only: nothing to compare
	}
	drop := (rb - rg) / rb * 100
	cpuDrop := (1 - float64(cb)/float64(cg)) * 100
	fmt.Printf("runs/s drop: %.1f%% (wall); by CPU per run: %.1f%%; target ≤ 10%%: %s\n", drop, cpuDrop, verdict(drop <= 10))
	// Each round's pair ran back to back, so its drop is the least
	// disturbed by the machine's load changing; their median is what a
	// burst of load in one round moves least.
	med, lo, hi := roundDrops(tb.rates, tg.rates)
	fmt.Printf("per round: median drop %.1f%% (rounds %.1f%% to %.1f%%)\n", med, lo, hi)
	if tb.failed+tg.failed > 0 {
		return fmt.Errorf("%d runs failed", tb.failed+tg.failed)
	}
	return nil
}

// roundDrops returns the median, lowest and highest of the rounds' runs/s
// drops, governed against bare in the same round.
func roundDrops(bare, governed []float64) (median, lowest, highest float64) {
	var drops []float64
	for i := range min(len(bare), len(governed)) {
		if bare[i] > 0 {
			drops = append(drops, (bare[i]-governed[i])/bare[i]*100)
		}
	}
	if len(drops) == 0 {
		return 0, 0, 0
	}
	sort.Float64s(drops)
	n := len(drops)
	median = drops[n/2]
	if n%2 == 0 {
		median = (drops[n/2-1] + drops[n/2]) / 2
	}
	return median, drops[0], drops[n-1]
}

func kib(bytes, runs int64) float64 { return float64(bytes) / 1024 / float64(max(runs, 1)) }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// sendmail runs the two agents one run at a time, alternating, and
// compares the runs' own durations (started_at to ended_at, written by the
// server): the difference is what the send_email step adds. Delivery to
// the sink happens after, in jobs, and is checked to have arrived.
func (b *bench) sendmail(ctx context.Context, db string, n, rounds int, sink *mailtest.Sink) error {
	plain, err := b.agent(ctx, "plain", textOnly, "output_expectation")
	if err != nil {
		return err
	}
	mailer, err := b.agent(ctx, "mailer", withMail, "output_expectation")
	if err != nil {
		return err
	}
	for _, a := range []string{plain, mailer} {
		if _, err := b.runOnce(ctx, a); err != nil {
			return err
		}
	}
	var ids [2][]string
	var cpu [2]time.Duration
	per := max(n/rounds, 1)
	for r := 0; r < rounds; r++ {
		for i, a := range []string{plain, mailer} {
			c0 := cpuTime()
			for j := 0; j < per; j++ {
				id, err := b.runOnce(ctx, a)
				if err != nil {
					return err
				}
				ids[i] = append(ids[i], id)
			}
			cpu[i] += cpuTime() - c0
		}
	}
	dur := func(list []string) ([]time.Duration, error) {
		var out []time.Duration
		for _, id := range list {
			var st, en time.Time
			if err := b.s.DB.R.QueryRowContext(ctx, `SELECT started_at, ended_at FROM runs WHERE id = $1`, id).Scan(&st, &en); err != nil {
				return nil, err
			}
			out = append(out, en.Sub(st))
		}
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
		return out, nil
	}
	dp, err := dur(ids[0])
	if err != nil {
		return err
	}
	dm, err := dur(ids[1])
	if err != nil {
		return err
	}
	med := func(l []time.Duration) time.Duration { return l[len(l)/2] }
	mean := func(l []time.Duration) time.Duration {
		var s time.Duration
		for _, d := range l {
			s += d
		}
		return s / time.Duration(len(l))
	}
	cp, cm := cpu[0]/time.Duration(len(ids[0])), cpu[1]/time.Duration(len(ids[1]))
	fmt.Printf("database=%s, %d runs per agent, one client, %d rounds alternating\n", db, len(ids[0]), rounds)
	fmt.Printf("text step only:          run duration median %.2f ms, mean %.2f ms; process CPU %.2f ms/run\n", ms(med(dp)), ms(mean(dp)), ms(cp))
	fmt.Printf("text + send_email step:  run duration median %.2f ms, mean %.2f ms; process CPU %.2f ms/run\n", ms(med(dm)), ms(mean(dm)), ms(cm))
	added := med(dm) - med(dp)
	fmt.Printf("send_email adds: %.2f ms (median wall), %.2f ms (mean wall), %.2f ms process CPU per run (the delivery job included); target ≤ 5 ms: %s\n",
		ms(added), ms(mean(dm)-mean(dp)), ms(cm-cp), verdict(added <= 5*time.Millisecond))
	// Every mail arrived at the relay, DKIM-signed.
	got := sink.WaitTimeout(len(ids[1])+1, 2*time.Minute)
	signed := 0
	for _, m := range got {
		if strings.Contains(string(m.Data), "DKIM-Signature:") {
			signed++
		}
	}
	fmt.Printf("relay received %d of %d messages, %d DKIM-signed\n", len(got), len(ids[1])+1, signed)
	if len(got) < len(ids[1])+1 {
		return fmt.Errorf("mail lost")
	}
	return nil
}
