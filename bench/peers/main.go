// Command peers compares Agentry with the LangGraph Agent Server (the JS
// dev server from npm) on the same five-step, no-model workflow, on this
// machine, and writes the result into docs/performance.md and
// docs/performance-peers.svg:
//
//	go run ./bench/peers                  # 20 s phases, 3 rounds (about 10 minutes)
//	go run ./bench/peers -d 3s -rounds 1  # a quick check
//
// It installs the pinned npm packages into a temporary directory, starts
// both servers on loopback in their own process groups, drives them with
// the same streaming client in interleaved phases, and stops both process
// groups and removes the directory on exit, on error and on Ctrl-C. Only
// the first install needs the npm registry; nothing else leaves the machine.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

type options struct {
	phase    time.Duration
	rounds   int
	warmup   time.Duration
	concs    []int
	page     string
	chart    string
	keepLogs bool
}

func parseFlags() (options, error) {
	var o options
	concs := flag.String("c", "1,8,32,128", "concurrent clients of each phase, comma-separated")
	flag.DurationVar(&o.phase, "d", 20*time.Second, "duration of each phase")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds of all phases")
	flag.DurationVar(&o.warmup, "warmup", 10*time.Second, "unmeasured warm-up of each server, at 8 clients")
	flag.StringVar(&o.page, "page", "docs/performance.md", "page whose generated section is replaced")
	flag.StringVar(&o.chart, "chart", "docs/performance-peers.svg", "SVG chart written next to the page")
	flag.BoolVar(&o.keepLogs, "keep-logs", false, "copy the servers' logs to the working directory before cleaning up")
	flag.Parse()
	for _, f := range strings.Split(*concs, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 1 || c > 4096 {
			return o, fmt.Errorf("-c: %q is not a client count between 1 and 4096", f)
		}
		o.concs = append(o.concs, c)
	}
	if o.rounds < 1 || o.rounds > 20 || o.phase <= 0 || o.phase > time.Hour {
		return o, errors.New("-rounds must be 1..20 and -d between 0 and 1h")
	}
	return o, nil
}

// errInterrupted ends a run stopped by Ctrl-C or SIGTERM; the page is left
// as it was.
var errInterrupted = errors.New("interrupted: nothing written")

func run() error {
	o, err := parseFlags()
	if err != nil {
		return err
	}
	if runtime.GOOS != "linux" {
		return errors.New("runs on Linux only: it reads the servers' CPU and memory from /proc")
	}
	// Fail before installing anything if the page cannot be written.
	if _, err := os.Stat(filepath.Dir(o.page)); err != nil {
		return fmt.Errorf("run it from the repository root: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	dir, err := os.MkdirTemp("", "agentry-peers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var servers []*server
	defer func() {
		for _, s := range servers {
			if s != nil {
				s.stop()
			}
		}
		if o.keepLogs {
			for _, name := range []string{"agentry.log", "langgraph.log"} {
				if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
					os.WriteFile("peers-"+name, b, 0o644)
				}
			}
		}
	}()

	mach := readMachine()
	logf("installing %d npm packages into %s", len(npmPackages), dir)
	if err := installLangGraph(ctx, dir); err != nil {
		return err
	}
	logf("building and starting agentry")
	ag, err := startAgentry(ctx, dir)
	if ag != nil {
		servers = append(servers, ag.srv)
	}
	if err != nil {
		return err
	}
	logf("starting the LangGraph dev server")
	lg, err := startLangGraph(ctx, dir)
	if lg != nil {
		servers = append(servers, lg.srv)
	}
	if err != nil {
		return err
	}

	client := &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: 1024,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
	}}
	targets := []*target{ag.target(), lg.target()}
	for _, t := range targets {
		logf("warming up %s for %s", t.Name, o.warmup)
		w := drive(ctx, client, t, 8, o.warmup)
		if ctx.Err() != nil {
			return errInterrupted
		}
		if w.Runs == 0 {
			return fmt.Errorf("%s completed no run while warming up: %s", t.Name, w.FirstError)
		}
	}
	var phases []phase
	for round := 1; round <= o.rounds; round++ {
		for _, c := range o.concs {
			order := targets
			if round%2 == 0 {
				order = []*target{targets[1], targets[0]}
			}
			for _, t := range order {
				if ctx.Err() != nil {
					return errInterrupted
				}
				// Both servers share the CPUs: neither may still be busy.
				for _, other := range targets {
					if !settle(ctx, other, settleAtMost) {
						logf("%s did not go idle within %s; measuring anyway", other.Name, settleAtMost)
					}
				}
				p := drive(ctx, client, t, c, o.phase)
				p.Round = round
				phases = append(phases, p)
				logf("round %d, %3d clients, %-9s %7.1f runs/s  p50 %s ms  p99 %s ms  first event %s ms  CPU %s ms/run  RSS %.0f MB  failed %d %s",
					round, c, t.Name, p.RunsPerSec, ms(p.P50), ms(p.P99), ms(p.FirstEvent), ms(p.CPUPerRun), float64(p.PeakRSS)/(1<<20), p.Failed, p.FirstError)
			}
		}
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	mach.LoadAfter = loadAverage()
	r := report{Date: time.Now(), Machine: mach, Phase: o.phase, Rounds: o.rounds, Warmup: o.warmup,
		Summaries: summarize(phases), Chart: filepath.Base(o.chart), Versions: versions(dir)}
	return writeReport(r, o.page, o.chart)
}

// versions lists what was compared: this checkout, Go, Node and the npm
// packages as npm resolved them.
func versions(dir string) [][2]string {
	v := [][2]string{{"Agentry", gitDescribe()}, {"Go", runtime.Version()}}
	if out, err := exec.Command("node", "--version").Output(); err == nil {
		v = append(v, [2]string{"Node", strings.TrimSpace(string(out))})
	}
	got := installedVersions(dir)
	for _, p := range npmPackages {
		if s, ok := got[p.Name]; ok {
			v = append(v, [2]string{"`" + p.Name + "`", s})
		}
	}
	return v
}

func gitDescribe() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return "commit " + strings.TrimSpace(string(out))
}

func writeReport(r report, page, chart string) error {
	doc, err := os.ReadFile(page)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	updated, err := replaceSection(string(doc), r.markdown())
	if err != nil {
		return fmt.Errorf("%s: %w", page, err)
	}
	caption := fmt.Sprintf("Five-step no-model workflow, %s, %d CPU(s), %s × %d round(s)", r.Date.UTC().Format("2006-01-02"), r.Machine.CPUs, r.Phase, r.Rounds)
	if err := os.WriteFile(chart, []byte(chartSVG(r.Summaries, caption)), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(page, []byte(updated), 0o644); err != nil {
		return err
	}
	logf("wrote %s and %s", page, chart)
	return nil
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05 ")+format+"\n", a...)
}
