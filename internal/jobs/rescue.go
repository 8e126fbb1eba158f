package jobs

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// RiverRescueInterval is how often River's own rescuer, on the elected
// leader, looks for jobs left running by a dead process. River fixes it;
// a Config.RescueInterval below it adds the sweep below.
const RiverRescueInterval = 30 * time.Second

// rescueSweep does what River's rescuer does, by River's rules, on every
// worker process and as often as Config.RescueInterval says: a job running
// for longer than RescueAfter (its process died) is made available again
// after River's retry backoff, or discarded once out of attempts.
//
// River's rescuer runs every 30 s, and only on the leader, which a process
// becomes up to 15 s after the one it replaces was killed: a killed job
// waits up to RescueAfter + 45 s. End-to-end tests of resuming after a kill
// wait on exactly that, so they set a short interval; River's rescuer,
// which the sweep does not replace, keeps running where it runs.
//
// The sweep makes the job available rather than retryable at its next
// try: a retryable job waits for the leader's scheduler, which is the wait
// the sweep is there to avoid.
type rescueSweep struct {
	exec        riverdriver.Executor
	rescueAfter time.Duration
	// ownTimeout lists the kinds whose workers set a timeout of their own
	// (Worker.Timeout) or their own backoff (Worker.NextRetry): River's
	// rescuer waits for that timeout and uses that backoff, which the sweep
	// cannot read from outside River, so it leaves those kinds to River.
	ownTimeout []string
}

// run sweeps every interval until ctx ends.
func (s *rescueSweep) run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := s.once(ctx, time.Now()); err != nil && ctx.Err() == nil {
			slog.Warn("job rescue sweep", "err", err)
		} else if n > 0 {
			slog.Info("job rescue sweep made stuck jobs available again", "jobs", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// once rescues the jobs stuck at now and returns how many it changed.
func (s *rescueSweep) once(ctx context.Context, now time.Time) (int, error) {
	stuck, err := s.exec.JobGetStuck(ctx, &riverdriver.JobGetStuckParams{Max: 1000, StuckHorizon: now.Add(-s.rescueAfter)})
	if err != nil {
		return 0, err
	}
	p := riverdriver.JobRescueManyParams{}
	add := func(job *rivertype.JobRow, errData []byte, state rivertype.JobState, finalized *time.Time, scheduled time.Time) {
		p.ID = append(p.ID, job.ID)
		p.Error = append(p.Error, errData)
		p.FinalizedAt = append(p.FinalizedAt, finalized)
		p.ScheduledAt = append(p.ScheduledAt, scheduled)
		p.State = append(p.State, string(state))
	}
	now = now.UTC()
	for _, job := range stuck {
		if slices.Contains(s.ownTimeout, job.Kind) {
			continue
		}
		errData, err := json.Marshal(rivertype.AttemptError{At: now, Attempt: max(job.Attempt, 0), Error: "Stuck job rescued by the job rescue sweep"})
		if err != nil {
			return 0, err
		}
		var meta struct {
			CancelAttemptedAt time.Time `json:"cancel_attempted_at"`
		}
		_ = json.Unmarshal(job.Metadata, &meta)
		switch {
		case !meta.CancelAttemptedAt.IsZero(): // cancelled while it ran: it stays cancelled
			add(job, errData, rivertype.JobStateCancelled, &now, job.ScheduledAt)
		case job.Attempt < max(job.MaxAttempts, 0):
			add(job, errData, rivertype.JobStateAvailable, nil, (&river.DefaultClientRetryPolicy{}).NextRetry(job))
		default:
			add(job, errData, rivertype.JobStateDiscarded, &now, job.ScheduledAt)
		}
	}
	if len(p.ID) == 0 {
		return 0, nil
	}
	if _, err := s.exec.JobRescueMany(ctx, &p); err != nil {
		return 0, err
	}
	return len(p.ID), nil
}
