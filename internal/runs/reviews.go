package runs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// ReviewDeadlinesArgs is the periodic job applying on_timeout to reviews
// nobody decided in time.
type ReviewDeadlinesArgs struct{}

// Kind names the job kind.
func (ReviewDeadlinesArgs) Kind() string { return "review_deadlines" }

// ReviewDeadlinesWorker applies overdue reviews' on_timeout policy.
type ReviewDeadlinesWorker struct {
	river.WorkerDefaults[ReviewDeadlinesArgs]
	S *Service
}

// Work applies each overdue review's on_timeout policy, then resumes the
// parked runs owed a resume. One review that fails does not stop the
// others: every error is reported, joined, at the end (River logs it and
// the next sweep tries the failed ones again).
func (w *ReviewDeadlinesWorker) Work(ctx context.Context, _ *river.Job[ReviewDeadlinesArgs]) error {
	due, err := w.S.reviews.overdue(ctx, time.Now())
	errs := []error{err} // rows that could not be read; the others are still swept
	for _, rv := range due {
		if err := w.S.applyTimeout(ctx, rv); err != nil {
			errs = append(errs, fmt.Errorf("review %s of run %s: %w", rv.StepKey, rv.RunID, err))
		}
	}
	if _, err := w.S.ResumeDecided(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// applyTimeout decides an overdue review by its on_timeout policy.
func (s *Service) applyTimeout(ctx context.Context, rv Review) error {
	d := Decision{Approved: rv.OnTimeout == "approve", TimedOut: true}
	if rv.OnTimeout != "fail" {
		_, err := s.Decide(ctx, rv.AccountID, rv.RunID, rv.StepKey, d)
		if errors.Is(err, ErrReviewDecided) || errors.Is(err, ErrReviewRunFinished) {
			return nil // decided or ended meanwhile
		}
		return err
	}
	if _, err := s.reviews.decide(ctx, rv.AccountID, rv.RunID, rv.StepKey, d); errors.Is(err, store.ErrConflict) {
		return nil
	} else if err != nil {
		return err
	}
	r, err := s.Repo.Run(ctx, rv.AccountID, rv.RunID)
	if err != nil {
		return err
	}
	if !unheld(r.Status) {
		// A worker holds the run (it was being parked): it finds the
		// timed-out decision at the step, or after parking, and fails.
		return nil
	}
	moved, err := s.finish(ctx, r, 0, RunResult{Status: RunFailed, ErrorCount: 1, Error: "No reviewer decided before the deadline"})
	if err == nil && !moved {
		// A worker took the run in between: it reads the decision and fails.
		return nil
	}
	return err
}

// StrandedRunsArgs is the periodic job re-enqueueing stranded runs.
type StrandedRunsArgs struct{}

// Kind names the job kind.
func (StrandedRunsArgs) Kind() string { return "stranded_runs" }

// StrandedRunsWorker re-enqueues runs whose job was never inserted.
type StrandedRunsWorker struct {
	river.WorkerDefaults[StrandedRunsArgs]
	S *Service
}

// Work sweeps.
func (w *StrandedRunsWorker) Work(ctx context.Context, _ *river.Job[StrandedRunsArgs]) error {
	_, err := w.S.RequeueStranded(ctx, time.Now())
	return err
}

// PeriodicJobs returns the runs area's schedules.
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(time.Minute), func() (river.JobArgs, *river.InsertOpts) {
			return ReviewDeadlinesArgs{}, nil
		}, &river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(15*time.Second), func() (river.JobArgs, *river.InsertOpts) {
			return SchedulerArgs{}, nil
		}, &river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Minute), func() (river.JobArgs, *river.InsertOpts) {
			return StrandedRunsArgs{}, nil
		}, &river.PeriodicJobOpts{RunOnStart: true}),
	}
}
