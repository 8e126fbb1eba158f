package modelalerts

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// sweepPage is how many agents a sweep reads at a time.
const sweepPage = 200

// Sweep runs fn over every live agent of every account. One agent's
// failure is logged and does not stop the others: a sweep that gave up at
// the first broken definition would leave every later account unwarned.
// It returns how many agents fn was applied to.
func (s *Service) sweep(ctx context.Context, what string, fn func(ctx context.Context, ref agentrow.Ref) error) (int, error) {
	after, n := "", 0
	for {
		refs, err := s.Agents.AgentsAfter(ctx, after, sweepPage)
		if err != nil {
			return n, err
		}
		for _, ref := range refs {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			if err := fn(ctx, ref); err != nil && !errors.Is(err, store.ErrNotFound) {
				slog.WarnContext(ctx, what+" failed for an agent", "account_id", ref.AccountID, "agent_id", ref.ID, "err", err)
			}
			n++
			after = ref.ID
		}
		if len(refs) < sweepPage {
			return n, nil
		}
	}
}

// CheckAll raises the lifecycle alerts of every agent (the scheduled sweep).
func (s *Service) CheckAll(ctx context.Context) (int, error) {
	return s.sweep(ctx, "model lifecycle check", func(ctx context.Context, ref agentrow.Ref) error {
		_, err := s.CheckAgent(ctx, ref.AccountID, ref.ID)
		return err
	})
}

// UpgradeAll applies every agent's rollback and upgrade settings (the
// scheduled job), then checks the alerts of the agents it changed, so
// their alerts describe the models they now use.
func (s *Service) UpgradeAll(ctx context.Context) (int, error) {
	return s.sweep(ctx, "model auto-upgrade", func(ctx context.Context, ref agentrow.Ref) error {
		changes, err := s.UpgradeAgent(ctx, ref.AccountID, ref.ID)
		if err != nil || len(changes) == 0 {
			return err
		}
		_, err = s.CheckAgent(ctx, ref.AccountID, ref.ID)
		return err
	})
}

// CheckArgs is the job of the lifecycle alert sweep.
type CheckArgs struct{}

// Kind names the job.
func (CheckArgs) Kind() string { return "model_lifecycle_alerts" }

// UpgradeArgs is the job of the auto-upgrade and rollback pass.
type UpgradeArgs struct{}

// Kind names the job.
func (UpgradeArgs) Kind() string { return "model_auto_upgrade" }

// CheckWorker runs the alert sweep.
type CheckWorker struct {
	river.WorkerDefaults[CheckArgs]
	S *Service
}

// Work implements river.Worker.
func (w *CheckWorker) Work(ctx context.Context, _ *river.Job[CheckArgs]) error {
	n, err := w.S.CheckAll(ctx)
	slog.DebugContext(ctx, "model lifecycle alerts checked", "agents", n)
	return err
}

// UpgradeWorker runs the upgrade pass.
type UpgradeWorker struct {
	river.WorkerDefaults[UpgradeArgs]
	S *Service
}

// Work implements river.Worker.
func (w *UpgradeWorker) Work(ctx context.Context, _ *river.Job[UpgradeArgs]) error {
	n, err := w.S.UpgradeAll(ctx)
	slog.DebugContext(ctx, "model auto-upgrade pass done", "agents", n)
	return err
}

// AddWorkers registers the area's job kinds.
func AddWorkers(workers *river.Workers, s *Service) {
	river.AddWorker(workers, &CheckWorker{S: s})
	river.AddWorker(workers, &UpgradeWorker{S: s})
}

// Intervals of the scheduled jobs. Model lifecycle facts change by the
// day; hourly passes notice a new catalog soon after a restart without
// measurable load.
const (
	CheckInterval   = time.Hour
	UpgradeInterval = time.Hour
)

// PeriodicJobs returns the area's schedules. Both run on start too, so a
// catalog updated with a deploy is acted on at once.
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(CheckInterval), func() (river.JobArgs, *river.InsertOpts) {
			return CheckArgs{}, nil
		}, &river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(UpgradeInterval), func() (river.JobArgs, *river.InsertOpts) {
			return UpgradeArgs{}, nil
		}, &river.PeriodicJobOpts{RunOnStart: true}),
	}
}
