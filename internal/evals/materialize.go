package evals

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// The engine's judgments are journaled with the step attempts they judge
// and moved into evaluation results in batches (repo.materializeJudgments):
// every materializeEvery in the background, and before every read of
// results, so a reader never misses a judgment its run has journaled.

// materializeEvery is how often the background pass runs. Longer batches
// cost runs less (a second's judgments per transaction measured a few
// percent of runs/s on SQLite, a fifth of a second's over 10%); readers
// materialize first, so the interval never delays what a read shows.
const materializeEvery = time.Second

// Run materializes judgments until ctx ends, then once more (the server
// stops its runs first, so the last pass leaves nothing journaled behind).
func (s *Service) Run(ctx context.Context) {
	t := time.NewTicker(materializeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			last, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s.logMaterialize(s.Materialize(last))
			return
		case <-t.C:
			s.logMaterialize(s.Materialize(ctx))
			// A criterion's deletion that a crash cut short (SQLite).
			if err := s.repo.finishCriteriaDeletions(ctx); err != nil && !isCanceled(err) {
				slog.Warn("deleting the results of deleted evaluation criteria", "err", err)
			}
		}
	}
}

func (s *Service) logMaterialize(err error) {
	if err != nil && !isCanceled(err) {
		slog.Warn("materializing evaluation results", "err", err)
	}
}

func isCanceled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Materialize moves every judgment journaled so far into evaluation
// results.
func (s *Service) Materialize(ctx context.Context) error {
	s.materializing.Lock()
	defer s.materializing.Unlock()
	_, err := s.repo.materializeJudgments(ctx)
	return err
}

// beforeRead materializes ahead of a read of results. A failure is
// logged and the read goes on: it shows what was materialized already,
// and the next pass moves the rest.
func (s *Service) beforeRead(ctx context.Context) {
	if err := s.Materialize(ctx); err != nil && ctx.Err() == nil {
		slog.Warn("materializing evaluation results before a read", "err", err)
	}
}
