package runs

import (
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/runs/runrow"
)

// The runs area's rows: a run, its attempts, its step attempts and its
// files, as the area's repository (repo_runs.go, repo_steps.go,
// repo_attachments.go) reads and writes them, and the statuses a run
// moves through (repo_runstate.go).

// Run statuses (declared in runrow, which the areas that may not import
// this one read runs with).
const (
	RunPending      = runrow.Pending
	RunQueued       = runrow.Queued
	RunProcessing   = runrow.Processing
	RunCompleted    = runrow.Completed
	RunFailed       = runrow.Failed
	RunWaitingHuman = runrow.WaitingHuman
)

// unheldStatuses are those of a run no worker executes: a worker may take
// it (StartRunAttempt) or anyone may settle it (FinishRunAttempt, attempt 0).
var unheldStatuses = []string{RunPending, RunQueued, RunWaitingHuman}

// RunTerminal reports whether a run status is final.
func RunTerminal(status string) bool { return runrow.Ended(status) }

// Run is an agent run.
type Run struct {
	ID, AccountID, AgentID string
	Status                 string
	Priority               bool
	TriggerType            string
	Input                  *string
	Output                 *string
	OutputContentType      *string
	Metadata               map[string]any
	InputUploadIDs         []string
	ReplayOfRunID          string
	ParentRunID            string
	CallChain              []string
	Credits                float64
	ErrorCount             int
	Error                  string
	HITLWaitMS, WaitMS     int64
	CancelRequested        bool
	// TraceContext is the run's trace context (telemetry.RunTrace), set
	// when it is created; "" for runs older than it.
	TraceContext string
	// GovernanceInputStatus is what the governance input check decided:
	// safe, blocked or skipped; "" when no policy checked the input.
	GovernanceInputStatus string
	// ChangeID is the workflow version the run executes: set as it is
	// created (the agent's current one unless the caller chose one); ""
	// for runs older than it, which run the current version.
	ChangeID string
	// A rerun names the run it came from, the step it runs again from,
	// and the input it gives that step instead of the recorded one.
	RerunOfRunID  string
	RerunFromStep string
	RerunInput    *string
	// RegressionID marks a replay of a regression run (internal/regressions):
	// left out of alerts, production metrics and run lists.
	RegressionID       string
	CreatedAt          time.Time
	StartedAt, EndedAt *time.Time
	UpdatedAt          time.Time
}

// RunAttempt is one execution attempt of a run.
type RunAttempt struct {
	Attempt   int
	Status    string
	StartedAt time.Time
	EndedAt   *time.Time
	Error     string
}

// RunResult is how an execution ended.
type RunResult struct {
	Status            string
	Output            *string
	OutputContentType *string
	Credits           float64 // added to the run's total
	ErrorCount        int     // added to the run's count
	Error             string
	HITLWaitMS        int64
	// Judged marks the run as holding journaled judgments to materialize
	// (the evals area materializes them); false leaves the mark as it is.
	Judged bool
}

// StepRow is one attempt of one step.
type StepRow struct {
	ID, RunID, AccountID       string
	Key, StepID, StepType      string
	Attempt                    int
	Status                     string
	Input, Output, ContentType string
	StartedAt                  time.Time
	EndedAt                    *time.Time
	Credits                    float64
	// Model and the tokens are the attempt's model calls ("" and 0 when
	// none), written by FinishStep.
	Model                      string
	InputTokens, OutputTokens  int
	ToolCalls                  json.RawMessage
	Error                      string
	Stopped, Final, Superseded bool
	// Judgments are the evaluation results made of the attempt (a JSON
	// array of the evals area's journaled judgments, or what PackJudgments
	// made of one), written by FinishStep; nil: none.
	Judgments json.RawMessage
}

// TraceCandidate is a step attempt considered by trace search.
type TraceCandidate struct {
	StepRowID, RunID, AgentID, RunStatus string
	StepID, StepType, Input, Output      string
}

// RunAttachment is a file a run's step emitted.
type RunAttachment struct {
	StorageKey, RunID, AccountID, StepID string
	Name, ContentType                    string
	Size                                 int64
	CreatedAt                            time.Time
}
