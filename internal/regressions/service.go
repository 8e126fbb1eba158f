// Package regressions owns regression runs (an extension,
// docs/regressions.md): recorded runs of an agent replayed on a version of
// its workflow in the background, each replay's output judged with the
// agent's evaluation criteria and compared with the original's, with
// progress, cancel and a report (pass rates before and after, changed
// outputs side by side, credits spent).
//
// A regression is a durable job of the background queue. Its replays are
// runs (internal/runs.Replay) marked with the regression; each regression
// item records its replay in the transaction that creates it, and its
// verdicts once the replay ended, so a job resumed after a crash carries
// on where the last one stopped, replaying nothing twice.
package regressions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/evals"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
)

// Bounds of what a tenant asks for.
const (
	MaxRuns = 100 // last_runs, and run_ids' length
	// DefaultInFlight is how many replays of one regression run at once.
	DefaultInFlight = 4
)

// Agents is what regressions read of the agents area (regressions →
// agents; the server supplies the agents' repository): whether the
// account has a live agent by that id.
type Agents interface {
	AgentExists(ctx context.Context, accountID, agentID string) (bool, error)
}

// Service runs regressions.
type Service struct {
	DB     *store.DB
	repo   repo
	Queue  jobs.Enqueuer
	Agents Agents
	// runs reads the recorded runs and the replays (the runs area's
	// repository; reads only, so without its packing of judgments).
	runs  *runs.Repo
	Runs  *runs.Service
	Evals *evals.Service
	// InFlight bounds the replays of one regression running at once
	// (DefaultInFlight when 0); Tick is how often a running regression
	// looks at its replays (250 ms when 0).
	InFlight int
	Tick     time.Duration
}

// New builds the service: q takes regression jobs, whose replays are runs
// judged by evals, of the agents a answers for.
func New(db *store.DB, q jobs.Enqueuer, a Agents, r *runs.Service, evals *evals.Service) *Service {
	return &Service{DB: db, repo: repo{db}, runs: runs.NewRepo(db, nil), Queue: q, Agents: a, Runs: r, Evals: evals}
}

// Request asks for a regression: the version to replay on ("" for the
// current one) and the recorded runs, the last LastRuns finished ones of
// the agent or those named by RunIDs (exactly one of the two).
type Request struct {
	ChangeID string
	LastRuns *int
	RunIDs   []string
}

// FieldError refuses one field of a request (422 at Loc).
type FieldError struct {
	Loc []any
	Msg string
}

func (e *FieldError) Error() string { return fmt.Sprint(e.Loc...) + ": " + e.Msg }

// As reads the refusal as the fault vocabulary's Invalid.
func (e *FieldError) As(target any) bool {
	t, ok := target.(**fault.Invalid)
	if ok {
		*t = fault.InvalidAt(e.Loc, e.Msg, "value_error").Because(e)
	}
	return ok
}

func fieldError(msg string, loc ...any) error {
	return &FieldError{Loc: append([]any{"body"}, loc...), Msg: msg}
}

// ErrFinished: a regression that has ended cannot be cancelled (409).
var ErrFinished error = &fault.Conflict{Err: errors.New("the regression has already ended")}

// Start validates a request, estimates its cost (402 above the balance),
// records the regression with its items and enqueues its job, in one
// transaction.
func (s *Service) Start(ctx context.Context, accountID, agentID string, req Request) (Regression, error) {
	a, err := s.Runs.Agents.ForRunAt(ctx, accountID, agentID, req.ChangeID)
	if errors.Is(err, runs.ErrUnknownVersion) {
		return Regression{}, fieldError("the agent has no version with this change_id (see GET /agents/{agent_id}/versions)", "change_id")
	}
	if err != nil {
		return Regression{}, err
	}
	sources, selection, err := s.sources(ctx, accountID, agentID, req)
	if err != nil {
		return Regression{}, err
	}
	if a.Disabled {
		return Regression{}, runs.ErrDisabled
	}
	if missing := s.Runs.Engine.Registry.Missing(a.Definition); len(missing) > 0 {
		return Regression{}, fmt.Errorf("%w: this agent uses %s, which this server does not provide yet", runs.ErrUnavailableStep, strings.Join(missing, ", "))
	}
	// What the recorded runs cost is what replaying them is expected to.
	estimate, err := s.runs.RunCreditsOf(ctx, accountID, sources)
	if err != nil {
		return Regression{}, err
	}
	if err := billing.NewCredits(s.DB).Require(ctx, accountID, estimate); err != nil {
		return Regression{}, err
	}
	reg := Regression{AccountID: accountID, AgentID: agentID, ChangeID: a.ChangeID, Selection: selection, Estimate: estimate}
	var wake func()
	err = s.DB.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
		if reg, err = s.repo.createTx(ctx, tx, reg, sources); err != nil {
			return err
		}
		wake, err = s.Queue.InsertTx(ctx, tx, conn, Args{RegressionID: reg.ID, AccountID: accountID}, nil)
		return err
	})
	if err != nil {
		return Regression{}, err
	}
	wake()
	return reg, nil
}

// sources resolves the recorded runs a request names.
func (s *Service) sources(ctx context.Context, accountID, agentID string, req Request) ([]string, string, error) {
	switch {
	case req.LastRuns != nil && req.RunIDs != nil:
		return nil, "", fieldError("give last_runs or run_ids, not both", "run_ids")
	case req.LastRuns != nil:
		n := *req.LastRuns
		if n < 1 || n > MaxRuns {
			return nil, "", fieldError(fmt.Sprintf("last_runs is between 1 and %d", MaxRuns), "last_runs")
		}
		ids, err := s.runs.RegressionSourceRuns(ctx, accountID, agentID, n)
		if err != nil {
			return nil, "", err
		}
		if len(ids) == 0 {
			return nil, "", fieldError("the agent has no finished (completed or failed) runs to replay", "last_runs")
		}
		return ids, "last_runs", nil
	case req.RunIDs != nil:
		if len(req.RunIDs) < 1 || len(req.RunIDs) > MaxRuns {
			return nil, "", fieldError(fmt.Sprintf("run_ids names between 1 and %d runs", MaxRuns), "run_ids")
		}
		seen := map[string]bool{}
		for i, id := range req.RunIDs {
			if seen[id] {
				return nil, "", fieldError("this run is named twice", "run_ids", i)
			}
			seen[id] = true
			r, err := s.runs.Run(ctx, accountID, id)
			if errors.Is(err, store.ErrNotFound) || (err == nil && (r.AgentID != agentID || r.RegressionID != "")) {
				// Another account's run reads as no run at all.
				return nil, "", fieldError("no recorded run of this agent has this id", "run_ids", i)
			}
			if err != nil {
				return nil, "", err
			}
			if !runs.RunTerminal(r.Status) {
				return nil, "", fieldError("this run has not finished: only completed or failed runs are replayed", "run_ids", i)
			}
		}
		return req.RunIDs, "run_ids", nil
	}
	return nil, "", fieldError("give last_runs (the agent's last N finished runs) or run_ids", "last_runs")
}

// Get reads one of an agent's regressions with its report.
func (s *Service) Get(ctx context.Context, accountID, agentID, id string) (Report, error) {
	reg, err := s.repo.regression(ctx, accountID, agentID, id)
	if err != nil {
		return Report{}, err
	}
	return s.report(ctx, reg, true)
}

// List lists an agent's regressions, newest first, with their summaries.
func (s *Service) List(ctx context.Context, accountID, agentID string, page, limit int) ([]Report, int, error) {
	if ok, err := s.Agents.AgentExists(ctx, accountID, agentID); err != nil || !ok {
		if err == nil {
			err = store.ErrNotFound
		}
		return nil, 0, err
	}
	regs, total, err := s.repo.list(ctx, accountID, agentID, limit, paging.Offset(page, limit))
	if err != nil {
		return nil, 0, err
	}
	out := make([]Report, len(regs))
	for i, reg := range regs {
		if out[i], err = s.report(ctx, reg, false); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// Cancel asks a regression to stop: its job cancels the replays running
// and settles it cancelled. ErrFinished when it had ended.
func (s *Service) Cancel(ctx context.Context, accountID, agentID, id string) (Report, error) {
	if _, err := s.repo.regression(ctx, accountID, agentID, id); err != nil {
		return Report{}, err
	}
	asked, err := s.repo.requestCancel(ctx, accountID, agentID, id)
	if err != nil {
		return Report{}, err
	}
	if !asked {
		return Report{}, ErrFinished
	}
	reg, err := s.repo.regression(ctx, accountID, agentID, id)
	if err != nil {
		return Report{}, err
	}
	// The job sees the request at its next look (it looks every Tick
	// while it runs, and again as soon as it is taken when snoozed).
	return s.report(ctx, reg, true)
}
