package runs

import (
	"context"
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

// Work approves, rejects or fails each overdue review's run.
func (w *ReviewDeadlinesWorker) Work(ctx context.Context, _ *river.Job[ReviewDeadlinesArgs]) error {
	due, err := w.S.DB.OverdueReviews(ctx, time.Now())
	if err != nil {
		return err
	}
	for _, rv := range due {
		switch rv.OnTimeout {
		case "approve":
			err = w.S.Decide(ctx, rv.AccountID, rv.RunID, rv.StepKey, true, "")
		case "fail":
			if _, err = w.S.DB.DecideReview(ctx, rv.AccountID, rv.RunID, rv.StepKey, false, ""); err == nil {
				var r store.Run
				if r, err = w.S.DB.Run(ctx, rv.AccountID, rv.RunID); err == nil && !store.RunTerminal(r.Status) {
					err = w.S.finish(ctx, r, 0, store.RunResult{Status: store.RunFailed, Error: "No reviewer decided before the deadline"})
				}
			}
		default:
			err = w.S.Decide(ctx, rv.AccountID, rv.RunID, rv.StepKey, false, "")
		}
		if err != nil {
			return err
		}
	}
	return nil
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
