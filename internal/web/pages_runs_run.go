package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
)

// A run's page: its timeline of steps, kept live over the run's event
// stream while it runs. The browser's EventSource (the htmx SSE extension)
// connects to runs/{run_id}/events, which follows the API's stream of the
// run (POST /agents/{agent_id}/runs/stream with Last-Event-ID, from
// run_id:0 on a first connection) and sends:
//
//   - token: each streamed token, as text, appended to the live output;
//   - timeline: the whole live block re-rendered (status, actions, steps)
//     after step and status events, once per burst of them;
//   - close: after done, so the browser stops reconnecting (its id,
//     run_id:closed, answers a reconnect with 204 No Content).
//
// Every event carries the API's event id, so a reconnecting browser sends
// it back as Last-Event-ID and resumes after it, on any replica: nothing
// is lost across a reload's reconnect or a restart.

// closedSuffix makes the id of the close event: a browser reconnecting
// with it has seen everything.
const closedSuffix = ":closed"

// foldAt is the length above which an input or output is folded.
const foldAt = 1200

// textView is an input or output as shown: pretty-printed when it is JSON,
// folded (a summary line, the rest on demand) when long.
type textView struct {
	Text    string
	Summary string
	Folded  bool
	Empty   bool
}

func showText(s *string) textView {
	if s == nil || *s == "" {
		return textView{Empty: true}
	}
	t := *s
	if b := strings.TrimSpace(t); len(b) > 1 && (b[0] == '{' || b[0] == '[') && json.Valid([]byte(b)) {
		var out bytes.Buffer
		if json.Indent(&out, []byte(b), "", "  ") == nil {
			t = out.String()
		}
	}
	v := textView{Text: t}
	if len(t) > foldAt || strings.Count(t, "\n") > 20 {
		first, _, _ := strings.Cut(t, "\n")
		if len(first) > 120 {
			first = first[:120]
		}
		v.Folded, v.Summary = true, fmt.Sprintf("%s … (%d characters)", first, len(t))
	}
	return v
}

// stepView is one step attempt of the timeline.
type stepView struct {
	client.AgentRunStepResponse
	Attempt        int // 1 for the first attempt of this step, 2 for its first retry…
	In, Out        textView
	Start          string
	Duration       string
	BarX, BarW     string // the duration bar, in percent of the run's span
	Evaluations    []client.EvaluationResult
	SubRuns        []client.RunListItem // for call_agent steps
	ToolCallsCount int
	Usage          *client.StepUsage // nil when unknown
}

// runView is what the run page and its live block show.
type runView struct {
	Details    *client.RunDetails
	Run        *client.AgentRunResponse
	AgentName  string
	Steps      []stepView
	Input      textView
	Output     textView
	Terminal   bool
	LastError  string
	Evaluation []client.EvaluationResult // results not tied to a step
	Problem    string
}

// loadRun reads what the page shows, through the API.
func loadRun(req *Request, cl *client.Client, runID string) (*runView, error) {
	d, err := cl.GetRunDetails(req.Ctx(), runID)
	if err != nil {
		return nil, err
	}
	snap, err := cl.GetRun(req.Ctx(), runID, true)
	if err != nil {
		return nil, err
	}
	v := &runView{Details: d, Run: snap, Input: showText(snap.Input), Output: showText(snap.Output),
		Terminal: client.RunTerminal(snap.Status), LastError: snap.LastError()}
	if a, err := cl.GetAgent(req.Ctx(), d.AgentID); err == nil {
		v.AgentName = a.Name
	}
	var evals []client.EvaluationResult
	if v.Terminal {
		// Evaluations are judged after the run; a deleted agent has none to list.
		if p, err := cl.ListRunEvaluationResults(req.Ctx(), d.AgentID, runID, 1, 100); err == nil {
			evals = p.Items
		}
	}
	v.Steps = timeline(snap.Steps, d.Children, evals)
	// The usage lists the same attempts in the same order; a step that
	// started between the two reads is left without.
	for i := range v.Steps {
		if i < len(d.StepUsage) && d.StepUsage[i].AgentStepID == v.Steps[i].AgentStepID {
			v.Steps[i].Usage = &d.StepUsage[i]
		}
	}
	for _, e := range evals {
		if e.StepID == nil {
			v.Evaluation = append(v.Evaluation, e)
		}
	}
	return v, nil
}

// timeline lays the steps out on the run's span: each bar starts where the
// step started and is as long as it lasted (a running step, until now).
func timeline(steps []client.AgentRunStepResponse, children []client.RunListItem, evals []client.EvaluationResult) []stepView {
	parse := func(s *string) (time.Time, bool) {
		if s == nil {
			return time.Time{}, false
		}
		t, err := time.Parse(time.RFC3339Nano, *s)
		return t, err == nil
	}
	now := time.Now()
	var t0, t1 time.Time
	for _, s := range steps {
		if st, ok := parse(s.StartedAt); ok && (t0.IsZero() || st.Before(t0)) {
			t0 = st
		}
		end, ok := parse(s.EndedAt)
		if !ok {
			end = now
		}
		if end.After(t1) {
			t1 = end
		}
	}
	span := t1.Sub(t0)
	if span <= 0 {
		span = time.Millisecond
	}
	seen := map[string]int{}
	calls := 0
	out := make([]stepView, 0, len(steps))
	for _, s := range steps {
		seen[s.AgentStepID]++
		v := stepView{AgentRunStepResponse: s, Attempt: seen[s.AgentStepID], In: showText(s.Input), Out: showText(s.Output),
			Start: stamp(s.StartedAt), Duration: seconds(s.DurationSeconds), ToolCallsCount: len(s.ToolCalls)}
		st, ok := parse(s.StartedAt)
		if ok {
			end, ok := parse(s.EndedAt)
			if !ok {
				end = now
			}
			x := float64(st.Sub(t0)) / float64(span) * 100
			w := max(float64(end.Sub(st))/float64(span)*100, 0.5)
			v.BarX, v.BarW = strconv.FormatFloat(x, 'f', 2, 64), strconv.FormatFloat(min(w, 100-x), 'f', 2, 64)
		}
		for _, e := range evals {
			if e.StepID != nil && *e.StepID == s.AgentStepID {
				v.Evaluations = append(v.Evaluations, e)
			}
		}
		// Sub-runs start in the order of the call_agent steps that start
		// them; each such step attempt started one.
		if s.StepType == "call_agent" && calls < len(children) {
			v.SubRuns = children[calls : calls+1]
			calls++
		}
		out = append(out, v)
	}
	return out
}

func (c *Console) runPage(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v, err := loadRun(req, cl, req.PathValue("run_id"))
	if err != nil {
		return err
	}
	v.Problem = req.URL.Query().Get("problem")
	return req.Page(http.StatusOK, "runs_run.html", "Run "+shortID(v.Run.RunID), "runs", v)
}

// runLive is the live block alone (for a manual refresh).
func (c *Console) runLive(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v, err := loadRun(req, cl, req.PathValue("run_id"))
	if err != nil {
		return err
	}
	return req.Fragment(http.StatusOK, "runs_run.html", "live", v)
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// runEvents is the page's event stream (see the top of this file).
func (c *Console) runEvents(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	runID := req.PathValue("run_id")
	d, err := cl.GetRunDetails(req.Ctx(), runID)
	if err != nil {
		return err
	}
	last := req.Header.Get("Last-Event-ID")
	if last == runID+closedSuffix {
		// The browser saw the run's end: nothing more will come. 204 tells
		// EventSource to stop reconnecting.
		req.W.WriteHeader(http.StatusNoContent)
		return nil
	}
	if last != "" {
		seq, ok := strings.CutPrefix(last, runID+":")
		if n, err := strconv.ParseInt(seq, 10, 64); !ok || err != nil || n < 0 {
			return req.Error(http.StatusBadRequest, "Last-Event-ID is not an event of this run.")
		}
	}
	if last == "" {
		last = runID + ":0" // from the run's first event
	}
	// The API's stream of the run, resumed after last. The console does
	// not reconnect it itself: when the stream breaks (the API's process
	// shutting down sends reconnect; a stream's time limit ends it), this
	// response ends, and the browser reconnects with the last id it got,
	// to whichever replica answers, so a draining process is not held.
	events := cl.Stream(req.Ctx(), client.StreamRequest{Method: http.MethodPost, Path: "/agents/" + url.PathEscape(d.AgentID) + "/runs/stream", Body: struct{}{}},
		client.StreamOptions{Until: func(e client.Event) bool { return e.Event == client.EventDone || e.Event == "error" }, MaxReconnects: -1},
		client.WithRequestHeader("Last-Event-ID", last))
	h := req.W.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	req.W.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(req.W)
	_ = rc.Flush()

	// The API's events arrive on ch; a burst of step events is answered by
	// one re-render, once ch is empty.
	type item struct {
		ev  client.Event
		err error
	}
	ch := make(chan item, 256)
	go func() {
		defer close(ch)
		for ev, err := range events {
			select {
			case ch <- item{ev, err}:
			case <-req.Context().Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	send := func(id, event, data string) bool {
		var b strings.Builder
		if id != "" {
			b.WriteString("id: " + id + "\n")
		}
		b.WriteString("event: " + event + "\n")
		for _, line := range strings.Split(data, "\n") {
			b.WriteString("data: " + line + "\n")
		}
		b.WriteString("\n")
		_, err := io.WriteString(req.W, b.String())
		return err == nil
	}
	refresh := func(id string) bool {
		v, err := loadRun(req, cl, runID)
		if err != nil {
			return false
		}
		b, err := c.pages.render("runs_run.html", "live", View{CSRF: req.CSRF(), Session: req.Session, Data: v})
		return err == nil && send(id, "timeline", string(b))
	}
	dirty, lastID := false, ""
	for it := range ch {
		if it.err != nil {
			// The API stream failed (not the run): the browser reconnects
			// from the last id it received.
			return nil
		}
		ev := it.ev
		switch ev.Event {
		case client.EventStreamToken:
			var tok struct {
				Token string `json:"token"`
			}
			if json.Unmarshal([]byte(ev.Data), &tok) != nil {
				continue
			}
			if !send(ev.ID, "token", template.HTMLEscapeString(tok.Token)) {
				return nil
			}
		case "error":
			// The API could not follow the run's events: the browser
			// reconnects from the last id it received.
			return nil
		case client.EventDone:
			if !refresh(ev.ID) || !send(runID+closedSuffix, "close", "") {
				return nil
			}
			_ = rc.Flush()
			return nil
		default:
			dirty, lastID = true, ev.ID
		}
		if dirty && len(ch) == 0 {
			if !refresh(lastID) {
				return nil
			}
			dirty = false
		}
		if len(ch) == 0 {
			_ = rc.Flush()
		}
	}
	return nil
}

func (c *Console) runCancel(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	runID := req.PathValue("run_id")
	if _, err := cl.CancelRun(req.Ctx(), runID); err != nil {
		if errors.Is(err, client.ErrConflict) {
			return req.Redirect(Prefix + "runs/" + runID + "?problem=" + urlQueryEscape("The run had already finished."))
		}
		return err
	}
	return req.Redirect(Prefix + "runs/" + runID)
}

// runAgain starts the run's agent again with the same input and metadata,
// reusing its uploaded files (replay_of_run_id).
func (c *Console) runAgain(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	runID := req.PathValue("run_id")
	d, err := cl.GetRunDetails(req.Ctx(), runID)
	if err != nil {
		return err
	}
	snap, err := cl.GetRun(req.Ctx(), runID, false)
	if err != nil {
		return err
	}
	in := client.AgentRunRequest{Metadata: d.Metadata, ReplayOfRunID: runID}
	if snap.Input != nil {
		in.Input = *snap.Input
	}
	if len(in.Metadata) == 0 {
		in.Metadata = nil
	}
	r, err := cl.StartRun(req.Ctx(), d.AgentID, in)
	if err != nil {
		var ae *client.APIError
		if errors.As(err, &ae) && ae.StatusCode < 500 && ae.StatusCode != http.StatusNotFound {
			return req.Redirect(Prefix + "runs/" + runID + "?problem=" + urlQueryEscape("Could not run again: "+ae.Message))
		}
		return err
	}
	return req.Redirect(Prefix + "runs/" + r.RunID)
}

// runRerunFrom starts a new run from one step of a finished run (the
// API's rerun, an extension): the steps before it keep their recorded
// outputs, the step and those after it run again on the current version
// of the workflow.
func (c *Console) runRerunFrom(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	runID := req.PathValue("run_id")
	in := client.RerunRequest{FromStep: req.FormValue("from_step")}
	if in.ChangeID = req.FormValue("version"); in.ChangeID == "current" {
		// No change id reruns the version the original ran; after a
		// fix, the user wants the agent's current one: name it.
		if in.ChangeID, err = c.currentVersionOf(req, cl, runID); err != nil {
			return err
		}
	}
	r, err := cl.RerunRun(req.Ctx(), runID, in)
	if err != nil {
		var ae *client.APIError
		if errors.As(err, &ae) && ae.StatusCode < 500 && ae.StatusCode != http.StatusNotFound {
			return req.Redirect(Prefix + "runs/" + runID + "?problem=" + urlQueryEscape("Could not rerun from "+in.FromStep+": "+ae.Message))
		}
		return err
	}
	return req.Redirect(Prefix + "runs/" + r.RunID)
}

// currentVersionOf answers the change id of the current version of the
// agent that ran runID.
func (c *Console) currentVersionOf(req *Request, cl *client.Client, runID string) (string, error) {
	d, err := cl.GetRunDetails(req.Ctx(), runID)
	if err != nil {
		return "", err
	}
	vs, err := cl.ListAgentVersions(req.Ctx(), d.AgentID, client.VersionListOptions{Page: 1, Limit: 1})
	if err != nil {
		return "", err
	}
	if len(vs.Items) == 0 {
		return "", nil
	}
	return vs.Items[0].ChangeID, nil
}

// runAttachment passes a run's file through from the API, with the API's
// own safe content type and disposition.
func (c *Console) runAttachment(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	dl, err := cl.DownloadRunAttachment(req.Ctx(), req.PathValue("run_id"), req.PathValue("attachment_id"))
	if err != nil {
		return err
	}
	defer dl.Close()
	h := req.W.Header()
	for _, k := range []string{"Content-Type", "Content-Disposition", "Content-Length"} {
		if v := dl.Header.Get(k); v != "" {
			h.Set(k, v)
		}
	}
	h.Set("X-Content-Type-Options", "nosniff")
	req.W.WriteHeader(http.StatusOK)
	_, _ = io.Copy(req.W, dl.Body)
	return nil
}
