package knowledge

import (
	"context"
	"log/slog"
	"time"

	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// FireArgs announces one indexed content version to new_content agents.
type FireArgs struct {
	AccountID string `json:"account_id"`
	ContentID string `json:"content_id"`
	VersionID string `json:"version_id"`
}

// Kind names the job kind.
func (FireArgs) Kind() string { return "knowledge_new_content" }

type fireWorker struct {
	river.WorkerDefaults[FireArgs]
	s *Service
}

// Work fires the account's new_content agents once for the version: the
// job is inserted with the version's chunks and unique by its arguments,
// and the claim on the content row stops a retry from firing again.
func (w *fireWorker) Work(ctx context.Context, job *river.Job[FireArgs]) error {
	s := w.s
	if s.firer == nil {
		return nil
	}
	c, err := s.repo().Content(ctx, job.Args.AccountID, job.Args.ContentID)
	if err != nil {
		return nil // deleted since
	}
	won, err := s.repo().ClaimContentFire(ctx, c.ID, job.Args.VersionID)
	if err != nil || !won {
		return err
	}
	title := ""
	if c.Title != nil {
		title = *c.Title
	}
	meta := map[string]any{
		"source_connection_content_version_id": c.ID, "content_version_id": job.Args.VersionID,
		"source_connection_id": c.SourceID, "source_type": c.SourceType, "title": title, "content_url": c.ContentURL,
		"version": c.Version,
	}
	return s.firer.FireNewContent(ctx, c.AccountID, c.ID, meta)
}

// RetentionArgs removes contents older than their source's retention.
type RetentionArgs struct{}

// Kind names the job kind.
func (RetentionArgs) Kind() string { return "knowledge_retention" }

// InsertOpts puts the kind on the background queue.
func (RetentionArgs) InsertOpts() river.InsertOpts { return jobs.Background }

type retentionWorker struct {
	river.WorkerDefaults[RetentionArgs]
	s *Service
}

func (w *retentionWorker) Work(ctx context.Context, _ *river.Job[RetentionArgs]) error {
	_, err := w.s.ApplyRetention(ctx, w.s.now())
	return err
}

// ApplyRetention deletes every content pulled more than its source's
// retention days before now, and returns how many.
func (s *Service) ApplyRetention(ctx context.Context, now time.Time) (int, error) {
	srcs, err := s.repo().SourcesWithRetention(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, src := range srcs {
		cut := now.Add(-time.Duration(src.Days) * 24 * time.Hour)
		for {
			ids, err := s.repo().ContentsOlderThan(ctx, src.AccountID, src.ID, cut, 200)
			if err != nil {
				return n, err
			}
			for _, id := range ids {
				if err := s.deleteContent(ctx, src.AccountID, id, false); err != nil && err != store.ErrNotFound {
					return n, err
				}
				n++
			}
			if len(ids) < 200 {
				break
			}
		}
	}
	if n > 0 {
		slog.Info("knowledge retention removed contents", "count", n)
	}
	return n, nil
}

// AddWorkers registers the area's job kinds.
func AddWorkers(w *river.Workers, s *Service) {
	river.AddWorker(w, &indexWorker{s: s})
	river.AddWorker(w, &fireWorker{s: s})
	river.AddWorker(w, &retentionWorker{s: s})
	river.AddWorker(w, &pollTickWorker{s: s})
	river.AddWorker(w, &pollWorker{s: s})
	river.AddWorker(w, &migrationWorker{s: s})
}

// DefaultPollInterval is how often the poll tick looks for due feeds and
// sites when the configuration does not say.
const DefaultPollInterval = 30 * time.Second

// PeriodicJobs are the area's periodic jobs: retention hourly, and the
// poll tick that hands due feeds and sites to poll jobs every pollEvery
// (DefaultPollInterval when zero): a source is polled at most that long
// after it falls due.
func PeriodicJobs(pollEvery time.Duration) []*river.PeriodicJob {
	if pollEvery <= 0 {
		pollEvery = DefaultPollInterval
	}
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour), func() (river.JobArgs, *river.InsertOpts) {
			return RetentionArgs{}, nil
		}, &river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(pollEvery), func() (river.JobArgs, *river.InsertOpts) {
			return PollTickArgs{}, nil
		}, &river.PeriodicJobOpts{RunOnStart: true}),
	}
}
