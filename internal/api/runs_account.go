package api

import (
	"context"
	"encoding/base64"
	"time"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/runs"
)

// The account-wide run views, extensions: GET /runs (every agent's runs,
// filtered, by cursor), GET /runs/summary (a recent window added up) and
// GET /runs/{run_id} (a run with its agent, trigger, sub-runs and files).
// The web console's overview, runs list and run page read them.

const (
	listAccountRunsDoc = "The account's runs across all its agents, newest first, optionally filtered by agent, status, trigger and creation time. " +
		"Pages are walked with a cursor: pass next_cursor back as cursor; it is null on the last page. " +
		"No total is counted, so a page costs the same however many runs the account has. " +
		"created_after (inclusive) and created_before (exclusive) bound the creation time at millisecond precision. " +
		"An agent_id of another account finds nothing."
	runsSummaryDoc = "What the account's runs created in the last `hours` hours (24 unless given, at most 168) add up to: " +
		"the count by status, the failure rate (failed / (completed + failed)), the 50th and 95th percentiles of the duration " +
		"of the runs that ended (seconds, null when none did), the credits they spent, and the counts per hour (buckets) for a chart. " +
		"A window with more than 200,000 runs is summarised over its newest 200,000 and says so (truncated)."
	runDetailsDoc = "A run with what GET /agents/runs/{run_id} does not say: its agent, trigger, times, the run that started it " +
		"(parent_run_id, for a call_agent sub-run), the sub-runs it started, the files its steps emitted (with their download paths) " +
		"and each step attempt's model and tokens (step_usage, in the order of the run's steps). " +
		"At most 500 sub-runs and 500 files are listed."
)

// RunListItemResponse is one run of GET /runs: a row of a table, without
// the run's input and output.
type RunListItemResponse struct {
	RunID           string   `json:"run_id" format:"uuid"`
	AgentID         string   `json:"agent_id" format:"uuid"`
	Status          string   `json:"status"`
	TriggerType     string   `json:"trigger_type" doc:"How the run was started: the agent's trigger type for runs started through the API, else schedule, call_agent (a sub-run), email…"`
	ParentRunID     *string  `json:"parent_run_id" doc:"The run whose call_agent step started this one."`
	Priority        bool     `json:"priority"`
	Credits         float64  `json:"credits"`
	ErrorCount      int      `json:"error_count"`
	Error           *string  `json:"error" doc:"Why the run failed, for a failed run."`
	CreatedAt       string   `json:"created_at" format:"date-time"`
	StartedAt       *string  `json:"started_at" format:"date-time"`
	EndedAt         *string  `json:"ended_at" format:"date-time"`
	DurationSeconds *float64 `json:"duration_seconds" doc:"From start to end, for a run that ended."`
}

// AccountRunsResponse is a page of GET /runs.
type AccountRunsResponse struct {
	Data       []RunListItemResponse `json:"data"`
	NextCursor *string               `json:"next_cursor" doc:"Pass as cursor for the next page; null on the last page."`
}

// RunsSummaryResponse is GET /runs/summary.
type RunsSummaryResponse struct {
	From          string              `json:"from" format:"date-time"`
	To            string              `json:"to" format:"date-time"`
	Total         int                 `json:"total"`
	ByStatus      map[string]int      `json:"by_status"`
	FailureRate   float64             `json:"failure_rate" doc:"failed / (completed + failed); 0 when no run ended."`
	P50Seconds    *float64            `json:"p50_duration_seconds"`
	P95Seconds    *float64            `json:"p95_duration_seconds"`
	Credits       float64             `json:"credits"`
	BucketSeconds int                 `json:"bucket_seconds"`
	Buckets       []RunsSummaryBucket `json:"buckets"`
	Truncated     bool                `json:"truncated"`
}

// RunsSummaryBucket is one hour (bucket_seconds) of the summary's window.
type RunsSummaryBucket struct {
	Start     string `json:"start" format:"date-time"`
	Completed int    `json:"completed"`
	Failed    int    `json:"failed"`
	Other     int    `json:"other" doc:"Runs not ended yet (pending, queued, processing, waiting)."`
}

// RunAttachmentResponse is one file a run's step emitted.
type RunAttachmentResponse struct {
	AttachmentID string  `json:"attachment_id"`
	Name         string  `json:"name"`
	ContentType  string  `json:"content_type"`
	Size         int64   `json:"size"`
	StepID       *string `json:"step_id"`
	CreatedAt    string  `json:"created_at" format:"date-time"`
	DownloadPath string  `json:"download_path" doc:"GET this path (download_run_attachment) for the file."`
}

// RunDetailsResponse is GET /runs/{run_id}.
type RunDetailsResponse struct {
	RunListItemResponse
	ReplayOfRunID *string                 `json:"replay_of_run_id"`
	Metadata      map[string]any          `json:"metadata"`
	Children      []RunListItemResponse   `json:"children" doc:"The sub-runs this run's call_agent steps started, oldest first."`
	Attachments   []RunAttachmentResponse `json:"attachments"`
	StepUsage     []StepUsageResponse     `json:"step_usage" doc:"Each step attempt's model use, in the order of the steps GET /agents/runs/{run_id}?include_step_outputs=true lists."`
}

// StepUsageResponse is the model use of one step attempt.
type StepUsageResponse struct {
	AgentStepID  string  `json:"agent_step_id"`
	Model        *string `json:"model" doc:"The model the attempt called; null when it called none."`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
}

type listAccountRunsInput struct {
	AgentID       string    `query:"agent_id" format:"uuid" required:"false"`
	Status        string    `query:"status" enum:"pending,processing,completed,failed,queued,waiting_human,waiting_scheduled" required:"false"`
	Trigger       string    `query:"trigger" maxLength:"64" pattern:"^[a-z_]*$" required:"false" doc:"Only runs of this trigger type: the agent's trigger for runs started through the API (dynamic_input…), or schedule, call_agent (sub-runs), email…"`
	CreatedAfter  time.Time `query:"created_after" required:"false"`
	CreatedBefore time.Time `query:"created_before" required:"false"`
	Cursor        string    `query:"cursor" format:"uuid" required:"false"`
	Limit         int       `query:"limit" default:"50" minimum:"1" maximum:"100"`
}

type accountRunsOutput struct{ Body AccountRunsResponse }

type runsSummaryInput struct {
	Hours int `query:"hours" default:"24" minimum:"1" maximum:"168"`
}

type runsSummaryOutput struct{ Body RunsSummaryResponse }

type runDetailsOutput struct{ Body RunDetailsResponse }

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

func runListItem(r runs.RunListItem) RunListItemResponse {
	out := RunListItemResponse{RunID: r.ID, AgentID: r.AgentID, Status: r.Status, TriggerType: r.TriggerType,
		ParentRunID: optStr(r.ParentRunID), Priority: r.Priority, Credits: r.Credits, ErrorCount: r.ErrorCount,
		CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339Nano), StartedAt: optTime(r.StartedAt), EndedAt: optTime(r.EndedAt)}
	if r.Status == runs.RunFailed {
		out.Error = optStr(r.Error)
	}
	if r.StartedAt != nil && r.EndedAt != nil {
		d := r.EndedAt.Sub(*r.StartedAt).Seconds()
		out.DurationSeconds = &d
	}
	return out
}

func (s *Server) listAccountRuns(ctx context.Context, in *listAccountRunsInput) (*accountRunsOutput, error) {
	f := runs.RunFilter{AgentID: in.AgentID, Status: in.Status, Trigger: in.Trigger, From: in.CreatedAfter, To: in.CreatedBefore, Before: in.Cursor}
	items, next, err := s.deps.Runs.AccountRuns(ctx, principal(ctx).AccountID, f, in.Limit)
	if err != nil {
		return nil, err
	}
	out := AccountRunsResponse{Data: make([]RunListItemResponse, len(items)), NextCursor: optStr(next)}
	for i, r := range items {
		out.Data[i] = runListItem(r)
	}
	return &accountRunsOutput{Body: out}, nil
}

func (s *Server) runsSummary(ctx context.Context, in *runsSummaryInput) (*runsSummaryOutput, error) {
	sum, err := s.deps.Runs.Summarise(ctx, principal(ctx).AccountID, time.Now(), time.Duration(in.Hours)*time.Hour, time.Hour)
	if err != nil {
		return nil, err
	}
	out := RunsSummaryResponse{From: sum.From.Format(time.RFC3339Nano), To: sum.To.Format(time.RFC3339Nano), Total: sum.Total,
		ByStatus: sum.ByStatus, FailureRate: sum.FailureRate, P50Seconds: sum.P50, P95Seconds: sum.P95, Credits: sum.Credits,
		BucketSeconds: int(time.Hour.Seconds()), Buckets: make([]RunsSummaryBucket, len(sum.Buckets)), Truncated: sum.Truncated}
	for i, b := range sum.Buckets {
		out.Buckets[i] = RunsSummaryBucket{Start: b.Start.Format(time.RFC3339Nano), Completed: b.Completed, Failed: b.Failed, Other: b.Other}
	}
	return &runsSummaryOutput{Body: out}, nil
}

func (s *Server) runDetails(ctx context.Context, in *runIDInput) (*runDetailsOutput, error) {
	d, err := s.deps.Runs.RunDetails(ctx, principal(ctx).AccountID, in.RunID)
	if err != nil {
		return nil, fault.Name(err, "Resource")
	}
	r := d.Run
	item := runListItem(runs.RunListItem{ID: r.ID, AgentID: r.AgentID, Status: r.Status, TriggerType: r.TriggerType,
		ParentRunID: r.ParentRunID, Priority: r.Priority, Credits: r.Credits, ErrorCount: r.ErrorCount, Error: r.Error,
		CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, EndedAt: r.EndedAt})
	out := RunDetailsResponse{RunListItemResponse: item, ReplayOfRunID: optStr(r.ReplayOfRunID), Metadata: r.Metadata,
		Children: make([]RunListItemResponse, len(d.Children)), Attachments: make([]RunAttachmentResponse, len(d.Attachments)),
		StepUsage: make([]StepUsageResponse, len(d.Usage))}
	for i, u := range d.Usage {
		out.StepUsage[i] = StepUsageResponse{AgentStepID: u.StepID, Model: optStr(u.Model), InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	}
	if out.Metadata == nil {
		out.Metadata = map[string]any{}
	}
	for i, c := range d.Children {
		out.Children[i] = runListItem(c)
	}
	for i, a := range d.Attachments {
		id := base64.RawURLEncoding.EncodeToString([]byte(a.StorageKey))
		out.Attachments[i] = RunAttachmentResponse{AttachmentID: id, Name: a.Name, ContentType: a.ContentType, Size: a.Size,
			StepID: optStr(a.StepID), CreatedAt: a.CreatedAt.UTC().Format(time.RFC3339Nano),
			DownloadPath: "/v2/agent-runs/" + r.ID + "/attachments/" + id}
	}
	return &runDetailsOutput{Body: out}, nil
}
