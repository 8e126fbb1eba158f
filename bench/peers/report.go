package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Markers around the generated part of docs/performance.md; everything
// outside them is written by hand and kept.
const (
	beginMarker = "<!-- peers:begin -->"
	endMarker   = "<!-- peers:end -->"
)

// summary is one target at one concurrency over all rounds: medians, and
// the spread of runs/s.
type summary struct {
	Target         string
	Concurrency    int
	Rounds         int
	RunsPerSec     float64 // median
	MinRPS, MaxRPS float64
	P50, P99       time.Duration // medians of the rounds' percentiles
	FirstEvent     time.Duration
	CPUPerRun      time.Duration // all rounds' CPU over all rounds' runs
	PeakRSS        int64         // the largest of the rounds
	Runs, Failed   int           // totals
}

// summarize groups phases by concurrency and target, keeping the order in
// which targets first appear.
func summarize(phases []phase) []summary {
	type key struct {
		c int
		t string
	}
	var order []string
	seen := map[string]bool{}
	groups := map[key][]phase{}
	var concs []int
	seenC := map[int]bool{}
	for _, p := range phases {
		if !seen[p.Target] {
			seen[p.Target] = true
			order = append(order, p.Target)
		}
		if !seenC[p.Concurrency] {
			seenC[p.Concurrency] = true
			concs = append(concs, p.Concurrency)
		}
		k := key{p.Concurrency, p.Target}
		groups[k] = append(groups[k], p)
	}
	sort.Ints(concs)
	var out []summary
	for _, c := range concs {
		for _, t := range order {
			ps := groups[key{c, t}]
			if len(ps) == 0 {
				continue
			}
			s := summary{Target: t, Concurrency: c, Rounds: len(ps)}
			var rps []float64
			var p50, p99, first []time.Duration
			var cpu time.Duration
			for _, p := range ps {
				rps = append(rps, p.RunsPerSec)
				p50, p99, first = append(p50, p.P50), append(p99, p.P99), append(first, p.FirstEvent)
				cpu += p.CPU
				s.PeakRSS = max(s.PeakRSS, p.PeakRSS)
				s.Runs += p.Runs
				s.Failed += p.Failed
			}
			sort.Float64s(rps)
			s.RunsPerSec, s.MinRPS, s.MaxRPS = medianFloat(rps), rps[0], rps[len(rps)-1]
			s.P50, s.P99, s.FirstEvent = medianDur(p50), medianDur(p99), medianDur(first)
			if s.Runs > 0 {
				s.CPUPerRun = cpu / time.Duration(s.Runs)
			}
			out = append(out, s)
		}
	}
	return out
}

func medianFloat(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func medianDur(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	n := len(ds)
	if n%2 == 1 {
		return ds[n/2]
	}
	return (ds[n/2-1] + ds[n/2]) / 2
}

// machine describes where the figures were measured.
type machine struct {
	CPUs       int
	CPUModel   string
	MemoryGiB  float64
	OS         string
	LoadBefore string // /proc/loadavg's 1, 5 and 15 minute figures
	LoadAfter  string
}

func readMachine() machine {
	m := machine{CPUs: runtime.NumCPU(), CPUModel: "unknown", OS: runtime.GOOS + "/" + runtime.GOARCH, LoadBefore: loadAverage()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb float64
		for _, line := range strings.Split(string(b), "\n") {
			if _, err := fmt.Sscanf(line, "MemTotal: %f kB", &kb); err == nil {
				m.MemoryGiB = kb / (1 << 20)
				break
			}
		}
	}
	return m
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// report is everything the generated section shows.
type report struct {
	Date      time.Time
	Machine   machine
	Versions  [][2]string // name, version, in the order shown
	Phase     time.Duration
	Rounds    int
	Warmup    time.Duration
	Summaries []summary
	Chart     string // file name of the SVG, next to the page
}

// markdown renders the generated section, markers included.
func (r report) markdown() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("%s\n", beginMarker)
	w("<!-- Written by `go run ./bench/peers`; edits between these markers are overwritten. -->\n\n")
	w("Measured %s UTC with %s phases × %d round(s) (after a %s warm-up per server)", r.Date.UTC().Format("2006-01-02 15:04"), r.Phase, r.Rounds, r.Warmup)
	if r.Phase < 20*time.Second || r.Rounds < 3 {
		w(": **shorter than the standard 20 s × 3 rounds, so a rough reading only**")
	}
	w(".\n\n")
	m := r.Machine
	w("Machine: %d CPU(s), %s, %.1f GiB memory, %s; load average (1, 5, 15 min) %s before, %s after. ",
		m.CPUs, m.CPUModel, m.MemoryGiB, m.OS, m.LoadBefore, m.LoadAfter)
	w("The driver, both servers and anything else running share these CPUs.\n\n")
	w("Versions:")
	for i, v := range r.Versions {
		sep := ","
		if i == 0 {
			sep = ""
		}
		w("%s %s %s", sep, v[0], v[1])
	}
	w(".\n\n")
	w("![runs/s and p99 latency by concurrent clients](%s)\n\n", r.Chart)
	w("| clients | server | runs/s (median) | runs/s (min–max) | p50 ms | p99 ms | first SSE event ms | server CPU ms/run | peak RSS MB | runs | failed |\n")
	w("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Summaries {
		w("| %d | %s | %s | %s–%s | %s | %s | %s | %s | %.0f | %d | %d |\n",
			s.Concurrency, s.Target, rate(s.RunsPerSec), rate(s.MinRPS), rate(s.MaxRPS), ms(s.P50), ms(s.P99), ms(s.FirstEvent), ms(s.CPUPerRun),
			float64(s.PeakRSS)/(1<<20), s.Runs, s.Failed)
	}
	if ratios := r.ratios(); ratios != "" {
		w("\n%s\n", ratios)
	}
	w("\n%s\n", endMarker)
	return b.String()
}

// ratios compares the first target with the second at each concurrency.
func (r report) ratios() string {
	var names []string
	by := map[string]map[int]summary{}
	for _, s := range r.Summaries {
		if by[s.Target] == nil {
			by[s.Target] = map[int]summary{}
			names = append(names, s.Target)
		}
		by[s.Target][s.Concurrency] = s
	}
	if len(names) != 2 {
		return ""
	}
	a, b := names[0], names[1]
	var rps, cpu []string
	for _, s := range r.Summaries {
		if s.Target != a {
			continue
		}
		o, ok := by[b][s.Concurrency]
		if !ok {
			continue
		}
		if o.RunsPerSec > 0 {
			rps = append(rps, fmt.Sprintf("%.1f× at %d", s.RunsPerSec/o.RunsPerSec, s.Concurrency))
		}
		if o.CPUPerRun > 0 {
			cpu = append(cpu, fmt.Sprintf("%.2f× at %d", float64(s.CPUPerRun)/float64(o.CPUPerRun), s.Concurrency))
		}
	}
	if len(rps) == 0 {
		return ""
	}
	return fmt.Sprintf("%s ÷ %s: runs/s %s; server CPU per run %s.", a, b, strings.Join(rps, ", "), strings.Join(cpu, ", "))
}

// rate shows runs/s: one decimal below 10.
func rate(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// ms shows a duration in milliseconds: one decimal below 10 ms.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// replaceSection puts section in place of the text between (and including)
// the markers in doc, or appends it when the page has no markers yet.
func replaceSection(doc, section string) (string, error) {
	i := strings.Index(doc, beginMarker)
	j := strings.Index(doc, endMarker)
	switch {
	case i < 0 && j < 0 && doc == "":
		return section, nil
	case i < 0 && j < 0:
		if !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		return doc + "\n" + section, nil
	case i < 0 || j < 0 || j < i:
		return "", errors.New("the page's peers markers are unbalanced; fix them by hand")
	case strings.Count(doc, beginMarker) > 1 || strings.Count(doc, endMarker) > 1:
		return "", errors.New("the page has more than one peers section")
	}
	end := j + len(endMarker)
	if end < len(doc) && doc[end] == '\n' {
		end++
	}
	return doc[:i] + section + doc[end:], nil
}
