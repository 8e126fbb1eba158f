package domains

import (
	"context"

	"github.com/agentry/agentry/internal/jobs"
	"github.com/riverqueue/river"
)

// SweepArgs is the periodic verification sweep.
type SweepArgs struct{}

// Kind implements river.JobArgs.
func (SweepArgs) Kind() string { return "email_domain_sweep" }

// InsertOpts puts the kind on the background queue.
func (SweepArgs) InsertOpts() river.InsertOpts { return jobs.Background }

// SweepWorker checks the domains whose last check is older than the
// sweep interval, a bounded batch per run.
type SweepWorker struct {
	river.WorkerDefaults[SweepArgs]
	S *Service
}

// Work implements river.Worker.
func (w *SweepWorker) Work(ctx context.Context, _ *river.Job[SweepArgs]) error {
	_, err := w.S.Sweep(ctx, 200)
	return err
}

// AddWorkers registers the area's job kinds.
func AddWorkers(ws *river.Workers, s *Service) { river.AddWorker(ws, &SweepWorker{S: s}) }

// PeriodicJobs is the sweep, run by the elected leader only, so one
// replica sweeps however many run.
func PeriodicJobs(s *Service) []*river.PeriodicJob {
	every := max(s.cfg.SweepInterval/3, 1e9)
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(every), func() (river.JobArgs, *river.InsertOpts) {
		return SweepArgs{}, nil
	}, nil)}
}
