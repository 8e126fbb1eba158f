package memory

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// CompactArgs compacts one bank now (POST …/compact).
type CompactArgs struct {
	AccountID string `json:"account_id"`
	BankID    string `json:"memory_bank_id"`
}

// Kind names the job kind.
func (CompactArgs) Kind() string { return "memory_compact" }

// InsertOpts puts the kind on the background queue.
func (CompactArgs) InsertOpts() river.InsertOpts { return jobs.Background }

type compactWorker struct {
	river.WorkerDefaults[CompactArgs]
	s *Service
}

func (w *compactWorker) Work(ctx context.Context, job *river.Job[CompactArgs]) error {
	b, err := w.s.repo.MemoryBank(ctx, job.Args.AccountID, job.Args.BankID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // deleted since
	}
	if err != nil {
		return err
	}
	n, err := w.s.CompactBank(ctx, b)
	if n > 0 {
		slog.Info("memory bank compacted", "bank", b.ID, "partitions", n)
	}
	return err
}

// SweepArgs runs the hourly sweep.
type SweepArgs struct{}

// Kind names the job kind.
func (SweepArgs) Kind() string { return "memory_sweep" }

// InsertOpts puts the kind on the background queue.
func (SweepArgs) InsertOpts() river.InsertOpts { return jobs.Background }

type sweepWorker struct {
	river.WorkerDefaults[SweepArgs]
	s *Service
}

func (w *sweepWorker) Work(ctx context.Context, _ *river.Job[SweepArgs]) error {
	n, err := w.s.Sweep(ctx)
	if n > 0 {
		slog.Info("memory sweep compacted partitions", "partitions", n)
	}
	return err
}

// Timeout lets a sweep over many banks run longer than a job's default.
func (w *sweepWorker) Timeout(*river.Job[SweepArgs]) time.Duration { return 30 * time.Minute }

// AddWorkers registers the area's job kinds.
func AddWorkers(w *river.Workers, s *Service) {
	river.AddWorker(w, &compactWorker{s: s})
	river.AddWorker(w, &sweepWorker{s: s})
}

// PeriodicJobs is the hourly sweep. River's leader alone enqueues periodic
// jobs, and the job is unique per hour, so one sweep runs across all
// replicas.
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour), func() (river.JobArgs, *river.InsertOpts) {
			return SweepArgs{}, &river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: time.Hour}}
		}, &river.PeriodicJobOpts{RunOnStart: true}),
	}
}

// ScheduleCompaction queues a compaction of the bank now; the bank needs
// a threshold. A compaction already queued for the bank absorbs this one.
func (s *Service) ScheduleCompaction(ctx context.Context, accountID, id string) error {
	b, err := s.repo.MemoryBank(ctx, accountID, id)
	if err != nil {
		return err
	}
	if !b.HasThreshold() {
		return ErrNoThreshold
	}
	if s.queue == nil {
		return errors.New("no job queue")
	}
	_, err = s.queue.Insert(ctx, CompactArgs{AccountID: accountID, BankID: id}, &river.InsertOpts{MaxAttempts: 5,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
			rivertype.JobStateRunning, rivertype.JobStateScheduled, rivertype.JobStateRetryable}}})
	return err
}
