package runs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/engine"
	"github.com/agentry/agentry/internal/events"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/models/catalog"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/telemetry"
	"github.com/riverqueue/river"
)

// RunArgs is the job that executes a run.
type RunArgs struct {
	RunID string `json:"run_id"`
	// AccountID lets the queue hold one account's runs to its share of
	// the workers (jobs.Config.AccountSharePercent).
	AccountID string `json:"account_id,omitempty"`
	// Resume names what a later job of the same run resumes after (a
	// decided review), so that it is not taken for a duplicate of the
	// run's first job.
	Resume string `json:"resume,omitempty"`
}

// Kind names the job kind.
func (RunArgs) Kind() string { return "agent_run" }

// Worker executes runs.
type Worker struct {
	river.WorkerDefaults[RunArgs]
	S *Service
	// CancelPoll is how often a running run checks for a cancel request.
	CancelPoll time.Duration
}

// Work executes (or resumes) a run. A run already finished, or held by
// another worker, is left alone, so a job delivered twice never runs a
// workflow twice. A retried job (attempt > 1) may take back the run its
// earlier attempt held when it died.
func (w *Worker) Work(ctx context.Context, job *river.Job[RunArgs]) error {
	r, err := w.S.Repo.RunForWorker(ctx, job.Args.RunID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // deleted with its account
	}
	if err != nil {
		return err
	}
	if RunTerminal(r.Status) {
		return nil
	}
	return w.S.execute(ctx, r, w.CancelPoll, job.JobRow != nil && job.Attempt > 1)
}

// execute runs the workflow of r in this goroutine until it ends or parks.
// It first takes the run by a compare-and-set to processing: when that
// fails, a cancel settled the run or another worker holds it, and there
// is nothing to do.
func (s *Service) execute(ctx context.Context, r Run, cancelPoll time.Duration, recovering bool) error {
	take := s.Repo.StartRunAttemptThen
	if recovering {
		take = s.Repo.RecoverRunAttemptThen
	}
	// The processing status event commits with the move it announces; a
	// cancel that lost the race to take the run asked before we held it,
	// which the same transaction reads.
	var cancelAsked bool
	attempt, err := take(ctx, r.ID, func(tx *sql.Tx) error {
		if _, err := s.Bus.AppendTx(ctx, tx, r.AccountID, r.ID, events.New{Type: "status", Data: map[string]any{"run_id": r.ID, "status": RunProcessing}}); err != nil {
			return err
		}
		var err error
		cancelAsked, err = s.Repo.CancelRequestedTx(ctx, tx, r.ID)
		return err
	})
	if errors.Is(err, store.ErrConflict) {
		return nil
	}
	if err != nil {
		return err
	}
	s.Bus.Wake(r.ID)
	ctx, _ = telemetry.StartRunExecution(ctx, runTelemetry(r, ""), attempt)
	fail := func(msg string) error {
		// An earlier attempt may have journaled judgments a crash kept
		// from being marked (see journal.settle).
		_, err := s.finish(ctx, r, attempt, RunResult{Status: RunFailed, ErrorCount: 1, Error: msg, Judged: attempt > 1})
		return err
	}
	if cancelAsked {
		return fail("Run cancelled")
	}
	// The version the run was created on, on every attempt.
	a, err := s.Agents.ForRunAt(ctx, r.AccountID, r.AgentID, r.ChangeID)
	if err != nil {
		return fail("agent not found: " + err.Error())
	}
	telemetry.SetAgentName(ctx, a.Name)
	if a.Disabled && r.ParentRunID != "" {
		// A call_agent run started without waiting, whose callee was
		// paused before a worker got to it.
		return fail(ErrDisabled.Error())
	}
	var atts []engine.Attachment
	if len(r.InputUploadIDs) > 0 && s.Uploads != nil {
		if atts, err = s.Uploads.Attachments(ctx, r.AccountID, r.AgentID, r.InputUploadIDs); err != nil {
			return fail("input uploads: " + err.Error())
		}
	}
	input := ""
	if r.Input != nil {
		input = *r.Input
	} else if len(atts) > 0 {
		input = attachmentsInput(atts)
	}
	er := &engine.Run{ID: r.ID, AccountID: r.AccountID, AgentID: r.AgentID, Input: input, Metadata: r.Metadata,
		Attachments: atts, Trigger: a.Trigger, Priority: r.Priority, CallChain: r.CallChain,
		OversightRev: strconv.FormatInt(a.OversightRev, 10), Regression: r.RegressionID != ""}
	if r.RerunInput != nil {
		er.StepInputs = map[string]string{r.RerunFromStep: *r.RerunInput}
	}

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go s.watchCancel(runCtx, r.ID, cancel, cancelPoll)

	h := &host{s: s, run: r, model: billing.NewMetered(s.Models, s.Meter, s.Catalog)}
	if s.DefaultModel != nil {
		h.defaultModel = s.DefaultModel(ctx, r.AccountID)
	}
	// A rerun's journal holds the steps it reuses from its first attempt.
	j := &journal{db: s.DB, repo: s.Repo, bus: s.Bus, run: r, first: attempt == 1 && r.RerunOfRunID == ""}
	out, err := s.Engine.Execute(runCtx, a.Definition, er, j, h)
	res := RunResult{Credits: out.Credits, ErrorCount: out.ErrorCount, HITLWaitMS: h.hitlWait.Milliseconds()}
	switch {
	case err == nil:
		res.Status, res.Output, res.OutputContentType = RunCompleted, &out.Output, &out.ContentType
	case errors.Is(err, engine.ErrParked):
		res.Status = RunWaitingHuman
	case errors.Is(context.Cause(runCtx), errCancelled):
		res.Status, res.Error = RunFailed, "Run cancelled"
	case ctx.Err() != nil:
		// The process is shutting down: leave the run to be resumed.
		return ctx.Err()
	case errors.Is(err, llm.ErrInsufficientCredits):
		res.Status, res.Error = RunFailed, "The account ran out of credits during the run: "+err.Error()
	default:
		res.Status, res.Error = RunFailed, err.Error()
	}
	if res.Status == RunFailed && res.ErrorCount == 0 {
		res.ErrorCount = 1
	}
	moved, err := s.finishJournal(ctx, r, attempt, res, j)
	if err != nil || !moved || res.Status != RunWaitingHuman {
		return err
	}
	// Parked. A decision that landed between the review request and the
	// park found the run still processing and enqueued nothing: resume
	// for it now.
	return s.resumeOwed(context.WithoutCancel(ctx), r)
}

var errCancelled = errors.New("run cancelled")

// watchCancel polls for a cancel request: the request may arrive on any
// replica, and the flag in the database reaches them all.
func (s *Service) watchCancel(ctx context.Context, runID string, cancel context.CancelCauseFunc, every time.Duration) {
	if every <= 0 {
		every = 250 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if c, err := s.Repo.CancelRequested(ctx, runID); err == nil && c {
				cancel(errCancelled)
				return
			}
		}
	}
}

func attachmentsInput(atts []engine.Attachment) string {
	var out string
	for i, a := range atts {
		if i > 0 {
			out += "\n\n"
		}
		out += "## " + a.Name + "\n\n" + a.Text
	}
	return out
}

// host is engine.Host for one run.
type host struct {
	s        *Service
	run      Run
	model    llm.Provider
	hitlWait time.Duration
	// defaultModel is the account's default model for this run's steps
	// that name none ("" : the router's default).
	defaultModel string
}

func (h *host) Model() llm.Provider { return h.model }

// DefaultModel is the account's default, else the router's (which is the
// configured provider's when one is), else the catalog's.
func (h *host) DefaultModel() string {
	if h.defaultModel != "" {
		return h.defaultModel
	}
	if r, ok := h.s.Models.(interface{ DefaultModel(catalog.Kind) string }); ok {
		if m := r.DefaultModel(catalog.KindChat); m != "" {
			return m
		}
	}
	if m, ok := h.s.Catalog.Default(catalog.KindChat); ok {
		return m.ID
	}
	return "agentry_offline"
}

func (h *host) Price(model string, u llm.Usage) float64 {
	c, err := h.s.Catalog.Price(model, catalog.TokenUsage{Input: u.InputTokens, Output: u.OutputTokens, CachedInput: u.CachedInputTokens, CacheWrite: u.CacheWriteTokens})
	if err != nil {
		return 0
	}
	return float64(c.Credits)
}

// CallAgent runs the callee as a sub-run in this goroutine when waiting for
// it, so its events and credits are recorded like any run's. A paused
// callee fails the step with the reason a run request would get (409).
func (h *host) CallAgent(ctx context.Context, parent *engine.Run, agentID, input string, wait bool) (string, error) {
	callee, err := h.s.Agents.ForRun(ctx, parent.AccountID, agentID)
	if errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("called agent %s does not exist in this account", agentID)
	}
	if err != nil {
		return "", err
	}
	if callee.Disabled {
		return "", fmt.Errorf("called agent %s: %w", agentID, ErrDisabled)
	}
	chain := append(append([]string(nil), parent.CallChain...), parent.AgentID)
	sub := Run{AccountID: parent.AccountID, AgentID: agentID, Input: &input,
		Metadata: parent.Metadata, ParentRunID: parent.ID, CallChain: chain, TriggerType: "call_agent"}
	if !wait {
		_, err := h.s.createQueued(ctx, sub)
		return "", err
	}
	sub, err = h.s.Repo.CreateRun(ctx, traced(ctx, sub))
	if err != nil {
		return "", err
	}
	telemetry.RunCreated(sub.TriggerType)
	if err := h.s.execute(ctx, sub, 0, false); err != nil {
		return "", err
	}
	done, err := h.s.Repo.Run(ctx, parent.AccountID, sub.ID)
	if err != nil {
		return "", err
	}
	if done.Status != RunCompleted || done.Output == nil {
		return "", fmt.Errorf("called agent %s: run %s %s: %s", agentID, sub.ID, done.Status, done.Error)
	}
	return *done.Output, nil
}

// AwaitHuman asks for a review once and parks the run until it is decided
// (or its deadline applies on_timeout). Taking a decision in marks the
// review consumed, so the sweep of parked runs does not resume for it again.
func (h *host) AwaitHuman(ctx context.Context, run *engine.Run, key, instructions, content string, cfg map[string]any) (bool, string, error) {
	minutes := 1440.0
	// Parsed numbers are json.Number: read them through the step's accessor.
	if v, ok := (&definition.Step{Config: cfg}).Number("timeout_minutes"); ok && v > 0 {
		minutes = v
	}
	onTimeout, _ := cfg["on_timeout"].(string)
	if onTimeout == "" {
		onTimeout = "reject"
	}
	allowEdit, _ := cfg["allow_edit"].(bool)
	var assignees []string
	if list, ok := cfg["assignee_user_ids"].([]any); ok {
		for _, v := range list {
			if id, ok := v.(string); ok && id != "" {
				assignees = append(assignees, id)
			}
		}
	}
	rv, err := h.s.reviews.request(ctx, Review{RunID: run.ID, StepKey: key, AccountID: run.AccountID, Instructions: instructions,
		Content: content, Deadline: time.Now().Add(time.Duration(minutes * float64(time.Minute))), OnTimeout: onTimeout,
		AssigneeUserIDs: assignees, AllowEdit: allowEdit})
	if err != nil {
		return false, "", err
	}
	if rv.DecidedAt == nil {
		_, _ = h.s.Bus.Append(ctx, run.AccountID, run.ID, events.New{Type: "waiting_human", Data: map[string]any{"run_id": run.ID, "step_key": key, "instructions": instructions}})
		if hook := h.s.beforePark.Load(); hook != nil {
			(*hook)(run.ID, key)
		}
		return false, "", engine.ErrParked
	}
	if err := h.s.reviews.consume(ctx, run.ID, key); err != nil {
		return false, "", err
	}
	h.hitlWait += rv.DecidedAt.Sub(rv.RequestedAt)
	if rv.TimedOut && rv.OnTimeout == "fail" {
		//lint:ignore ST1005 the run's error, a sentence shown to people (as in reviews.go)
		return false, "", errors.New("No reviewer decided before the deadline")
	}
	return rv.Approved, rv.Edited, nil
}
