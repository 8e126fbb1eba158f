// Package runs owns agent runs: starting them, executing them as durable
// jobs through the engine, their step journal and events, cancellation,
// reviews of human_in_the_loop steps, and the snapshots the API answers.
// Its tables runs and run_steps are named only by this area: the areas
// that may not import it (alerts, evaluations, the model lifecycle) and
// inbound mail read runs through its leaf package, runrow.
package runs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/events"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/jobs"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/telemetry"
	"github.com/riverqueue/river"
)

// Agent is what a run needs of its agent.
type Agent struct {
	ID         string
	Name       string
	Definition *definition.Definition
	Trigger    definition.TriggerType
	Disabled   bool
	Contract   definition.AttachmentContract
	// OversightRev is the agent's oversight revision (engine.Run).
	OversightRev int64
	// ChangeID names the version of the workflow Definition is.
	ChangeID string
}

// Agents looks agents up for runs; the agents area implements it.
type Agents interface {
	// ForRun returns an agent of the account, or store.ErrNotFound.
	ForRun(ctx context.Context, accountID, agentID string) (Agent, error)
	// ForRunAt is ForRun with one version of the workflow (the current
	// one for ""); ErrUnknownVersion when the agent has no such version.
	ForRunAt(ctx context.Context, accountID, agentID, changeID string) (Agent, error)
}

// Uploads resolves input uploads to attachments; the agents area implements it.
type Uploads interface {
	Attachments(ctx context.Context, accountID, agentID string, uploadIDs []string) ([]engine.Attachment, error)
}

// The area's refusals, in the fault vocabulary (the API answers each with
// its status and sentence).
var (
	ErrDisabled        error = &fault.Conflict{Err: errors.New("the agent is paused (disabled); enable it to run it")}
	ErrUnavailableStep error = &fault.BadRequest{Err: errors.New("unavailable step types")}
	ErrBadInput              = errors.New("invalid run input") // an InputError, a 400
	ErrTerminal        error = &fault.Conflict{Msg: "The run has already finished and cannot be cancelled"}
	// ErrUnknownVersion: the change_id a run asks for is no version of
	// its agent (422 naming the field); Agents.ForRunAt returns it.
	ErrUnknownVersion = fmt.Errorf("version %w", store.ErrNotFound)
)

// Deps is what the runs service is built from (New).
type Deps struct {
	DB *store.DB
	// Repo is the SQL of runs, their attempts, steps and files, built
	// with the evals area's packing of judgments (NewRepo); nil: one
	// without packing, on DB (tests that write no judgments).
	Repo    *Repo
	Bus     *events.Bus
	Queue   jobs.Enqueuer
	Engine  *engine.Engine
	Agents  Agents
	Uploads Uploads
	Models  llm.Provider // the router of configured providers (unmetered)
	Catalog *catalog.Catalog
	// Meter charges model calls; each run's provider is Models metered by it.
	Meter llm.Meter
	// DefaultModel, when set, names the model an account's prompt steps
	// get when they name none (the account's own default, else the
	// server's); unset, the router's default answers.
	DefaultModel func(ctx context.Context, accountID string) string
	// Secrets opens the account secrets steps sign with (secrets.go).
	Secrets Secrets
	// Finished, when set, is told of every run that reached a terminal
	// status, after it committed (the alerts area's hook). It must not
	// block: it runs on the run's own path.
	Finished func(run Run, res RunResult)
	// Verdicts reads the policies that blocked and flagged something in a
	// run, each once, in the order they first did (the governance area's
	// records; nil: a run shows none).
	Verdicts func(ctx context.Context, accountID, runID string) (blocked, flagged []PolicyRef, err error)
}

// Service runs agents.
type Service struct {
	Deps

	// beforePark, when set (tests only), is called as a run is about to
	// park on an undecided review: the window a decision can race into.
	beforePark atomic.Pointer[func(runID, stepKey string)]
	// beforeEnqueue, when set (tests only), is called within the
	// transaction recording a run, before its job is inserted; an error
	// fails the transaction there.
	beforeEnqueue atomic.Pointer[func(runID string) error]

	// reviews is the SQL of the reviews human_in_the_loop steps ask for.
	reviews reviewRepo
}

// New builds the service from its dependencies.
func New(d Deps) *Service {
	if d.Repo == nil {
		d.Repo = NewRepo(d.DB, nil)
	}
	return &Service{Deps: d, reviews: reviewRepo{d.DB}}
}

// StartRequest is a run request.
type StartRequest struct {
	Input          *string
	InputUploadID  string
	InputUploadIDs []string
	Metadata       map[string]any
	Priority       bool
	ReplayOfRunID  string
	TriggerType    string // set by triggers (schedule, new_content…); "" for API calls
	ParentRunID    string
	CallChain      []string
	// ChangeID runs this version of the workflow ("": the current one).
	ChangeID string
}

// InputError lists what is wrong with a run request.
type InputError struct{ Problems []string }

func (e *InputError) Error() string { return strings.Join(e.Problems, "; ") }
func (e *InputError) Unwrap() error { return ErrBadInput }

// As reads the refusal as the fault vocabulary's BadRequest.
func (e *InputError) As(target any) bool {
	t, ok := target.(**fault.BadRequest)
	if ok {
		*t = &fault.BadRequest{Msg: e.Error(), Err: e}
	}
	return ok
}

// Start validates a request, records the run and enqueues it. Priority runs
// are dispatched ahead of normal ones.
func (s *Service) Start(ctx context.Context, accountID, agentID string, req StartRequest) (Run, error) {
	a, err := s.Agents.ForRunAt(ctx, accountID, agentID, req.ChangeID)
	if errors.Is(err, ErrUnknownVersion) {
		return Run{}, &fault.Invalid{Err: err, Items: []fault.Item{{Loc: []any{"body", "change_id"},
			Msg: "the agent has no version with this change_id (see GET /agents/{agent_id}/versions)", Type: "value_error.unknown_version"}}}
	}
	if err != nil {
		return Run{}, err
	}
	if a.Disabled {
		return Run{}, ErrDisabled
	}
	if missing := s.Engine.Registry.Missing(a.Definition); len(missing) > 0 {
		return Run{}, fmt.Errorf("%w: this agent uses %s, which this server does not provide yet", ErrUnavailableStep, strings.Join(missing, ", "))
	}
	if err := billing.NewCredits(s.DB).Require(ctx, accountID, 0); err != nil {
		return Run{}, err
	}
	uploads, err := s.uploadIDs(ctx, accountID, agentID, req)
	if err != nil {
		return Run{}, err
	}
	if len(uploads) > 0 {
		atts, err := s.Uploads.Attachments(ctx, accountID, agentID, uploads)
		if err != nil {
			return Run{}, err
		}
		names := make([]string, len(atts))
		for i, at := range atts {
			names[i] = at.Name
		}
		if unmet := a.Contract.Unmet(names); len(unmet) > 0 {
			return Run{}, &InputError{Problems: []string{definition.UnmetMessage(unmet)}}
		}
	}
	return s.createQueued(ctx, Run{AccountID: accountID, AgentID: agentID, Priority: req.Priority,
		TriggerType: orString(req.TriggerType, string(a.Trigger)), Input: req.Input, Metadata: req.Metadata,
		InputUploadIDs: uploads, ReplayOfRunID: req.ReplayOfRunID, ParentRunID: req.ParentRunID, CallChain: req.CallChain,
		ChangeID: a.ChangeID})
}

// createQueued records a run, its first status event and its job in one
// transaction: a crash anywhere leaves either all three or none, so no run
// waits pending without a job. Once committed, the local workers are
// woken to take the job at once (other replicas hear of it through
// LISTEN/NOTIFY on PostgreSQL).
func (s *Service) createQueued(ctx context.Context, run Run) (Run, error) {
	return s.createQueuedWith(ctx, run, nil)
}

// createQueuedWith is createQueued that also calls with, when not nil,
// within the transaction once the run is recorded (a rerun copies the
// steps it reuses there).
func (s *Service) createQueuedWith(ctx context.Context, run Run, with func(tx *sql.Tx, r Run) error) (Run, error) {
	var wake func()
	run = traced(ctx, run)
	err := s.DB.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
		r, err := s.Repo.CreateRunTx(ctx, tx, run)
		if err != nil {
			return err
		}
		run = r
		if with != nil {
			if err := with(tx, r); err != nil {
				return err
			}
		}
		if _, err := s.Bus.AppendTx(ctx, tx, r.AccountID, r.ID, events.New{Type: "status", Data: map[string]any{"run_id": r.ID, "status": r.Status}}); err != nil {
			return err
		}
		if hook := s.beforeEnqueue.Load(); hook != nil {
			if err := (*hook)(r.ID); err != nil {
				return err
			}
		}
		wake, err = s.Queue.InsertTx(inRunTrace(ctx, r), tx, conn, RunArgs{RunID: r.ID, AccountID: r.AccountID}, runInsertOpts(r))
		return err
	})
	if err != nil {
		return Run{}, err
	}
	s.Bus.Wake(run.ID)
	wake()
	if run.RegressionID == "" { // a regression's replay is no production run
		telemetry.RunCreated(run.TriggerType)
	}
	return run, nil
}

func orString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// enqueue hands the run to the workers. River's priority 1 is taken first.
// A run's job is unique by its arguments: enqueueing a run whose job
// exists is a no-op, so the stranded-run sweeper can never make two workers
// execute one run. A resume after a review passes what it resumes, which
// makes its job a new one.
func (s *Service) enqueue(ctx context.Context, r Run, resume string) error {
	_, err := s.Queue.Insert(inRunTrace(ctx, r), RunArgs{RunID: r.ID, AccountID: r.AccountID, Resume: resume}, runInsertOpts(r))
	return err
}

func runInsertOpts(r Run) *river.InsertOpts {
	prio := 2
	if r.Priority {
		prio = 1
	}
	return &river.InsertOpts{Priority: prio, MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// strandedAfter is how long a run may stay pending before the sweeper
// assumes its job was never enqueued. A run started through Start or a
// call_agent step that does not wait commits with its job (createQueued),
// so cannot be stranded; the sweep remains for a waited-for call_agent
// sub-run, which its parent executes in place without a job of its own
// and which a crash can leave pending, and for runs recorded by earlier
// versions.
const strandedAfter = 2 * time.Minute

// RequeueStranded enqueues the runs left pending without a job; it returns
// how many it handed to the queue (an existing job makes that a no-op).
func (s *Service) RequeueStranded(ctx context.Context, now time.Time) (int, error) {
	stranded, err := s.Repo.PendingRunsBefore(ctx, now.Add(-strandedAfter), 500)
	if err != nil {
		return 0, err
	}
	for _, r := range stranded {
		if err := s.enqueue(ctx, r, ""); err != nil {
			return 0, err
		}
	}
	return len(stranded), nil
}

// uploadIDs checks the input options and returns the upload batch.
func (s *Service) uploadIDs(ctx context.Context, accountID, agentID string, req StartRequest) ([]string, error) {
	var problems []string
	if req.Input != nil && (req.InputUploadID != "" || len(req.InputUploadIDs) > 0) {
		problems = append(problems, "give either input or uploaded files (input_upload_id / input_upload_ids), not both")
	}
	if req.InputUploadID != "" && len(req.InputUploadIDs) > 0 {
		problems = append(problems, "give input_upload_id or input_upload_ids, not both")
	}
	if len(req.InputUploadIDs) > 20 {
		problems = append(problems, "input_upload_ids takes at most 20 uploads")
	}
	if len(problems) > 0 {
		return nil, &InputError{Problems: problems}
	}
	ids := req.InputUploadIDs
	if req.InputUploadID != "" {
		ids = []string{req.InputUploadID}
	}
	if req.ReplayOfRunID != "" {
		src, err := s.Repo.Run(ctx, accountID, req.ReplayOfRunID)
		if err != nil || src.AgentID != agentID {
			return nil, fmt.Errorf("replay_of_run_id: %w", store.ErrNotFound)
		}
		if len(ids) == 0 {
			ids = src.InputUploadIDs
		}
	}
	if len(ids) > 0 && s.Uploads == nil {
		return nil, &InputError{Problems: []string{"this server does not accept input uploads"}}
	}
	return ids, nil
}

// Started is the snapshot of a run as Start returned it, before any
// attempt: what a stream opens with, without reading the run back.
func (s *Service) Started(r Run) RunResponse { return snapshot(r, nil, nil, verdicts{}) }

// verdictsOf reads the policies that blocked and flagged something in r.
func (s *Service) verdictsOf(ctx context.Context, r Run) (verdicts, error) {
	if s.Verdicts == nil {
		return verdicts{}, nil
	}
	b, f, err := s.Verdicts(ctx, r.AccountID, r.ID)
	return verdicts{blocked: b, flagged: f}, err
}

// Get returns a run's snapshot.
func (s *Service) Get(ctx context.Context, accountID, runID string, withSteps bool) (RunResponse, error) {
	r, err := s.Repo.Run(ctx, accountID, runID)
	if err != nil {
		return RunResponse{}, err
	}
	snap, err := s.snapshotOf(ctx, r, withSteps)
	if err != nil {
		return RunResponse{}, err
	}
	if snap.Reruns, err = s.Repo.Reruns(ctx, accountID, runID, 100); err != nil {
		return RunResponse{}, err
	}
	return snap, nil
}

func (s *Service) snapshotOf(ctx context.Context, r Run, withSteps bool) (RunResponse, error) {
	attempts, err := s.Repo.RunAttempts(ctx, r.ID)
	if err != nil {
		return RunResponse{}, err
	}
	var steps []StepRow
	if withSteps {
		if steps, err = s.Repo.Steps(ctx, r.ID); err != nil {
			return RunResponse{}, err
		}
		if steps == nil {
			steps = []StepRow{}
		}
	}
	gov, err := s.verdictsOf(ctx, r)
	if err != nil {
		return RunResponse{}, err
	}
	return snapshot(r, attempts, steps, gov), nil
}

// List lists an agent's runs, newest first.
func (s *Service) List(ctx context.Context, accountID, agentID, status string, page, limit int) ([]RunResponse, int, error) {
	if _, err := s.Agents.ForRun(ctx, accountID, agentID); err != nil {
		return nil, 0, err
	}
	rs, total, err := s.Repo.RunsOfAgent(ctx, accountID, agentID, status, limit, paging.Offset(page, limit))
	if err != nil {
		return nil, 0, err
	}
	out := make([]RunResponse, 0, len(rs))
	for _, r := range rs {
		snap, err := s.snapshotOf(ctx, r, false)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, snap)
	}
	return out, total, nil
}

// Cancel asks a run to stop. A run nobody holds (pending, queued, parked)
// is settled here, by a compare-and-set that races safely with a worker
// taking it: if the worker wins, it finds the cancel request as it starts
// and fails the run itself; either way the run ends once, with one done
// event. A run being executed is interrupted by its worker, which polls
// for the request (in-flight model and HTTP calls are cancelled).
func (s *Service) Cancel(ctx context.Context, accountID, runID string) (RunResponse, error) {
	r, err := s.Repo.RequestCancel(ctx, accountID, runID)
	if errors.Is(err, store.ErrConflict) {
		return RunResponse{}, ErrTerminal
	}
	if err != nil {
		return RunResponse{}, err
	}
	if unheld(r.Status) {
		if _, err := s.finish(ctx, r, 0, RunResult{Status: RunFailed, Error: "Run cancelled"}); err != nil {
			return RunResponse{}, err
		}
	}
	return s.Get(ctx, accountID, runID, false)
}

// unheld reports whether no worker executes a run in this status.
func unheld(status string) bool {
	return status == RunPending || status == RunQueued || status == RunWaitingHuman
}

// finish records a run's end (or park) and announces it. The store guards
// the change (attempt > 0: this worker holds the run; 0: nobody does);
// when the guard fails someone else already moved the run, and finish
// reports false and announces nothing, so a run never ends twice.
func (s *Service) finish(ctx context.Context, r Run, attempt int, res RunResult) (bool, error) {
	return s.finishJournal(ctx, r, attempt, res, nil)
}

// finishJournal is finish committing, in the same transaction, the step
// records j still holds (nil: none).
func (s *Service) finishJournal(ctx context.Context, r Run, attempt int, res RunResult, j *journal) (bool, error) {
	ctx = context.WithoutCancel(ctx)
	if j == nil {
		return s.finishTx(ctx, r, attempt, res, nil)
	}
	var moved bool
	err := j.settle(func(judged bool, write func(ctx context.Context, tx *sql.Tx, extra ...events.New) error) error {
		var err error
		res.Judged = judged
		moved, err = s.finishTx(ctx, r, attempt, res, write)
		return err
	})
	return moved, err
}

func (s *Service) finishTx(ctx context.Context, r Run, attempt int, res RunResult, held func(ctx context.Context, tx *sql.Tx, extra ...events.New) error) (bool, error) {
	// The status and done events commit with the change they announce:
	// one transaction, and no window in which the run has ended but its
	// stream has not said so. Held step records go in first, their events
	// before these in one append.
	err := s.Repo.FinishRunAttemptThen(ctx, r.ID, attempt, res, func(tx *sql.Tx) error {
		fresh, err := s.Repo.RunTx(ctx, tx, r.ID)
		if err != nil {
			return err
		}
		evs := []events.New{{Type: "status", Data: map[string]any{"run_id": r.ID, "status": fresh.Status}}}
		if RunTerminal(fresh.Status) {
			attempts, err := s.Repo.RunAttemptsTx(ctx, tx, r.ID)
			if err != nil {
				return err
			}
			// Verdicts are recorded as they happen, committed before this.
			gov, err := s.verdictsOf(ctx, fresh)
			if err != nil {
				return err
			}
			evs = append(evs, events.New{Type: "done", Data: snapshot(fresh, attempts, nil, gov)})
		}
		if held != nil {
			return held(ctx, tx, evs...)
		}
		_, err = s.Bus.AppendTx(ctx, tx, r.AccountID, r.ID, evs...)
		return err
	})
	if errors.Is(err, store.ErrConflict) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	s.Bus.Wake(r.ID)
	s.observeEnd(ctx, r, res)
	// A regression's replay raises no alert (docs/regressions.md).
	if s.Finished != nil && RunTerminal(res.Status) && r.RegressionID == "" {
		s.Finished(r, res)
	}
	return true, nil
}
