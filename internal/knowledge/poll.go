package knowledge

import (
	"context"
	"log/slog"
	"time"

	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// Polling: a periodic tick (on the elected leader only) finds the rss and
// website sources whose next poll is due, moves each one's next_poll_at by
// compare-and-set (so one replica wins each poll), and enqueues a poll job
// unique by source and due time. The job fetches the feed or crawls the
// site and turns what is new or changed into contents.

// PollTickArgs finds due sources.
type PollTickArgs struct{}

// Kind names the job kind.
func (PollTickArgs) Kind() string { return "knowledge_poll_tick" }

// PollArgs polls one source.
type PollArgs struct {
	AccountID string    `json:"account_id"`
	SourceID  string    `json:"source_id"`
	Due       time.Time `json:"due"`
}

// Kind names the job kind.
func (PollArgs) Kind() string { return "knowledge_poll" }

// InsertOpts puts the kind on the background queue.
func (PollArgs) InsertOpts() river.InsertOpts { return jobs.Background }

type pollTickWorker struct {
	river.WorkerDefaults[PollTickArgs]
	s *Service
}

func (w *pollTickWorker) Work(ctx context.Context, _ *river.Job[PollTickArgs]) error {
	_, err := w.s.QueueDuePolls(ctx, w.s.now())
	return err
}

// pollLease is how far a claimed poll moves next_poll_at ahead: if the poll
// job is lost, the source is polled again after it. The job sets the real
// next time when it finishes.
const pollLease = 30 * time.Minute

// QueueDuePolls claims and enqueues every due poll; it returns how many.
func (s *Service) QueueDuePolls(ctx context.Context, now time.Time) (int, error) {
	due, err := s.repo().DueSources(ctx, now, 200)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range due {
		won, err := s.repo().ClaimSourcePoll(ctx, d.ID, d.NextPollAt, now.Add(pollLease))
		if err != nil {
			return n, err
		}
		if !won {
			continue
		}
		if _, err := s.queue.Insert(ctx, PollArgs{AccountID: d.AccountID, SourceID: d.ID, Due: d.NextPollAt},
			&river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByArgs: true}}); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

type pollWorker struct {
	river.WorkerDefaults[PollArgs]
	s *Service
}

func (w *pollWorker) Work(ctx context.Context, job *river.Job[PollArgs]) error {
	s := w.s
	src, err := s.repo().Source(ctx, job.Args.AccountID, job.Args.SourceID)
	if err != nil {
		return nil // deleted since
	}
	state := src.PollState
	var added int
	switch src.SourceType {
	case TypeRSS:
		added, err = s.pollFeed(ctx, src, state)
	case TypeWebsite:
		added, err = s.pollSite(ctx, src, state)
	default:
		return nil
	}
	if err != nil {
		state["last_error"] = err.Error()
		slog.Warn("knowledge poll failed", "source", src.ID, "err", err)
	} else {
		delete(state, "last_error")
	}
	var next *time.Time
	if src.Polling != nil {
		if d, perr := ParsePolling(*src.Polling); perr == nil && d > 0 {
			t := s.now().UTC().Add(d)
			next = &t
		}
	}
	if serr := s.repo().SetPollState(ctx, src.AccountID, src.ID, store.Now(), state, next); serr != nil {
		return serr
	}
	if s.cfg.PullDone != nil {
		s.cfg.PullDone(ctx, src.AccountID, src.ID, err)
	}
	slog.Info("knowledge poll", "source", src.ID, "type", src.SourceType, "new_or_changed", added)
	return nil
}

// PollNow polls a source at once, in the caller (tests, and the first pull).
func (s *Service) PollNow(ctx context.Context, accountID, sourceID string) (int, error) {
	src, err := s.repo().Source(ctx, accountID, sourceID)
	if err != nil {
		return 0, err
	}
	switch src.SourceType {
	case TypeRSS:
		return s.pollFeed(ctx, src, src.PollState)
	case TypeWebsite:
		return s.pollSite(ctx, src, src.PollState)
	}
	return 0, ErrSourceKind
}
