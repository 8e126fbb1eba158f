package alerts

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/runs/runrow"
)

// Detection from runs. The runs area calls RunFinished after a run's
// terminal status commits; it only queues the run, so the run's own path
// never waits on alerting. Run's goroutines take the queue at once (a
// failure raises run_failed well within a second), and the periodic
// DetectArgs job sweeps every run configuration over the runs that ended
// since it last looked, which catches what the queue had no room for or a
// crash lost, and evaluates the windows (burst, error rate) on a clock.
// Per-run types (run_failed, slow_run) mark each run they count, so the
// two paths never count a run twice.

// finishedBuffer bounds the runs queued for the inline path; past it the
// sweep counts them.
const finishedBuffer = 8192

// inlineWorkers take finished runs off the queue. Raising an alert is a
// dozen short statements, most of it waiting on the database; several
// workers overlap those waits (on SQLite the writes still take turns).
const inlineWorkers = 8

// FinishedRun is what detection needs of a run that reached a terminal
// status: the server builds it from the runs area's run and result
// (internal/server), so this area does not import the runs area.
type FinishedRun struct {
	AccountID, AgentID, RunID string
	// Status is the terminal status (runCompleted or runFailed) and Error
	// the run's error, if it failed.
	Status, Error string
}

// The terminal statuses of a run, as the runs area writes them in its
// runs table (runrow.Completed, runrow.Failed), which detection reads.
const (
	runCompleted = runrow.Completed
	runFailed    = runrow.Failed
)

// RunFinished queues a run that reached a terminal status. It never
// blocks.
func (s *Service) RunFinished(f FinishedRun) {
	if f.AgentID == "" {
		return
	}
	select {
	case s.finished <- f:
	default:
		s.overflow.Add(1)
	}
}

// Run takes finished runs off the queue until ctx ends. The server runs it
// beside the job workers.
func (s *Service) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range inlineWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case f := <-s.finished:
					if err := s.runFinished(ctx, f); err != nil && ctx.Err() == nil {
						slog.WarnContext(ctx, "alert detection for a finished run", "run_id", f.RunID, "err", err)
					}
				}
			}
		}()
	}
	wg.Wait()
}

func (s *Service) runFinished(ctx context.Context, f FinishedRun) error {
	configs, err := s.repo.matching(ctx, f.AccountID, runTypes, f.AgentID, "")
	if err != nil || len(configs) == 0 {
		return err
	}
	run := runBrief{ID: f.RunID, AgentID: f.AgentID, Status: f.Status, Error: f.Error}
	for _, c := range configs {
		if c.AlertType == SlowRun && run.EndedAt == nil {
			if run, err = s.repo.runBriefOf(ctx, f.AccountID, f.RunID); err != nil {
				return err
			}
		}
		if err := s.detectRun(ctx, c, run); err != nil {
			return err
		}
	}
	return nil
}

// detectRun applies configuration c to one finished run.
func (s *Service) detectRun(ctx context.Context, c AlertConfig, r runBrief) error {
	th, _ := ParseThreshold(c.AlertType, c.Threshold) // validated when stored
	ev := Signal{AccountID: c.AccountID, AgentID: r.AgentID, RunID: r.ID}
	switch c.AlertType {
	case RunFailed:
		if r.Status != runFailed {
			return nil
		}
		ev.Message = describe("Run", r.ID, "failed:", clip(r.Error, 500))
		ev.Details = map[string]any{"run_id": r.ID, "error": clip(r.Error, 2000)}
		return s.openPerRun(ctx, c, ev)
	case SlowRun:
		if r.StartedAt == nil || r.EndedAt == nil {
			return nil
		}
		took := r.EndedAt.Sub(*r.StartedAt).Seconds()
		if took <= th.Seconds {
			return nil
		}
		ev.Message = fmt.Sprintf("Run %s took %.1f s, over the %.1f s threshold.", r.ID, took, th.Seconds)
		ev.Details = map[string]any{"run_id": r.ID, "duration_seconds": took, "threshold_seconds": th.Seconds}
		return s.openPerRun(ctx, c, ev)
	case ConsecutiveFailures:
		if r.Status == runCompleted {
			_, err := s.clear(ctx, c, fmt.Sprintf("run %s of the agent completed.", r.ID))
			return err
		}
		if r.Status != runFailed {
			return nil
		}
		statuses, err := s.repo.recentTerminalRuns(ctx, c.AccountID, r.AgentID, th.Count)
		if err != nil {
			return err
		}
		if len(statuses) < th.Count || slices.ContainsFunc(statuses, func(st string) bool { return st != runFailed }) {
			return nil
		}
		ev.Message = fmt.Sprintf("The agent's last %d runs failed; the latest, %s: %s", th.Count, r.ID, clip(r.Error, 500))
		ev.Details = map[string]any{"consecutive_failures": th.Count, "last_run_id": r.ID, "last_error": clip(r.Error, 2000)}
		_, err = s.open(ctx, c, ev, false, "")
		return err
	case ErrorRateSpike:
		if r.Status != runFailed {
			// A success can only lower the rate: look again only when an
			// alert is open, to resolve it.
			if open, err := s.hasOpen(ctx, c); err != nil || !open {
				return err
			}
		}
		return s.detectWindow(ctx, c, th, r.AgentID, r.ID)
	case RunBurst:
		return s.detectWindow(ctx, c, th, r.AgentID, r.ID)
	}
	return nil
}

// openPerRun counts run r for c once, raising it.
func (s *Service) openPerRun(ctx context.Context, c AlertConfig, ev Signal) error {
	_, err := s.open(ctx, c, ev, true, ev.RunID)
	return err
}

// detectWindow evaluates the error rate or burst of c's scope over its
// window: the configuration's agent, or for an account-level
// configuration the whole account.
func (s *Service) detectWindow(ctx context.Context, c AlertConfig, th Threshold, agentID, runID string) error {
	scope := c.AgentID
	window := time.Duration(th.WindowMinutes) * time.Minute
	w, err := s.repo.runWindowOf(ctx, c.AccountID, scope, s.now().Add(-window))
	if err != nil {
		return err
	}
	ev := Signal{AccountID: c.AccountID, AgentID: agentID, RunID: runID}
	switch c.AlertType {
	case ErrorRateSpike:
		if w.Ended < th.MinRuns || w.Ended == 0 || float64(w.Failed)/float64(w.Ended) < th.Rate {
			_, err := s.clear(ctx, c, fmt.Sprintf("%d of the %d runs that finished in the last %d minutes failed, under the threshold.",
				w.Failed, w.Ended, th.WindowMinutes))
			return err
		}
		rate := float64(w.Failed) / float64(w.Ended)
		ev.Message = fmt.Sprintf("%d of the %d runs that finished in the last %d minutes failed (%.0f%%, threshold %.0f%%).",
			w.Failed, w.Ended, th.WindowMinutes, rate*100, th.Rate*100)
		ev.Details = map[string]any{"failed": w.Failed, "finished": w.Ended, "error_rate": rate, "window_minutes": th.WindowMinutes}
	case RunBurst:
		if w.Created < th.Count {
			_, err := s.clear(ctx, c, fmt.Sprintf("%d runs started in the last %d minutes, under the threshold of %d.",
				w.Created, th.WindowMinutes, th.Count))
			return err
		}
		ev.Message = fmt.Sprintf("%d runs started in the last %d minutes (threshold %d).", w.Created, th.WindowMinutes, th.Count)
		ev.Details = map[string]any{"runs": w.Created, "window_minutes": th.WindowMinutes, "threshold": th.Count}
	default:
		return nil
	}
	_, err = s.open(ctx, c, ev, false, "")
	return err
}

// sweepPage is how many configurations or runs a sweep reads at a time.
const sweepPage = 200

// sweepOverlap looks back past a configuration's watermark: a run whose
// end time was written just before the last sweep may have committed
// just after it. Marks keep the overlap from counting a run twice.
const sweepOverlap = 2 * time.Minute

// DetectRuns sweeps every enabled run configuration: the runs that ended
// since its watermark, then its window. It returns how many
// configurations it looked at.
func (s *Service) DetectRuns(ctx context.Context) (int, error) {
	after, n := "", 0
	for {
		configs, err := s.repo.enabledAfter(ctx, runTypes, after, sweepPage)
		if err != nil {
			return n, err
		}
		for _, c := range configs {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			if err := s.sweepConfig(ctx, c); err != nil {
				slog.WarnContext(ctx, "alert detector sweep failed for a configuration", "config_id", c.ID, "err", err)
			}
			n++
			after = c.ID
		}
		if len(configs) < sweepPage {
			return n, nil
		}
	}
}

func (s *Service) sweepConfig(ctx context.Context, c AlertConfig) error {
	now := s.now()
	from := c.CreatedAt
	if c.CheckedAt != nil {
		from = c.CheckedAt.Add(-sweepOverlap)
	}
	th, _ := ParseThreshold(c.AlertType, c.Threshold)
	switch c.AlertType {
	case RunBurst, ErrorRateSpike:
		if err := s.detectWindow(ctx, c, th, c.AgentID, ""); err != nil {
			return err
		}
	default:
		for {
			runs, err := s.repo.runsEndedBetween(ctx, c.AccountID, c.AgentID, from, now, sweepPage)
			if err != nil {
				return err
			}
			for _, r := range runs {
				if err := s.detectRun(ctx, c, r); err != nil {
					return err
				}
				from = *r.EndedAt
			}
			if len(runs) < sweepPage {
				break
			}
		}
	}
	return s.repo.setChecked(ctx, c.ID, now)
}

// sourcePull records a pull's outcome and runs the source detectors.
func (s *Service) sourcePull(ctx context.Context, ev Signal) error {
	failed := ev.Type == PullFailed
	if err := s.repo.recordPull(ctx, ev.AccountID, ev.SourceID, failed); err != nil {
		return err
	}
	configs, err := s.repo.matching(ctx, ev.AccountID, SourceTypes, "", ev.SourceID)
	if err != nil {
		return err
	}
	for _, c := range configs {
		th, _ := ParseThreshold(c.AlertType, c.Threshold)
		if !failed {
			if err := s.pullSucceeded(ctx, c, th, ev); err != nil {
				return err
			}
			continue
		}
		e := ev
		e.Type = c.AlertType
		repeat := false
		switch c.AlertType {
		case PullFailed:
			repeat = true
		case ConsecutivePullFailures:
			recent, err := s.repo.recentPulls(ctx, ev.AccountID, ev.SourceID, th.Count)
			if err != nil {
				return err
			}
			if len(recent) < th.Count || slices.Contains(recent, false) {
				continue
			}
			e.Message = describe(fmt.Sprintf("The source's last %d pulls failed.", th.Count), ev.Message)
		case PullErrorRateSpike:
			total, bad, err := s.repo.pullWindow(ctx, ev.AccountID, ev.SourceID, s.now().Add(-time.Duration(th.WindowMinutes)*time.Minute))
			if err != nil {
				return err
			}
			if total < th.MinRuns || float64(bad)/float64(total) < th.Rate {
				if _, err := s.clear(ctx, c, fmt.Sprintf("%d of the source's %d pulls in the last %d minutes failed, under the threshold.",
					bad, total, th.WindowMinutes)); err != nil {
					return err
				}
				continue
			}
			e.Message = describe(fmt.Sprintf("%d of the source's %d pulls in the last %d minutes failed.", bad, total, th.WindowMinutes), ev.Message)
		}
		if _, err := s.open(ctx, c, e, repeat, ""); err != nil {
			return err
		}
	}
	return nil
}

// pullSucceeded resolves what a successful pull clears: a run of failed
// pulls at once, an error rate once it is back under the threshold.
func (s *Service) pullSucceeded(ctx context.Context, c AlertConfig, th Threshold, ev Signal) error {
	switch c.AlertType {
	case ConsecutivePullFailures:
		_, err := s.clear(ctx, c, "the source's latest pull succeeded.")
		return err
	case PullErrorRateSpike:
		if open, err := s.hasOpen(ctx, c); err != nil || !open {
			return err
		}
		total, bad, err := s.repo.pullWindow(ctx, ev.AccountID, ev.SourceID, s.now().Add(-time.Duration(th.WindowMinutes)*time.Minute))
		if err != nil {
			return err
		}
		if total < th.MinRuns || float64(bad)/float64(total) < th.Rate {
			_, err = s.clear(ctx, c, fmt.Sprintf("%d of the source's %d pulls in the last %d minutes failed, under the threshold.",
				bad, total, th.WindowMinutes))
		}
		return err
	}
	return nil
}

// DetectCredits gives active accounts their default credits alerts, then
// evaluates every enabled credits configuration against the account's
// balance and spending.
func (s *Service) DetectCredits(ctx context.Context) (int, error) {
	if err := s.CreateCreditDefaults(ctx); err != nil {
		return 0, err
	}
	after, n := "", 0
	for {
		configs, err := s.repo.enabledAfter(ctx, CreditTypes, after, sweepPage)
		if err != nil {
			return n, err
		}
		for _, c := range configs {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			if err := s.detectCredits(ctx, c); err != nil {
				slog.WarnContext(ctx, "credits alert check failed", "config_id", c.ID, "err", err)
			}
			n++
			after = c.ID
		}
		if len(configs) < sweepPage {
			return n, nil
		}
	}
}

func (s *Service) detectCredits(ctx context.Context, c AlertConfig) error {
	th, _ := ParseThreshold(c.AlertType, c.Threshold)
	balance, err := billing.NewCredits(s.DB).Balance(ctx, c.AccountID)
	if err != nil {
		return err
	}
	now := s.now()
	window := time.Duration(th.WindowMinutes) * time.Minute
	ev := Signal{AccountID: c.AccountID}
	switch c.AlertType {
	case CreditsLowThreshold:
		if balance >= th.Credits {
			_, err := s.clear(ctx, c, fmt.Sprintf("the balance is back to %.2f credits, at or above the %.2f threshold.", balance, th.Credits))
			return err
		}
		ev.Message = fmt.Sprintf("The balance is %.2f credits, below the %.2f threshold.", balance, th.Credits)
		ev.Details = map[string]any{"balance": balance, "threshold": th.Credits}
	case CreditsRunoutPrediction:
		spent, err := s.repo.creditsSpent(ctx, c.AccountID, now.Add(-window), now)
		if err != nil {
			return err
		}
		if spent <= 0 {
			_, err := s.clear(ctx, c, "no credits were spent in the window: nothing predicts a run-out.")
			return err
		}
		perDay := spent / window.Hours() * 24
		days := balance / perDay
		if days > th.Days {
			_, err := s.clear(ctx, c, fmt.Sprintf("at %.2f credits a day the balance lasts %.1f days, past the %.1f-day threshold.", perDay, days, th.Days))
			return err
		}
		ev.Message = fmt.Sprintf("At %.2f credits a day, the balance of %.2f runs out in %.1f days.", perDay, balance, days)
		ev.Details = map[string]any{"balance": balance, "credits_per_day": perDay, "days_left": days, "threshold_days": th.Days}
	case CreditsUsageSpike:
		spent, err := s.repo.creditsSpent(ctx, c.AccountID, now.Add(-window), now)
		if err != nil {
			return err
		}
		if spent <= 0 {
			_, err := s.clear(ctx, c, "no credits were spent in the window.")
			return err
		}
		const baselineWindows = 7
		before, err := s.repo.creditsSpent(ctx, c.AccountID, now.Add(-window*(baselineWindows+1)), now.Add(-window))
		if err != nil {
			return err
		}
		avg := before / baselineWindows
		if avg <= 0 || spent < th.Multiplier*avg {
			_, err := s.clear(ctx, c, fmt.Sprintf("%.2f credits were spent in the last %d minutes, under %.1f× the usual %.2f.",
				spent, th.WindowMinutes, th.Multiplier, avg))
			return err
		}
		ev.Message = fmt.Sprintf("%.2f credits were spent in the last %d minutes, %.1f× the usual %.2f.", spent, th.WindowMinutes, spent/avg, avg)
		ev.Details = map[string]any{"spent": spent, "baseline": avg, "multiplier": spent / avg, "window_minutes": th.WindowMinutes}
	default:
		return nil
	}
	_, err = s.open(ctx, c, ev, false, "")
	return err
}

// clip shortens s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
