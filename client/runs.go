package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Run statuses (AgentRunResponse.status).
const (
	RunPending          = "pending"
	RunProcessing       = "processing"
	RunCompleted        = "completed"
	RunFailed           = "failed"
	RunQueued           = "queued"
	RunWaitingHuman     = "waiting_human"
	RunWaitingScheduled = "waiting_scheduled"
)

// RunTerminal reports whether a run status is final: completed or failed.
// A run waiting for a human or a schedule is not; it continues later.
func RunTerminal(status string) bool { return status == RunCompleted || status == RunFailed }

// Event types of a run stream besides done, error and timeout (see wait.go).
const (
	EventInit          = "init"
	EventStatus        = "status"
	EventStepStarted   = "step_started"
	EventStepCompleted = "step_completed"
	EventStepFailed    = "step_failed"
	EventStreamToken   = "stream_token"
	EventStreamEnd     = "stream_end"
	EventWaitingHuman  = "waiting_human"
)

// AgentRunRequest starts a run (POST /agents/{agent_id}/runs and
// /runs/stream). Give at most one of Input, InputUploadID and
// InputUploadIDs.
type AgentRunRequest struct {
	Input          string         `json:"input,omitempty"`
	InputUploadID  string         `json:"input_upload_id,omitempty"`
	InputUploadIDs []string       `json:"input_upload_ids,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"` // values of {{metadata.key}} placeholders
	// Priority dispatches the run ahead of normal ones and streams the
	// tokens of streaming_result steps. StreamRun always sets it.
	Priority      bool   `json:"priority,omitempty"`
	ReplayOfRunID string `json:"replay_of_run_id,omitempty"`
	// ChangeID (an extension) runs this version of the workflow (see
	// ListAgentVersions) instead of the current one.
	ChangeID string `json:"change_id,omitempty"`
}

// AgentRunResponse is a run's snapshot: what GET /agents/runs/{run_id}
// answers and the init and done events of a stream carry.
type AgentRunResponse struct {
	RunID                 string                    `json:"run_id"`
	Status                string                    `json:"status"`
	ErrorCount            int                       `json:"error_count"`
	Credits               *float64                  `json:"credits"`
	Priority              bool                      `json:"priority"`
	Input                 *string                   `json:"input"`
	Output                *string                   `json:"output"`
	OutputContentType     *string                   `json:"output_content_type"`
	Attempts              []AgentRunAttemptResponse `json:"attempts"`
	Steps                 []AgentRunStepResponse    `json:"steps,omitempty"` // with include_step_outputs
	BlockedPolicies       []GovernancePolicyRef     `json:"blocked_policies"`
	FlaggedPolicies       []GovernancePolicyRef     `json:"flagged_policies"`
	HITLWaitMS            *int64                    `json:"hitl_wait_ms"`
	WaitMS                *int64                    `json:"wait_ms"`
	GovernanceInputStatus *string                   `json:"governance_input_status"`
	GovernanceInputWaitMS *int64                    `json:"governance_input_wait_ms"`
	InputScanStatus       *string                   `json:"input_scan_status"`
	ScanWaitMS            *int64                    `json:"scan_wait_ms"`
	// TraceID (an extension) is the run's OpenTelemetry trace id, when the
	// server exports traces and sampled the run; "" otherwise.
	TraceID string `json:"trace_id,omitempty"`
	// ChangeID (an extension) is the workflow version the run executes;
	// RerunOf and RerunFromStep name the run and step a rerun came from.
	ChangeID      string `json:"change_id,omitempty"`
	RerunOf       string `json:"rerun_of,omitempty"`
	RerunFromStep string `json:"rerun_from_step,omitempty"`
	// Reruns lists the runs rerun from this one (GetRun only).
	Reruns []string `json:"reruns,omitempty"`
}

// LastError is the error of the run's latest failed attempt ("" if none),
// for example "Run cancelled". (Not Error: a snapshot is not an error.)
func (r *AgentRunResponse) LastError() string {
	for i := len(r.Attempts) - 1; i >= 0; i-- {
		if e := r.Attempts[i].Error; e != nil && *e != "" {
			return *e
		}
	}
	return ""
}

// OutputText is the output, "" when there is none yet.
func (r *AgentRunResponse) OutputText() string { return strOrEmpty(r.Output) }

// AgentRunAttemptResponse is one execution attempt of a run.
type AgentRunAttemptResponse struct {
	Status    string   `json:"status"`
	StartedAt *string  `json:"started_at"`
	EndedAt   *string  `json:"ended_at"`
	Duration  *float64 `json:"duration"` // seconds
	Error     *string  `json:"error"`
}

// AgentRunStepResponse is one attempt of one step of a run.
type AgentRunStepResponse struct {
	AgentStepID       string                     `json:"agent_step_id"`
	StepType          string                     `json:"step_type"`
	Status            string                     `json:"status"`
	Input             *string                    `json:"input"`
	Output            *string                    `json:"output"` // the error, for a failed step
	OutputContentType *string                    `json:"output_content_type"`
	StartedAt         *string                    `json:"started_at"`
	EndedAt           *string                    `json:"ended_at"`
	DurationSeconds   *float64                   `json:"duration_seconds"`
	CreditsUsed       float64                    `json:"credits_used"`
	ToolCalls         []AgentRunToolCallResponse `json:"tool_calls"`
	// Reused (an extension) says a rerun reused this step's recorded
	// output from the run it reruns rather than executing it.
	Reused bool `json:"reused,omitempty"`
}

// AgentRunToolCallResponse is one tool call of a prompt_call step.
type AgentRunToolCallResponse struct {
	ID              string   `json:"id"`
	FunctionName    string   `json:"function_name"`
	Input           *string  `json:"input"`
	Output          *string  `json:"output"`
	Error           *string  `json:"error"`
	Succeeded       *bool    `json:"succeeded"`
	CreditsUsed     float64  `json:"credits_used"`
	DurationSeconds *float64 `json:"duration_seconds"`
	StartedAt       *string  `json:"started_at"`
	EndedAt         *string  `json:"ended_at"`
	RoundIndex      int      `json:"round_index"`
	Sequence        int      `json:"sequence"`
}

// GovernancePolicyRef names a governance policy that blocked or flagged a run.
type GovernancePolicyRef struct {
	PolicyID   string  `json:"policy_id"`
	PolicyName *string `json:"policy_name"`
}

// StartRun starts a run and returns its first snapshot (status pending);
// poll it with PollRun or GetRun (POST /agents/{agent_id}/runs).
func (c *Client) StartRun(ctx context.Context, agentID string, req AgentRunRequest, opts ...CallOption) (*AgentRunResponse, error) {
	var out AgentRunResponse
	if err := c.Do(ctx, http.MethodPost, pathf("/agents/%s/runs", agentID), req, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetRun returns a run's snapshot, with every step attempt's input, output,
// timing and credits when steps is true (GET /agents/runs/{run_id}).
func (c *Client) GetRun(ctx context.Context, runID string, steps bool, opts ...CallOption) (*AgentRunResponse, error) {
	if steps {
		opts = append([]CallOption{WithQuery(url.Values{"include_step_outputs": {"true"}})}, opts...)
	}
	var out AgentRunResponse
	if err := c.Do(ctx, http.MethodGet, pathf("/agents/runs/%s", runID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// PollRun fetches a run every interval until it is completed or failed and
// returns that snapshot. With a timeout it gives up after it with an error
// wrapping ErrPollTimeout (and the last snapshot); zero means no limit but
// ctx's. A run waiting for a human review keeps it polling.
func (c *Client) PollRun(ctx context.Context, runID string, interval, timeout time.Duration, opts ...CallOption) (*AgentRunResponse, error) {
	return Poll(ctx, PollOptions{Interval: interval, Timeout: timeout},
		func(ctx context.Context) (*AgentRunResponse, error) { return c.GetRun(ctx, runID, false, opts...) },
		func(r *AgentRunResponse) bool { return RunTerminal(r.Status) })
}

// CancelRun stops a queued or processing run (DELETE /agents/runs/{run_id}).
// A run not yet picked up fails at once; one executing stops within a
// moment, so the snapshot returned may still say processing (PollRun it to
// see it failed with "Run cancelled"). A run that already finished is a 409:
// errors.Is(err, ErrConflict).
func (c *Client) CancelRun(ctx context.Context, runID string, opts ...CallOption) (*AgentRunResponse, error) {
	var out AgentRunResponse
	if err := c.Do(ctx, http.MethodDelete, pathf("/agents/runs/%s", runID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// RunListOptions filter and page GET /agents/{agent_id}/runs.
type RunListOptions struct {
	Status string // one of the Run* statuses; "" for all
	Page   int    // 1-based; 1 when zero
	Limit  int    // 1–100; the server's 50 when zero (100 for Runs)
}

func (o RunListOptions) query() ListQuery {
	q := ListQuery{Page: o.Page, Limit: min(o.Limit, maxRunPage)}
	if o.Status != "" {
		q.Params = url.Values{"status": {o.Status}}
	}
	return q
}

// maxRunPage is the endpoint's largest page.
const maxRunPage = 100

// ListRuns returns one page of an agent's runs, newest first.
func (c *Client) ListRuns(ctx context.Context, agentID string, o RunListOptions, opts ...CallOption) (*Page[AgentRunResponse], error) {
	return ListPage[AgentRunResponse](ctx, c, pathf("/agents/%s/runs", agentID), o.query(), opts...)
}

// Runs iterates over all of an agent's runs (from o.Page on), newest first,
// fetching pages as the loop needs them.
func (c *Client) Runs(ctx context.Context, agentID string, o RunListOptions, opts ...CallOption) iter.Seq2[AgentRunResponse, error] {
	if o.Limit <= 0 {
		o.Limit = maxRunPage
	}
	return ListAll[AgentRunResponse](ctx, c, pathf("/agents/%s/runs", agentID), o.query(), opts...)
}

// AgentTraceSearchRequest is POST /agents/runs/search. Empty filters are
// not sent.
type AgentTraceSearchRequest struct {
	Query     string `json:"query"`
	AgentID   string `json:"agent_id,omitempty"`
	RunStatus string `json:"run_status,omitempty"`
	StepType  string `json:"step_type,omitempty"`
	TopN      int    `json:"top_n,omitempty"` // 1–100; 10 when zero
}

// AgentTraceSearchResponse lists the step inputs and outputs that match.
type AgentTraceSearchResponse struct {
	Matches []AgentTraceMatchResponse `json:"matches"`
	Total   int                       `json:"total"`
}

// AgentTraceMatchResponse is one matching step input or output.
type AgentTraceMatchResponse struct {
	AgentRunID     *string `json:"agent_run_id"`
	AgentStepRunID *string `json:"agent_step_run_id"`
	AgentID        *string `json:"agent_id"`
	AgentStepID    *string `json:"agent_step_id"`
	AgentStepType  *string `json:"agent_step_type"`
	AgentRunStatus *string `json:"agent_run_status"`
	Title          *string `json:"title"`
	Text           string  `json:"text"`
	Score          float64 `json:"score"` // 0–1, higher is closer
}

// SearchTraces ranks the account's step inputs and outputs by similarity
// to a query (POST /agents/runs/search).
func (c *Client) SearchTraces(ctx context.Context, req AgentTraceSearchRequest, opts ...CallOption) (*AgentTraceSearchResponse, error) {
	var out AgentTraceSearchResponse
	if err := c.Do(ctx, http.MethodPost, "/agents/runs/search", req, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// RunAttachmentID is the attachment_id of a file a step stored under
// storageKey: the key in URL-safe base64, as webhook and e-mail payloads
// carry it.
func RunAttachmentID(storageKey string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(storageKey))
}

// DownloadRunAttachment opens a file a run's step emitted, unread, to be
// streamed to its destination; the caller must Close it
// (GET /v2/agent-runs/{run_id}/attachments/{attachment_id}). Pass
// WithQuery(url.Values{"download_name": {name}}) to rename it.
func (c *Client) DownloadRunAttachment(ctx context.Context, runID, attachmentID string, opts ...CallOption) (*Download, error) {
	return c.Download(ctx, pathf("/v2/agent-runs/%s/attachments/%s", runID, attachmentID), opts...)
}

// RunEvent is one event of a run stream, with the fields of its data
// decoded for the common types. Data keeps the whole payload.
type RunEvent struct {
	Type  string // init, status, step_started, …, stream_token, done
	ID    string // "<run_id>:<seq>"; "" for events without an id
	RunID string
	Seq   int64 // 0 for init, then 1, 2, …; -1 without an id
	Data  json.RawMessage

	Snapshot *AgentRunResponse // init and done
	Status   string            // status (and the snapshot's status)
	StepID   string            // step_* events, stream_token
	StepType string            // step_* events
	Attempt  int               // step_* events
	Token    string            // stream_token
	Error    string            // step_failed
}

// newRunEvent decodes an event of a run stream.
func newRunEvent(ev Event) (RunEvent, error) {
	re := RunEvent{Type: ev.Event, ID: ev.ID, Seq: -1, Data: json.RawMessage(ev.Data)}
	if id, seq, ok := strings.Cut(ev.ID, ":"); ok {
		n, err := strconv.ParseInt(seq, 10, 64)
		if err != nil {
			return re, fmt.Errorf("run event id %q is not run_id:seq", ev.ID)
		}
		re.RunID, re.Seq = id, n
	}
	var d struct {
		RunID    string `json:"run_id"`
		Status   string `json:"status"`
		StepID   string `json:"step_id"`
		StepType string `json:"step_type"`
		Attempt  int    `json:"attempt"`
		Token    string `json:"token"`
		Error    string `json:"error"`
	}
	if err := ev.JSON(&d); err != nil {
		return re, fmt.Errorf("run event %s %s: %w", ev.Event, ev.ID, err)
	}
	if re.RunID == "" {
		re.RunID = d.RunID
	}
	re.Status, re.StepID, re.StepType, re.Attempt, re.Token, re.Error = d.Status, d.StepID, d.StepType, d.Attempt, d.Token, d.Error
	if ev.Event == EventInit || ev.Event == EventDone {
		var snap AgentRunResponse
		if err := ev.JSON(&snap); err != nil {
			return re, fmt.Errorf("run event %s: %w", ev.Event, err)
		}
		re.Snapshot = &snap
	}
	return re, nil
}

// StreamRun starts a priority run and yields its events as they happen
// (POST /agents/{agent_id}/runs/stream): init with the first snapshot,
// then status, step and token events, and done with the final snapshot,
// which ends the iteration. A dropped connection, the server's time limit
// on one connection (a timeout event), or a server shutting down (a
// reconnect event, not yielded) is crossed by re-posting with
// Last-Event-ID, with a growing delay while the server is unreachable, which continues the same run's events after the last one
// received: the sequence has no gaps and no repeats, and no second run is
// started. An error event ends the iteration with a *StreamEventError
// (the run goes on: PollRun it). Breaking out of the loop leaves the run
// running.
func (c *Client) StreamRun(ctx context.Context, agentID string, req AgentRunRequest, opts ...CallOption) iter.Seq2[RunEvent, error] {
	req.Priority = false // implied by the endpoint, and not in its body
	// Without an event id a new POST would start a second run: a stream
	// that breaks before its first event is not resumed.
	return c.runStream(ctx, agentID, req, false, opts)
}

// FollowRun streams the events of a run that already exists (one started
// with StartRun, or a stream to pick up again) from its first event on, as
// StreamRun does after its init event. It starts nothing.
func (c *Client) FollowRun(ctx context.Context, agentID, runID string, opts ...CallOption) iter.Seq2[RunEvent, error] {
	opts = append([]CallOption{WithRequestHeader("Last-Event-ID", runID+":0")}, opts...)
	return c.runStream(ctx, agentID, struct{}{}, true, opts)
}

// runStream follows a run stream, resuming with Last-Event-ID. resumable
// says whether the first request may be repeated before any event arrived.
func (c *Client) runStream(ctx context.Context, agentID string, body any, resumable bool, opts []CallOption) iter.Seq2[RunEvent, error] {
	path := pathf("/agents/%s/runs/stream", agentID)
	so := StreamOptions{
		Until: func(e Event) bool { return e.Event == EventDone || e.Event == EventError },
		Resume: func(st ResumeState) (StreamRequest, bool) {
			if st.LastEventID == "" && !resumable {
				return StreamRequest{}, false
			}
			return StreamRequest{Method: http.MethodPost, Path: path, Body: struct{}{}}, true
		},
	}
	return func(yield func(RunEvent, error) bool) {
		for ev, err := range c.Stream(ctx, StreamRequest{Method: http.MethodPost, Path: path, Body: body}, so, opts...) {
			if err != nil {
				yield(RunEvent{}, err)
				return
			}
			switch ev.Event {
			case EventTimeout:
				continue // the connection's limit, not the run's: the stream resumes
			case EventError:
				yield(RunEvent{}, &StreamEventError{Event: ev})
				return
			}
			re, err := newRunEvent(ev)
			if !yield(re, err) || err != nil {
				return
			}
		}
	}
}

// RunAndWait starts a priority run, follows its stream and returns the
// final snapshot (completed or failed: check Status). If the stream cannot
// be followed to its end once the run has started (an error event, or
// reconnections exhausted), it polls the run instead, so a started run is
// always waited for; ctx bounds the wait.
func (c *Client) RunAndWait(ctx context.Context, agentID string, req AgentRunRequest, opts ...CallOption) (*AgentRunResponse, error) {
	runID := ""
	for ev, err := range c.StreamRun(ctx, agentID, req, opts...) {
		if err != nil {
			var se *StreamEventError
			if runID != "" && ctx.Err() == nil && (errors.As(err, &se) || errors.Is(err, ErrStreamDropped)) {
				return c.PollRun(ctx, runID, time.Second, 0, opts...)
			}
			return nil, err
		}
		if ev.RunID != "" {
			runID = ev.RunID
		}
		if ev.Type == EventDone {
			return ev.Snapshot, nil
		}
	}
	return nil, ErrStreamEnded
}

func strOrEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// RerunRequest asks for a new run from a step of a finished run (an
// Agentry extension). Input, when not nil, replaces the recorded input of
// FromStep; ChangeID runs another version of the workflow ("" for the
// original run's).
type RerunRequest struct {
	FromStep string  `json:"from_step"`
	Input    *string `json:"input,omitempty"`
	ChangeID string  `json:"change_id,omitempty"`
}

// RerunRun starts a new run from step FromStep of a finished run: the
// steps the original completed before it keep their recorded outputs
// (their AgentRunStepResponse.Reused is true: not executed nor billed
// again), the step and everything after it run again. It returns the new
// run's first snapshot, whose RerunOf names the original; poll it like any
// run. A run not finished is a 409 (POST /agents/runs/{run_id}/rerun).
func (c *Client) RerunRun(ctx context.Context, runID string, req RerunRequest, opts ...CallOption) (*AgentRunResponse, error) {
	var out AgentRunResponse
	if err := c.Do(ctx, http.MethodPost, pathf("/agents/runs/%s/rerun", runID), req, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}
