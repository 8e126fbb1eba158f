package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// target is one server under test, seen by the driver: how to start one
// streamed run, and how to read its events.
type target struct {
	Name string
	// NewRequest builds the request that starts one run and streams it.
	NewRequest func(ctx context.Context) (*http.Request, error)
	// Event judges one SSE event of the run: complete once the run has
	// finished successfully; last when no more events are needed.
	Event func(event, data string) (complete, last bool, err error)
	// PGID is the process group of the server (0: not measured).
	PGID int
}

// runResult is one streamed run as the client saw it.
type runResult struct {
	FirstEvent time.Duration // request sent → first SSE event read
	Total      time.Duration // request sent → run complete
}

// maxEventBytes bounds one SSE line the driver reads.
const maxEventBytes = 1 << 20

// streamRun starts one run and reads its SSE stream until the target says
// it is over (or the server closes the stream).
func streamRun(ctx context.Context, client *http.Client, t *target) (runResult, error) {
	var r runResult
	req, err := t.NewRequest(ctx)
	if err != nil {
		return r, err
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return r, fmt.Errorf("%s: HTTP %d: %s", t.Name, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), maxEventBytes)
	var (
		event    string
		data     []string
		complete bool
	)
	dispatch := func() (bool, error) {
		if event == "" && len(data) == 0 {
			return false, nil
		}
		c, last, err := t.Event(event, strings.Join(data, "\n"))
		event, data = "", data[:0]
		complete = complete || c
		return last, err
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			last, err := dispatch()
			if err != nil {
				return r, err
			}
			if last {
				return finish(r, start, complete, t)
			}
		case strings.HasPrefix(line, "event:"):
			if r.FirstEvent == 0 {
				r.FirstEvent = time.Since(start)
			}
			event = strings.TrimSpace(line[len("event:"):])
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(line[len("data:"):], " "))
		}
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	if _, err := dispatch(); err != nil {
		return r, err
	}
	return finish(r, start, complete, t)
}

func finish(r runResult, start time.Time, complete bool, t *target) (runResult, error) {
	if !complete {
		return r, fmt.Errorf("%s: the stream ended before the run completed", t.Name)
	}
	r.Total = time.Since(start)
	return r, nil
}

// phase is what one target did at one concurrency for one duration.
type phase struct {
	Target      string
	Concurrency int
	Round       int
	Runs        int
	Failed      int
	Elapsed     time.Duration
	RunsPerSec  float64
	P50, P99    time.Duration // run latency
	FirstEvent  time.Duration // median time to the first SSE event
	CPU         time.Duration // server CPU (the whole process group) over the phase
	CPUPerRun   time.Duration // CPU per completed run
	PeakRSS     int64         // bytes, the whole process group, sampled
	FirstError  string
}

// rssEvery is how often the server's memory is sampled during a phase.
const rssEvery = 200 * time.Millisecond

// perRunTimeout bounds one run, so a stuck server cannot stall a phase.
const perRunTimeout = 60 * time.Second

// drive runs conc clients against t for d, each starting its next run as
// soon as the previous one completes.
func drive(ctx context.Context, client *http.Client, t *target, conc int, d time.Duration) phase {
	p := phase{Target: t.Name, Concurrency: conc}
	var (
		mu      sync.Mutex
		results []runResult
		failed  atomic.Int64
		errOnce sync.Once
	)
	before, _ := usage(t)
	peak := atomic.Int64{}
	peak.Store(before.RSS)
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(rssEvery)
		defer tick.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-tick.C:
				if u, err := usage(t); err == nil && u.RSS > peak.Load() {
					peak.Store(u.RSS)
				}
			}
		}
	}()
	start := time.Now()
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pctx.Err() == nil {
				rctx, rcancel := context.WithTimeout(pctx, perRunTimeout)
				r, err := streamRun(rctx, client, t)
				rcancel()
				if err != nil {
					if pctx.Err() != nil {
						return // cut off by the end of the phase: not counted
					}
					failed.Add(1)
					errOnce.Do(func() { p.FirstError = err.Error() })
					time.Sleep(10 * time.Millisecond) // no hot loop on a failing server
					continue
				}
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	p.Elapsed = time.Since(start)
	close(stopSampling)
	<-sampled
	after, _ := usage(t)
	if after.RSS > peak.Load() {
		peak.Store(after.RSS)
	}
	p.Runs, p.Failed, p.PeakRSS = len(results), int(failed.Load()), peak.Load()
	p.RunsPerSec = float64(p.Runs) / p.Elapsed.Seconds()
	p.CPU = after.CPU - before.CPU
	if p.Runs > 0 {
		p.CPUPerRun = p.CPU / time.Duration(p.Runs)
	}
	total := make([]time.Duration, len(results))
	first := make([]time.Duration, len(results))
	for i, r := range results {
		total[i], first[i] = r.Total, r.FirstEvent
	}
	p.P50, p.P99 = percentile(total, .50), percentile(total, .99)
	p.FirstEvent = percentile(first, .50)
	return p
}

// Settling between phases: a server is idle when its process group uses
// less than idleShare of one CPU over settleSample.
const (
	settleSample = 500 * time.Millisecond
	idleShare    = 0.05
	settleAtMost = 30 * time.Second
)

// settle waits until the server has finished the work the last phase left
// behind (runs whose clients were cut off at the end of the phase go on
// running on both servers), so that it is not counted in the next phase.
// It reports whether the server went idle within atMost.
func settle(ctx context.Context, t *target, atMost time.Duration) bool {
	if t.PGID == 0 {
		return true
	}
	deadline := time.Now().Add(atMost)
	prev, err := usage(t)
	for err == nil && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(settleSample):
		}
		var cur groupUsage
		if cur, err = usage(t); err != nil {
			break
		}
		if float64(cur.CPU-prev.CPU) < idleShare*float64(settleSample) {
			return true
		}
		prev = cur
	}
	return false
}

func usage(t *target) (groupUsage, error) {
	if t.PGID == 0 {
		return groupUsage{}, nil
	}
	return readGroupUsage(t.PGID)
}

// percentile is the nearest-rank percentile of ds (which it sorts).
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	i := int(p*float64(len(ds))+0.999999) - 1
	i = max(0, min(i, len(ds)-1))
	return ds[i]
}
