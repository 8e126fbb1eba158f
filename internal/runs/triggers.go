package runs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/riverqueue/river"
	"github.com/robfig/cron/v3"
)

// NextFire computes a cron schedule's next fire time after t in its time
// zone. Standard five-field cron; descriptors such as @hourly too.
func NextFire(expr, timezone string, after time.Time) (time.Time, error) {
	loc := time.UTC
	if timezone != "" {
		l, err := time.LoadLocation(timezone)
		if err != nil {
			return time.Time{}, fmt.Errorf("time zone %q: %w", timezone, err)
		}
		loc = l
	}
	sched, err := cron.ParseStandard(expr)
	if err != nil {
		return time.Time{}, fmt.Errorf("cron %q: %w", expr, err)
	}
	next := sched.Next(after.In(loc))
	if next.IsZero() {
		return time.Time{}, fmt.Errorf("cron %q never fires", expr)
	}
	return next.UTC(), nil
}

// SchedulerArgs is the periodic job that fires due schedules.
type SchedulerArgs struct{}

// Kind names the job kind.
func (SchedulerArgs) Kind() string { return "schedule_tick" }

// SchedulerWorker fires schedules. Periodic jobs run on the elected leader
// only, and each fire is claimed by a compare-and-set of next_run_at, so no
// schedule fires twice across replicas.
type SchedulerWorker struct {
	river.WorkerDefaults[SchedulerArgs]
	S *Service
	// Now is the clock (tests move it).
	Now func() time.Time
}

// Work fires every due schedule.
func (w *SchedulerWorker) Work(ctx context.Context, _ *river.Job[SchedulerArgs]) error {
	now := time.Now()
	if w.Now != nil {
		now = w.Now()
	}
	_, err := w.S.FireDue(ctx, now)
	return err
}

// FireDue starts a run for every schedule due at now and moves each to its
// next fire time. Paused agents' schedules move on without running. It
// returns the runs started.
func (s *Service) FireDue(ctx context.Context, now time.Time) ([]Run, error) {
	due, err := scheduleRepo{s.DB}.due(ctx, now, 500)
	if err != nil {
		return nil, err
	}
	var started []Run
	for _, d := range due {
		next, err := NextFire(d.CronExpression, d.Timezone, now)
		if err != nil {
			// A schedule that cannot be computed must not fire every tick.
			slog.Warn("schedule cannot fire", "schedule", d.ID, "agent", d.AgentID, "err", err)
			next = now.Add(24 * time.Hour)
		}
		won, err := scheduleRepo{s.DB}.claim(ctx, d.ID, d.NextRunAt, next)
		if err != nil {
			return started, err
		}
		if !won || d.AgentDisabled {
			continue
		}
		r, err := s.Start(ctx, d.AccountID, d.AgentID, StartRequest{TriggerType: "schedule", Input: d.Input,
			Metadata: map[string]any{"scheduled_for": d.NextRunAt.Format(time.RFC3339), "schedule_id": d.ID}})
		if err != nil {
			slog.Warn("scheduled run refused", "schedule", d.ID, "agent", d.AgentID, "err", err)
			continue
		}
		started = append(started, r)
	}
	return started, nil
}

// triggered lists the account's agents with triggerType, narrowed to
// onlyAgent when set: an agent's inbound mail reads its own agent, not
// every e-mail agent of the account.
func (s *Service) triggered(ctx context.Context, accountID, triggerType, onlyAgent string) ([]string, error) {
	ids, err := scheduleRepo{s.DB}.agentsWithTrigger(ctx, accountID, triggerType)
	if err != nil || onlyAgent == "" {
		return ids, err
	}
	if slices.Contains(ids, onlyAgent) {
		return []string{onlyAgent}, nil
	}
	return nil, nil
}

// Fire starts runs of the account's agents with triggerType — only
// onlyAgent's when set, else all of them — the hook through which the
// knowledge area announces new content and the mail area received email.
// Paused agents are skipped.
func (s *Service) Fire(ctx context.Context, accountID, triggerType, onlyAgent string, input string, metadata map[string]any) ([]Run, error) {
	ids, err := s.triggered(ctx, accountID, triggerType, onlyAgent)
	if err != nil {
		return nil, err
	}
	var started []Run
	for _, id := range ids {
		a, err := s.Agents.ForRun(ctx, accountID, id)
		if err != nil || a.Disabled {
			continue
		}
		in := input
		r, err := s.Start(ctx, accountID, id, StartRequest{Input: &in, Metadata: metadata, TriggerType: triggerType})
		if errors.Is(err, ErrDisabled) {
			continue
		}
		if err != nil {
			return started, err
		}
		started = append(started, r)
	}
	return started, nil
}
