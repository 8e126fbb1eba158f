package alerts

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// DetectArgs is the periodic sweep of the run detectors.
type DetectArgs struct{}

// Kind names the job.
func (DetectArgs) Kind() string { return "alert_detect_runs" }

// CreditsArgs is the periodic credits alert sweep.
type CreditsArgs struct{}

// Kind names the job.
func (CreditsArgs) Kind() string { return "alert_detect_credits" }

// Intervals of the sweeps. Run failures are raised inline within a second;
// the run sweep only catches up and moves the windows, so half a minute
// is plenty. Credit balances move slowly.
const (
	DetectInterval  = 30 * time.Second
	CreditsInterval = 5 * time.Minute
	// markRetention is how long run marks and pull outcomes are kept.
	markRetention = 7 * 24 * time.Hour
)

// DetectWorker runs the run detectors' sweep.
type DetectWorker struct {
	river.WorkerDefaults[DetectArgs]
	S *Service
}

// Work implements river.Worker.
func (w *DetectWorker) Work(ctx context.Context, _ *river.Job[DetectArgs]) error {
	n, err := w.S.DetectRuns(ctx)
	if err != nil {
		return err
	}
	if lost := w.S.overflow.Swap(0); lost > 0 {
		slog.WarnContext(ctx, "finished runs overflowed the inline alert queue; the sweep counted them", "runs", lost)
	}
	slog.DebugContext(ctx, "alert run detectors swept", "configs", n)
	return w.S.repo.pruneMarks(ctx, w.S.now().Add(-markRetention))
}

// CreditsWorker runs the credits sweep.
type CreditsWorker struct {
	river.WorkerDefaults[CreditsArgs]
	S *Service
}

// Work implements river.Worker.
func (w *CreditsWorker) Work(ctx context.Context, _ *river.Job[CreditsArgs]) error {
	_, err := w.S.DetectCredits(ctx)
	return err
}

// NotifyWorker fans an alert event out to deliveries.
type NotifyWorker struct {
	river.WorkerDefaults[NotifyArgs]
	S *Service
}

// Work implements river.Worker.
func (w *NotifyWorker) Work(ctx context.Context, job *river.Job[NotifyArgs]) error {
	return w.S.fanOut(ctx, job.Args)
}

// DeliverWorker makes one delivery attempt.
type DeliverWorker struct {
	river.WorkerDefaults[DeliverArgs]
	S *Service
}

// Work implements river.Worker.
func (w *DeliverWorker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	return w.S.deliver(ctx, job.Args.DeliveryID, job.Attempt, job.MaxAttempts)
}

// NextRetry backs off exponentially from one second: 1, 2, 4, 8, 16 s.
// River's default (attempt⁴ seconds) would leave a receiver that was
// down for a minute waiting ten more.
func (w *DeliverWorker) NextRetry(job *river.Job[DeliverArgs]) time.Time {
	return time.Now().Add(time.Second << min(job.Attempt-1, 10))
}

// Timeout bounds one attempt (a webhook request has its own shorter one).
func (w *DeliverWorker) Timeout(*river.Job[DeliverArgs]) time.Duration { return 30 * time.Second }

// AddWorkers registers the area's job kinds.
func AddWorkers(workers *river.Workers, s *Service) {
	river.AddWorker(workers, &DetectWorker{S: s})
	river.AddWorker(workers, &CreditsWorker{S: s})
	river.AddWorker(workers, &NotifyWorker{S: s})
	river.AddWorker(workers, &DeliverWorker{S: s})
}

// PeriodicJobs returns the area's schedules.
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(DetectInterval), func() (river.JobArgs, *river.InsertOpts) {
			return DetectArgs{}, nil
		}, &river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(CreditsInterval), func() (river.JobArgs, *river.InsertOpts) {
			return CreditsArgs{}, nil
		}, &river.PeriodicJobOpts{RunOnStart: true}),
	}
}
