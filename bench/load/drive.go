package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// maxSamplesPerWorker bounds the memory the latency record can take
// (8 bytes a sample: at most 8 MB per worker), however long the run.
const maxSamplesPerWorker = 1 << 20

// Result is one measured run.
type Result struct {
	Name      string
	Requests  int           // completed with the expected status
	Failures  int           // wrong status or transport error
	FirstErr  string        // the first failure, for the report
	Elapsed   time.Duration // measured wall time
	Latencies []time.Duration
	// CPU is the process's CPU time (client and server together) over the
	// measured interval; 0 when the platform does not report it.
	CPU time.Duration
}

// CPUPerRequest is the CPU time one request cost, client side included.
func (r Result) CPUPerRequest() time.Duration {
	if r.Requests == 0 {
		return 0
	}
	return r.CPU / time.Duration(r.Requests)
}

// RPS is completed requests per second.
func (r Result) RPS() float64 { return float64(r.Requests) / r.Elapsed.Seconds() }

// Percentile returns the p-th percentile latency (0 < p ≤ 100); Latencies
// must be sorted.
func (r Result) Percentile(p float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	i := int(float64(len(r.Latencies))*p/100+0.5) - 1
	i = max(0, min(i, len(r.Latencies)-1))
	return r.Latencies[i]
}

// Target is what one run sends: a URL and its headers.
type Target struct {
	Name   string
	URL    string
	Header http.Header
}

// newClient returns the keep-alive client every run uses, so both targets
// are measured with identical client settings: one pooled connection per
// worker, never closed between requests, no compression.
func newClient(concurrency int) *http.Client {
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns:        concurrency,
			MaxIdleConnsPerHost: concurrency,
			MaxConnsPerHost:     concurrency,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
	}
}

// Add merges another round of the same target into r.
func (r *Result) Add(o Result) {
	r.Requests += o.Requests
	r.Failures += o.Failures
	if r.FirstErr == "" {
		r.FirstErr = o.FirstErr
	}
	r.Elapsed += o.Elapsed
	r.CPU += o.CPU
	r.Latencies = append(r.Latencies, o.Latencies...)
	slices.Sort(r.Latencies)
}

// Drive sends requests to t from concurrency workers, each waiting for its
// answer before sending the next (a closed loop), for warmup (not
// measured) and then duration (measured). client carries the keep-alive
// connections from one round to the next.
func Drive(ctx context.Context, client *http.Client, t Target, concurrency int, warmup, duration time.Duration) Result {
	var (
		mu     sync.Mutex
		result = Result{Name: t.Name}
		wg     sync.WaitGroup
	)
	start := time.Now()
	measureFrom := start.Add(warmup)
	end := measureFrom.Add(duration)
	go func() {
		// Sample CPU at the start of the measured interval.
		select {
		case <-time.After(time.Until(measureFrom)):
		case <-ctx.Done():
			return
		}
		if cpu, ok := processCPU(); ok {
			mu.Lock()
			result.CPU = -cpu
			mu.Unlock()
		}
	}()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			samples := make([]time.Duration, 0, 4096)
			ok, failed, firstErr := 0, 0, ""
			for ctx.Err() == nil {
				sent := time.Now()
				if !sent.Before(end) {
					break
				}
				err := once(ctx, client, t)
				took := time.Since(sent)
				if sent.Before(measureFrom) {
					continue
				}
				if err != nil {
					failed++
					if firstErr == "" {
						firstErr = err.Error()
					}
					continue
				}
				ok++
				if len(samples) < maxSamplesPerWorker {
					samples = append(samples, took)
				}
			}
			mu.Lock()
			result.Requests += ok
			result.Failures += failed
			if result.FirstErr == "" {
				result.FirstErr = firstErr
			}
			result.Latencies = append(result.Latencies, samples...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	result.Elapsed = time.Since(measureFrom)
	mu.Lock()
	if cpu, ok := processCPU(); ok && result.CPU < 0 {
		result.CPU += cpu
	} else {
		result.CPU = 0
	}
	mu.Unlock()
	slices.Sort(result.Latencies)
	return result
}

// once sends one request and reads the whole answer, so the connection
// goes back to the pool.
func once(ctx context.Context, client *http.Client, t Target) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.URL, nil)
	if err != nil {
		return err
	}
	for k, v := range t.Header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}
