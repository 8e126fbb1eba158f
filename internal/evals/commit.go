package evals

import (
	"context"
	"sync"

	"github.com/agentry/agentry/internal/store"
)

// Judgments made by concurrent runs are recorded in shared transactions
// (a group commit): while one batch commits, the next gathers. Each step
// still waits until its results are durable before its run goes on, so
// nothing is recorded later than before; what changes is that a busy
// server pays one commit for many judgments instead of one each, which
// on SQLite's single writer was most of what evaluation cost a run.

// maxResultGroup bounds the results one transaction carries.
const maxResultGroup = 256

type resultWriter struct {
	mu      sync.Mutex
	pending []*pendingResults
	running bool
}

type pendingResults struct {
	rs   []store.EvaluationResult
	out  []store.EvaluationResult
	err  error
	done chan struct{}
}

// record stores rs (one step's judgments) and returns them as saved.
func (s *Service) record(ctx context.Context, rs []store.EvaluationResult) ([]store.EvaluationResult, error) {
	p := &pendingResults{rs: rs, done: make(chan struct{})}
	w := &s.results
	w.mu.Lock()
	w.pending = append(w.pending, p)
	if !w.running {
		w.running = true
		go s.flushResults()
	}
	w.mu.Unlock()
	select {
	case <-p.done:
		return p.out, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *Service) flushResults() {
	w := &s.results
	for {
		w.mu.Lock()
		n, count := 0, 0
		for n < len(w.pending) && (count == 0 || count+len(w.pending[n].rs) <= maxResultGroup) {
			count += len(w.pending[n].rs)
			n++
		}
		batch := w.pending[:n:n]
		w.pending = w.pending[n:]
		if len(batch) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		ctx := context.Background()
		all := make([]store.EvaluationResult, 0, count)
		for _, p := range batch {
			all = append(all, p.rs...)
		}
		saved, err := s.DB.InsertEvaluationResults(ctx, all)
		if err != nil && len(batch) > 1 {
			// One step's bad row (its criterion deleted meanwhile) must
			// not fail the others: record each step's alone.
			for _, p := range batch {
				p.out, p.err = s.DB.InsertEvaluationResults(ctx, p.rs)
				close(p.done)
			}
			continue
		}
		i := 0
		for _, p := range batch {
			if err == nil {
				p.out = saved[i : i+len(p.rs)]
			}
			p.err = err
			i += len(p.rs)
			close(p.done)
		}
	}
}
