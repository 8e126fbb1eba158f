package regressions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// Args is a regression's job: it carries the account, so the queue's
// account share applies (one account's regressions never hold every
// background worker).
type Args struct {
	RegressionID string `json:"regression_id"`
	AccountID    string `json:"account_id"`
}

// Kind names the job kind.
func (Args) Kind() string { return "agent_regression" }

// InsertOpts puts regressions on the background queue (no one waits on
// them as on a run); many attempts, since a crash rescued costs one.
func (Args) InsertOpts() river.InsertOpts {
	o := jobs.Background
	o.MaxAttempts = 25
	return o
}

// Worker advances regressions.
type Worker struct {
	river.WorkerDefaults[Args]
	S *Service
}

// AddWorkers registers the regression job kind.
func AddWorkers(w *river.Workers, s *Service) { river.AddWorker(w, &Worker{S: s}) }

// maxHold is the longest one execution of the job keeps its worker: past
// it (or half the job's timeout, when shorter) it snoozes, costing no
// attempt, and the next execution carries on from the database.
const maxHold = time.Minute

// Work looks at the regression every Tick until it has ended, for at most
// maxHold; all it knows is in the database, so a process killed at any
// point leaves a job the queue rescues and that resumes the regression.
func (w *Worker) Work(ctx context.Context, job *river.Job[Args]) error {
	hold := maxHold
	if d, ok := ctx.Deadline(); ok {
		hold = min(hold, time.Until(d)/2)
	}
	until := time.Now().Add(hold)
	tick := w.S.Tick
	if tick <= 0 {
		tick = 250 * time.Millisecond
	}
	for {
		done, err := w.S.advance(ctx, job.Args.AccountID, job.Args.RegressionID)
		if err != nil || done {
			return err
		}
		if time.Now().After(until) {
			return river.JobSnooze(time.Second)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(tick):
		}
	}
}

// advance does what a regression needs now: settle a cancel; judge the
// replays that ended; start replays up to InFlight; settle it once every
// recorded run is judged. It answers whether the regression has ended.
func (s *Service) advance(ctx context.Context, accountID, id string) (bool, error) {
	reg, err := s.repo.forWorker(ctx, accountID, id)
	if errors.Is(err, store.ErrNotFound) {
		return true, nil // its account was deleted
	}
	if err != nil {
		return false, err
	}
	if Terminal(reg.Status) {
		return true, nil
	}
	items, err := s.repo.items(ctx, reg.ID)
	if err != nil {
		return false, err
	}
	if reg.CancelRequested {
		return true, s.cancel(ctx, reg, items)
	}
	if reg.Status == StatusQueued {
		if err := s.repo.markRunning(ctx, reg.ID); err != nil {
			return false, err
		}
	}
	var criteria *evals.Criteria
	running, open := 0, 0
	for _, it := range items {
		if it.Status != ItemReplaying {
			continue
		}
		replay, err := s.runs.Run(ctx, accountID, it.ReplayRunID)
		if err != nil {
			return false, err
		}
		if !runs.RunTerminal(replay.Status) {
			running++
			open++
			continue
		}
		if criteria == nil {
			cs, err := s.Evals.EnabledCriteria(ctx, accountID, reg.AgentID)
			if err != nil && !errors.Is(err, store.ErrNotFound) { // a deleted agent judges nothing
				return false, err
			}
			criteria = &cs
		}
		if err := s.judge(ctx, it, replay, *criteria); err != nil {
			return false, err
		}
	}
	inFlight := s.InFlight
	if inFlight <= 0 {
		inFlight = DefaultInFlight
	}
	for _, it := range items {
		if it.Status != ItemPending {
			continue
		}
		open++
		if running >= inFlight {
			continue
		}
		src, err := s.runs.Run(ctx, accountID, it.SourceRunID)
		if err != nil {
			return false, err
		}
		if _, err := s.Runs.Replay(ctx, src, reg.ChangeID, reg.ID, func(ctx context.Context, tx *sql.Tx, replayRunID string) error {
			return s.repo.setReplayTx(ctx, tx, reg.ID, src.ID, replayRunID)
		}); err != nil && !errors.Is(err, store.ErrConflict) {
			return false, err
		}
		running++
	}
	if open > 0 {
		return false, nil
	}
	return true, s.repo.end(ctx, reg.ID, StatusCompleted)
}

// judge compares a replay that ended with its original: both judged with
// the agent's criteria, their outputs compared.
func (s *Service) judge(ctx context.Context, it RegressionItem, replay runs.Run, cs evals.Criteria) error {
	src, err := s.runs.Run(ctx, replay.AccountID, it.SourceRunID)
	if err != nil {
		return err
	}
	recorded := func(r runs.Run) (evals.RecordedRun, error) {
		steps, err := s.runs.Steps(ctx, r.ID)
		out := evals.RecordedRun{Input: deref(r.Input), Output: deref(r.Output), Steps: make([]evals.RecordedStep, len(steps))}
		for i, st := range steps {
			out.Steps[i] = evals.RecordedStep{StepID: st.StepID, Status: st.Status, Output: st.Output, Superseded: st.Superseded}
		}
		return out, err
	}
	before, err := recorded(src)
	if err != nil {
		return err
	}
	after, err := recorded(replay)
	if err != nil {
		return err
	}
	sv, sp, sc := s.Evals.JudgeRecorded(ctx, replay.AccountID, replay.ID, cs, before)
	rv, rp, rc := s.Evals.JudgeRecorded(ctx, replay.AccountID, replay.ID, cs, after)
	sp = sp && src.Status == runs.RunCompleted
	rp = rp && replay.Status == runs.RunCompleted
	sim := Similarity(before.Output, after.Output)
	it.Outcome = Changed
	if src.Status == replay.Status && before.Output == after.Output {
		it.Outcome = Unchanged
	}
	it.Similarity, it.SourcePassed, it.ReplayPassed, it.JudgeCredits = &sim, &sp, &rp, sc+rc
	if it.SourceChecks, err = marshal(sv); err != nil {
		return err
	}
	if it.ReplayChecks, err = marshal(rv); err != nil {
		return err
	}
	return s.repo.finishItem(ctx, it)
}

// cancel stops the replays still running and settles the regression.
func (s *Service) cancel(ctx context.Context, reg Regression, items []RegressionItem) error {
	for _, it := range items {
		if it.Status != ItemReplaying {
			continue
		}
		if _, err := s.Runs.Cancel(ctx, reg.AccountID, it.ReplayRunID); err != nil && !errors.Is(err, runs.ErrTerminal) {
			slog.WarnContext(ctx, "cancelling a regression's replay", "regression_id", reg.ID, "run_id", it.ReplayRunID, "err", err)
		}
	}
	return s.repo.end(ctx, reg.ID, StatusCancelled)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func marshal(v []evals.Verdict) ([]byte, error) {
	if v == nil {
		v = []evals.Verdict{}
	}
	return json.Marshal(v)
}
