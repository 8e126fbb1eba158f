package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The account-wide run views (Agentry extensions; the Agent Platform API
// has no such operations): every agent's runs in one list, a summary of
// the recent ones, and a run's details (agent, trigger, sub-runs, files).

// RunListItem is one run of AccountRuns: a row of a table, without the
// run's input and output (GetRun has them).
type RunListItem struct {
	RunID           string   `json:"run_id"`
	AgentID         string   `json:"agent_id"`
	Status          string   `json:"status"`
	TriggerType     string   `json:"trigger_type"` // dynamic_input…, schedule, call_agent (a sub-run), email…
	ParentRunID     *string  `json:"parent_run_id"`
	Priority        bool     `json:"priority"`
	Credits         float64  `json:"credits"`
	ErrorCount      int      `json:"error_count"`
	Error           *string  `json:"error"` // for a failed run
	CreatedAt       string   `json:"created_at"`
	StartedAt       *string  `json:"started_at"`
	EndedAt         *string  `json:"ended_at"`
	DurationSeconds *float64 `json:"duration_seconds"`
}

// AccountRunsPage is one page of AccountRuns; NextCursor is "" on the last.
type AccountRunsPage struct {
	Data       []RunListItem `json:"data"`
	NextCursor *string       `json:"next_cursor"`
}

// AccountRunsOptions filter and page GET /runs. Zero fields do not filter.
type AccountRunsOptions struct {
	AgentID, Status, Trigger string
	CreatedAfter             time.Time // inclusive
	CreatedBefore            time.Time // exclusive
	Cursor                   string    // a page's NextCursor, for the page after it
	Limit                    int       // 1–100; the server's 50 when zero
}

func (o AccountRunsOptions) query() string {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("agent_id", o.AgentID)
	set("status", o.Status)
	set("trigger", o.Trigger)
	set("cursor", o.Cursor)
	if !o.CreatedAfter.IsZero() {
		q.Set("created_after", o.CreatedAfter.UTC().Format(time.RFC3339Nano))
	}
	if !o.CreatedBefore.IsZero() {
		q.Set("created_before", o.CreatedBefore.UTC().Format(time.RFC3339Nano))
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// AccountRuns returns one page of the account's runs across its agents,
// newest first (GET /runs, an extension). Pass the page's NextCursor as
// Cursor for the next one.
func (c *Client) AccountRuns(ctx context.Context, o AccountRunsOptions, opts ...CallOption) (*AccountRunsPage, error) {
	var out AccountRunsPage
	if err := c.Do(ctx, http.MethodGet, "/runs"+o.query(), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// AllAccountRuns iterates over the account's runs (from o.Cursor on),
// newest first, fetching pages as the loop needs them.
func (c *Client) AllAccountRuns(ctx context.Context, o AccountRunsOptions, opts ...CallOption) iter.Seq2[RunListItem, error] {
	return func(yield func(RunListItem, error) bool) {
		for {
			p, err := c.AccountRuns(ctx, o, opts...)
			if err != nil {
				yield(RunListItem{}, err)
				return
			}
			for _, r := range p.Data {
				if !yield(r, nil) {
					return
				}
			}
			if p.NextCursor == nil || *p.NextCursor == "" {
				return
			}
			o.Cursor = *p.NextCursor
		}
	}
}

// RunsSummary is what the account's recent runs add up to.
type RunsSummary struct {
	From        string         `json:"from"`
	To          string         `json:"to"`
	Total       int            `json:"total"`
	ByStatus    map[string]int `json:"by_status"`
	FailureRate float64        `json:"failure_rate"` // failed / (completed + failed)
	// P50Seconds and P95Seconds are percentiles of the ended runs'
	// durations; nil when none ended.
	P50Seconds    *float64            `json:"p50_duration_seconds"`
	P95Seconds    *float64            `json:"p95_duration_seconds"`
	Credits       float64             `json:"credits"`
	BucketSeconds int                 `json:"bucket_seconds"`
	Buckets       []RunsSummaryBucket `json:"buckets"`
	Truncated     bool                `json:"truncated"` // more than 200,000 runs: the newest were summarised
}

// RunsSummaryBucket is one hour of the summary's window.
type RunsSummaryBucket struct {
	Start     string `json:"start"`
	Completed int    `json:"completed"`
	Failed    int    `json:"failed"`
	Other     int    `json:"other"` // not ended yet
}

// RunsSummary adds up the account's runs created in the last hours hours
// (1–168; the server's 24 when zero) (GET /runs/summary, an extension).
func (c *Client) RunsSummary(ctx context.Context, hours int, opts ...CallOption) (*RunsSummary, error) {
	path := "/runs/summary"
	if hours > 0 {
		path += "?hours=" + strconv.Itoa(hours)
	}
	var out RunsSummary
	if err := c.Do(ctx, http.MethodGet, path, nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// RunAttachment is a file a run's step emitted; download it with
// DownloadRunAttachment(ctx, runID, AttachmentID).
type RunAttachment struct {
	AttachmentID string  `json:"attachment_id"`
	Name         string  `json:"name"`
	ContentType  string  `json:"content_type"`
	Size         int64   `json:"size"`
	StepID       *string `json:"step_id"`
	CreatedAt    string  `json:"created_at"`
	DownloadPath string  `json:"download_path"`
}

// RunDetails is a run's agent, trigger, times, sub-runs and files.
type RunDetails struct {
	RunListItem
	ReplayOfRunID *string         `json:"replay_of_run_id"`
	Metadata      map[string]any  `json:"metadata"`
	Children      []RunListItem   `json:"children"` // sub-runs of call_agent steps, oldest first
	Attachments   []RunAttachment `json:"attachments"`
	// StepUsage is each step attempt's model use, in the order of
	// GetRun(ctx, runID, true).Steps.
	StepUsage []StepUsage `json:"step_usage"`
}

// StepUsage is the model use of one step attempt.
type StepUsage struct {
	AgentStepID  string  `json:"agent_step_id"`
	Model        *string `json:"model"` // nil when the attempt called no model
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
}

// GetRunDetails reads a run's details (GET /runs/{run_id}, an extension).
func (c *Client) GetRunDetails(ctx context.Context, runID string, opts ...CallOption) (*RunDetails, error) {
	var out RunDetails
	if err := c.Do(ctx, http.MethodGet, pathf("/runs/%s", runID), nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// FollowRunFrom is FollowRun resuming after the event lastEventID
// ("run_id:seq", as RunEvent.ID gives): the events after it, with no gap
// and no repeat. It starts nothing.
func (c *Client) FollowRunFrom(ctx context.Context, agentID, lastEventID string, opts ...CallOption) iter.Seq2[RunEvent, error] {
	opts = append([]CallOption{WithRequestHeader("Last-Event-ID", lastEventID)}, opts...)
	return c.runStream(ctx, agentID, struct{}{}, true, opts)
}
