package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/events"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/runs"
	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"
)

// AgentRunRequest is the body of POST /agents/{agent_id}/runs.
type AgentRunRequest struct {
	Input          *string        `json:"input,omitempty" required:"false" nullable:"true" doc:"Input for agents with dynamic triggers."`
	InputUploadID  *string        `json:"input_upload_id,omitempty" required:"false" nullable:"true" format:"uuid" doc:"A file uploaded with POST /agents/{agent_id}/upload-input; excludes input."`
	InputUploadIDs []string       `json:"input_upload_ids,omitempty" required:"false" nullable:"true" maxItems:"20" doc:"Several uploaded files (at most 20)."`
	Metadata       map[string]any `json:"metadata,omitempty" required:"false" nullable:"true" doc:"Values for {{metadata.key}} placeholders."`
	Priority       bool           `json:"priority,omitempty" required:"false" doc:"Dispatch ahead of normal runs and stream tokens."`
	ReplayOfRunID  *string        `json:"replay_of_run_id,omitempty" required:"false" nullable:"true" format:"uuid" doc:"Re-run reusing a prior run's uploaded files."`
	ChangeID       *string        `json:"change_id,omitempty" required:"false" nullable:"true" maxLength:"64" doc:"Extension: run this version of the agent's workflow (a change_id from GET /agents/{agent_id}/versions) instead of the current one."`
}

// AgentRunStreamRequest is the body of POST /agents/{agent_id}/runs/stream.
type AgentRunStreamRequest struct {
	Input          *string        `json:"input,omitempty" required:"false" nullable:"true"`
	InputUploadID  *string        `json:"input_upload_id,omitempty" required:"false" nullable:"true" format:"uuid"`
	InputUploadIDs []string       `json:"input_upload_ids,omitempty" required:"false" nullable:"true" maxItems:"20"`
	Metadata       map[string]any `json:"metadata,omitempty" required:"false" nullable:"true"`
	ReplayOfRunID  *string        `json:"replay_of_run_id,omitempty" required:"false" nullable:"true" format:"uuid"`
	ChangeID       *string        `json:"change_id,omitempty" required:"false" nullable:"true" maxLength:"64" doc:"Extension: run this version of the agent's workflow instead of the current one."`
}

// TraceSearchRequest is the body of POST /agents/runs/search.
type TraceSearchRequest struct {
	Query     string  `json:"query" minLength:"1"`
	AgentID   *string `json:"agent_id,omitempty" required:"false" nullable:"true"`
	RunStatus *string `json:"run_status,omitempty" required:"false" nullable:"true"`
	StepType  *string `json:"step_type,omitempty" required:"false" nullable:"true"`
	TopN      int     `json:"top_n,omitempty" required:"false" default:"10" minimum:"1" maximum:"100"`
}

// TraceSearchResponse answers a trace search.
type TraceSearchResponse struct {
	Matches []runs.TraceMatch `json:"matches"`
	Total   int               `json:"total"`
}

type runOutput struct{ Body runs.RunResponse }

type startRunInput struct {
	AgentID string `path:"agent_id" format:"uuid"`
	Body    AgentRunRequest
}

type streamRunInput struct {
	AgentID     string `path:"agent_id" format:"uuid"`
	LastEventID string `header:"Last-Event-ID" doc:"Resume a stream: the id of the last event received (run_id:seq)."`
	Body        AgentRunStreamRequest
}

type getRunInput struct {
	RunID             string `path:"run_id" format:"uuid"`
	IncludeStepOutput bool   `query:"include_step_outputs" doc:"Include per-step outputs, timing and credits."`
}

type listRunsInput struct {
	AgentID string `path:"agent_id" format:"uuid"`
	Page    int    `query:"page" default:"1" minimum:"1" maximum:"1000000"`
	Limit   int    `query:"limit" default:"50" minimum:"1" maximum:"100"`
	Status  string `query:"status" enum:"pending,processing,completed,failed,queued,waiting_human,waiting_scheduled" required:"false"`
}

type runIDInput struct {
	RunID string `path:"run_id" format:"uuid"`
}

type searchInput struct{ Body TraceSearchRequest }

type searchOutput struct{ Body TraceSearchResponse }

type listRunsOutput struct{ Body any }

type attachmentInput struct {
	RunID        string `path:"run_id" format:"uuid"`
	AttachmentID string `path:"attachment_id"`
	DownloadName string `query:"download_name" maxLength:"255" required:"false"`
}

func (s *Server) startRun(ctx context.Context, in *startRunInput) (*runOutput, error) {
	p := principal(ctx)
	b := in.Body
	r, err := s.deps.Runs.Start(ctx, p.AccountID, in.AgentID, runs.StartRequest{Input: b.Input, InputUploadID: deref(b.InputUploadID),
		InputUploadIDs: b.InputUploadIDs, Metadata: b.Metadata, Priority: b.Priority, ReplayOfRunID: deref(b.ReplayOfRunID),
		ChangeID: deref(b.ChangeID)})
	if err != nil {
		return nil, fault.Name(err, "Resource")
	}
	// The run as created (pending): reading it back could find a fast run
	// already finished, and answer a start with its end.
	return &runOutput{Body: s.deps.Runs.Started(r)}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// streamRun starts a priority run and streams its events, or, given a
// Last-Event-ID of an earlier stream of this agent, resumes that stream
// after the event named — without starting anything. A caller at its cap
// of open streams is refused before anything starts.
func (s *Server) streamRun(ctx context.Context, in *streamRunInput) (*huma.StreamResponse, error) {
	p := principal(ctx)
	release, err := s.streams.acquire(p.Credential, p.AccountID)
	if err != nil {
		return nil, err
	}
	resp, err := s.openRunStream(ctx, p.AccountID, in)
	if err != nil {
		release()
		return nil, err
	}
	return s.sse(p.AccountID, resp.runID, resp.after, resp.init, release), nil
}

type runStream struct {
	runID string
	after int64
	init  *runs.RunResponse
}

func (s *Server) openRunStream(ctx context.Context, accountID string, in *streamRunInput) (runStream, error) {
	if in.LastEventID != "" {
		runID, seq, ok := parseEventID(in.LastEventID)
		if !ok {
			return runStream{}, Invalid([]any{"header", "Last-Event-ID"}, "Last-Event-ID must be an event id from this stream (run_id:seq)", "value_error")
		}
		r, err := s.deps.Runs.Run(ctx, accountID, runID)
		if err != nil || r.AgentID != in.AgentID {
			return runStream{}, NotFound("Run")
		}
		return runStream{runID: runID, after: seq}, nil
	}
	b := in.Body
	r, err := s.deps.Runs.Start(ctx, accountID, in.AgentID, runs.StartRequest{Input: b.Input, InputUploadID: deref(b.InputUploadID),
		InputUploadIDs: b.InputUploadIDs, Metadata: b.Metadata, Priority: true, ReplayOfRunID: deref(b.ReplayOfRunID),
		ChangeID: deref(b.ChangeID)})
	if err != nil {
		return runStream{}, fault.Name(err, "Resource")
	}
	snap := s.deps.Runs.Started(r)
	return runStream{runID: r.ID, init: &snap}, nil
}

// parseEventID reads "run_id:seq".
func parseEventID(id string) (string, int64, bool) {
	runID, seqText, ok := strings.Cut(strings.TrimSpace(id), ":")
	if !ok || len(runID) != 36 {
		return "", 0, false
	}
	seq, err := strconv.ParseInt(seqText, 10, 64)
	if err != nil || seq < 0 {
		return "", 0, false
	}
	return runID, seq, true
}

// SSE settings; tests shorten them.
var (
	sseKeepalive = 15 * time.Second
	sseMaxLife   = 30 * time.Minute
	// sseReconnectRetry is the retry hint of the reconnect event: long
	// enough for a restarting process to be back, or for the balancer to
	// route to another replica.
	sseReconnectRetry = time.Second
)

// sse writes a run's events as Server-Sent Events: init (when starting),
// every event after seq in order, and done; keepalive comments between.
// When the process shuts down it ends with a reconnect event instead.
// A client that disconnects leaves the run running. release gives back the
// stream's slot when the stream ends, however it ends.
func (s *Server) sse(accountID, runID string, after int64, init *runs.RunResponse, release func()) *huma.StreamResponse {
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		defer release()
		hctx.SetHeader("Content-Type", "text/event-stream")
		hctx.SetHeader("Cache-Control", "no-cache")
		hctx.SetHeader("X-Accel-Buffering", "no")
		hctx.SetStatus(http.StatusOK)
		w := hctx.BodyWriter()
		flush := func() {
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		// writeRaw writes one event; data is one line of JSON. It does not
		// flush: events that arrive together go out in one write.
		var buf []byte
		writeRaw := func(id, event string, data []byte) bool {
			buf = buf[:0]
			if id != "" {
				buf = append(append(append(buf, "id: "...), id...), '\n')
			}
			buf = append(append(append(buf, "event: "...), event...), "\ndata: "...)
			buf = append(append(buf, data...), "\n\n"...)
			_, err := w.Write(buf)
			return err == nil
		}
		write := func(id, event string, data any) bool {
			b, err := json.Marshal(data)
			if err != nil || !writeRaw(id, event, b) {
				return false
			}
			flush()
			return true
		}
		if init != nil && !write(runID+":0", "init", init) {
			return
		}
		flush()
		lastID := fmt.Sprintf("%s:%d", runID, after)
		// reconnect tells the client to resume elsewhere or later: the run
		// goes on, and its events wait in the store.
		reconnect := func() {
			if _, err := fmt.Fprintf(w, "retry: %d\n", sseReconnectRetry.Milliseconds()); err != nil {
				return
			}
			write("", "reconnect", map[string]any{"run_id": runID, "last_event_id": lastID,
				"detail": "the server is shutting down; reconnect with Last-Event-ID: " + lastID + " to continue this run's events"})
		}
		select {
		case <-s.streams.draining:
			reconnect()
			return
		default:
		}
		ctx, cancel := context.WithTimeout(hctx.Context(), sseMaxLife)
		defer cancel()
		ch, errc := s.deps.Runs.Bus.Subscribe(ctx, accountID, runID, after, func(e events.Event) bool { return e.Type == "done" })
		keep := time.NewTicker(sseKeepalive)
		defer keep.Stop()
		for {
			select {
			case e, open := <-ch:
				if !open {
					if err := <-errc; err != nil {
						write("", "error", map[string]any{"run_id": runID, "detail": "event stream failed; poll GET /agents/runs/" + runID})
						return
					}
					if hctx.Context().Err() == nil && ctx.Err() != nil {
						write("", "timeout", map[string]any{"run_id": runID, "detail": "stream time limit reached; poll GET /agents/runs/" + runID})
					}
					return
				}
				// Stored event data is compact JSON, written by the bus.
				id := runID + ":" + strconv.FormatInt(e.Seq, 10)
				if !writeRaw(id, e.Type, e.Data) {
					return
				}
				lastID = id
				if len(ch) == 0 {
					flush()
				}
			case <-s.streams.draining:
				reconnect()
				return
			case <-keep.C:
				if _, err := io.WriteString(w, ": keepalive\n\n"); err != nil {
					return
				}
				flush()
			}
		}
	}}
}

func (s *Server) getRun(ctx context.Context, in *getRunInput) (*runOutput, error) {
	snap, err := s.deps.Runs.Get(ctx, principal(ctx).AccountID, in.RunID, in.IncludeStepOutput)
	if err != nil {
		return nil, fault.Name(err, "Resource")
	}
	return &runOutput{Body: snap}, nil
}

func (s *Server) listRuns(ctx context.Context, in *listRunsInput) (*listRunsOutput, error) {
	items, total, err := s.deps.Runs.List(ctx, principal(ctx).AccountID, in.AgentID, in.Status, in.Page, in.Limit)
	if err != nil {
		return nil, fault.Name(err, "Resource")
	}
	// This list has answered the canonical envelope since before versioning.
	envelope := func(items []runs.RunResponse, p Pagination) any {
		return Envelope[runs.RunResponse]{Data: items, Pagination: p}
	}
	return &listRunsOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), envelope)}, nil
}

func (s *Server) searchTraces(ctx context.Context, in *searchInput) (*searchOutput, error) {
	b := in.Body
	if strings.TrimSpace(b.Query) == "" {
		return nil, Invalid([]any{"body", "query"}, "query must not be empty", "string_too_short")
	}
	if b.TopN == 0 {
		b.TopN = 10
	}
	// agent_id filters: runs outlive their agent, so a well-formed id of
	// no current agent finds that agent's traces (or none); a malformed
	// one is a mistake.
	if b.AgentID != nil && *b.AgentID != "" {
		if _, err := uuid.Parse(*b.AgentID); err != nil {
			return nil, Invalid([]any{"body", "agent_id"}, "Input should be a valid UUID", "uuid_parsing")
		}
	}
	matches, err := s.deps.Runs.Search(ctx, principal(ctx).AccountID, runs.SearchRequest{Query: b.Query, AgentID: deref(b.AgentID),
		RunStatus: deref(b.RunStatus), StepType: deref(b.StepType), TopN: b.TopN})
	if err != nil {
		return nil, err
	}
	return &searchOutput{Body: TraceSearchResponse{Matches: matches, Total: len(matches)}}, nil
}

func (s *Server) cancelRun(ctx context.Context, in *runIDInput) (*runOutput, error) {
	snap, err := s.deps.Runs.Cancel(ctx, principal(ctx).AccountID, in.RunID)
	if err != nil {
		return nil, fault.Name(err, "Resource")
	}
	return &runOutput{Body: snap}, nil
}

// inlineSafe are the types served as declared; anything else is sent as
// an octet-stream download so a stored file can never run script in the
// API's origin.
func inlineSafe(ct string) bool {
	mt, _, _ := mime.ParseMediaType(ct)
	switch {
	case strings.HasPrefix(mt, "image/") && mt != "image/svg+xml", strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"):
		return true
	}
	return mt == "application/pdf" || mt == "text/plain" || mt == "application/vnd.service.manifest+json"
}

// downloadAttachment streams a file a run's step emitted; every lookup
// failure is the same 404 so other accounts' files cannot be probed.
func (s *Server) downloadAttachment(ctx context.Context, in *attachmentInput) (*huma.StreamResponse, error) {
	key, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(in.AttachmentID, "="))
	if err != nil {
		return nil, NotFound("Attachment")
	}
	p := principal(ctx)
	a, err := s.deps.Runs.Attachment(ctx, p.AccountID, in.RunID, string(key))
	if err != nil {
		return nil, NotFound("Attachment")
	}
	rd, err := s.deps.Blobs.Get(ctx, a.StorageKey)
	if err != nil {
		return nil, NotFound("Attachment")
	}
	name := a.Name
	if in.DownloadName != "" {
		name = in.DownloadName
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		defer rd.Close()
		ct, disp := a.ContentType, "inline"
		if !inlineSafe(ct) {
			ct, disp = "application/octet-stream", "attachment"
		}
		hctx.SetHeader("Content-Type", ct)
		hctx.SetHeader("X-Content-Type-Options", "nosniff")
		hctx.SetHeader("Content-Disposition", mime.FormatMediaType(disp, map[string]string{"filename": name}))
		if a.Size > 0 {
			hctx.SetHeader("Content-Length", strconv.FormatInt(a.Size, 10))
		}
		hctx.SetStatus(http.StatusOK)
		_, _ = io.Copy(hctx.BodyWriter(), rd)
	}}, nil
}
