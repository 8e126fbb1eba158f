package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
)

// The runs area: the list of every agent's runs (this file), a run's live
// page (pages_runs_run.go), the overview (pages_overview.go) and the
// reviews (pages_reviews.go). Every read and action goes through the API:
// GET /runs with its cursor, POST /agents/runs/search for trace search.

func init() {
	registerArea((*Console).runsRoutes)
	funcs["seconds"] = seconds
	funcs["credits"] = credits
	funcs["stamp"] = stamp
	funcs["statusClass"] = statusClass
	funcs["shortID"] = shortID
}

// statusClass is the CSS class of a run or step status.
func statusClass(status string) string {
	switch status {
	case client.RunCompleted:
		return "st-ok"
	case client.RunFailed:
		return "st-failed"
	case client.RunWaitingHuman, client.RunWaitingScheduled, client.RunQueued, client.RunPending:
		return "st-wait"
	}
	return "st-run"
}

func (c *Console) runsRoutes() {
	c.page("GET "+Prefix+"runs", c.runsList)
	c.page("GET "+Prefix+"runs/{run_id}", c.runPage)
	c.page("GET "+Prefix+"runs/{run_id}/live", c.runLive)
	c.page("GET "+Prefix+"runs/{run_id}/events", c.runEvents)
	c.page("POST "+Prefix+"runs/{run_id}/cancel", c.runCancel)
	c.page("POST "+Prefix+"runs/{run_id}/rerun", c.runAgain)
	c.page("POST "+Prefix+"runs/{run_id}/rerun-from", c.runRerunFrom)
	c.page("GET "+Prefix+"runs/{run_id}/attachments/{attachment_id}", c.runAttachment)
	c.page("GET "+Prefix+"{$}", c.overview)
	c.page("GET "+Prefix+"reviews", c.reviewsPage)
	c.page("POST "+Prefix+"reviews/{run_id}/decide", c.reviewDecide)
}

// runStatuses are the statuses the filter offers, in the API's words.
var runStatuses = []string{client.RunCompleted, client.RunFailed, client.RunProcessing, client.RunPending, client.RunQueued,
	client.RunWaitingHuman, client.RunWaitingScheduled}

// runWindows are the creation-time windows the filter offers.
var runWindows = []struct{ Value, Label string }{{"", "any time"}, {"1h", "last hour"}, {"24h", "last 24 hours"},
	{"168h", "last 7 days"}, {"720h", "last 30 days"}}

// runsFilter is the list's filter, read from the query string.
type runsFilter struct {
	Agent, Status, Trigger, Since, Query, Cursor string
}

func (f runsFilter) query(cursor string) string {
	q := url.Values{}
	for k, v := range map[string]string{"agent": f.Agent, "status": f.Status, "trigger": f.Trigger, "since": f.Since, "q": f.Query, "cursor": cursor} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// runRow is a run of the table, with its agent's name.
type runRow struct {
	client.RunListItem
	AgentName string
}

type runsListView struct {
	Filter      runsFilter
	Statuses    []string
	Windows     []struct{ Value, Label string }
	Agents      []client.Agent
	Rows        []runRow
	Matches     []client.AgentTraceMatchResponse
	Searched    bool
	NextQuery   string // the next page's query string, "" on the last page
	NewestQuery string // the first page's, with the same filters
	FirstPage   bool
	Problem     string
}

// agentNames reads the account's agents (one page of 100: enough for the
// filter and the names; runs of other agents show their id).
func agentNames(req *Request, cl *client.Client) ([]client.Agent, map[string]string, error) {
	p, err := cl.ListAgents(req.Ctx(), client.AgentListOptions{Limit: 100})
	if err != nil {
		return nil, nil, err
	}
	names := make(map[string]string, len(p.Items))
	for _, a := range p.Items {
		names[a.ID] = a.Name
	}
	return p.Items, names, nil
}

func (c *Console) runsList(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	q := req.URL.Query()
	f := runsFilter{Agent: q.Get("agent"), Status: q.Get("status"), Trigger: strings.TrimSpace(q.Get("trigger")), Since: q.Get("since"),
		Query: strings.TrimSpace(q.Get("q")), Cursor: q.Get("cursor")}
	v := runsListView{Filter: f, Statuses: runStatuses, Windows: runWindows, FirstPage: f.Cursor == ""}
	agents, names, err := agentNames(req, cl)
	if err != nil {
		return err
	}
	v.Agents = agents
	if f.Query != "" {
		// Trace search ranks step inputs and outputs; it filters by agent
		// and run status (not by trigger or time).
		res, err := cl.SearchTraces(req.Ctx(), client.AgentTraceSearchRequest{Query: f.Query, AgentID: f.Agent, RunStatus: f.Status, TopN: 50})
		if err != nil {
			return err
		}
		v.Matches, v.Searched = res.Matches, true
		return req.Page(http.StatusOK, "runs_list.html", "Runs", "runs", v)
	}
	o := client.AccountRunsOptions{AgentID: f.Agent, Status: f.Status, Trigger: f.Trigger, Cursor: f.Cursor, Limit: 50}
	if d, err := time.ParseDuration(f.Since); err == nil && d > 0 {
		o.CreatedAfter = time.Now().Add(-d)
	}
	page, err := cl.AccountRuns(req.Ctx(), o)
	if err != nil {
		var ae *client.APIError
		if errors.As(err, &ae) && ae.StatusCode == http.StatusUnprocessableEntity {
			v.Problem = ae.Message
			return req.Page(http.StatusUnprocessableEntity, "runs_list.html", "Runs", "runs", v)
		}
		return err
	}
	for _, r := range page.Data {
		v.Rows = append(v.Rows, runRow{RunListItem: r, AgentName: names[r.AgentID]})
	}
	v.NewestQuery = f.query("")
	if page.NextCursor != nil {
		v.NextQuery = f.query(*page.NextCursor)
	}
	return req.Page(http.StatusOK, "runs_list.html", "Runs", "runs", v)
}

// seconds shows a duration in seconds briefly: 0.42 s, 12.3 s, 4 min 5 s.
func seconds(s *float64) string {
	if s == nil {
		return "—"
	}
	d := *s
	switch {
	case d < 10:
		return strconv.FormatFloat(d, 'f', 2, 64) + " s"
	case d < 120:
		return strconv.FormatFloat(d, 'f', 1, 64) + " s"
	}
	m := int(d) / 60
	return strconv.Itoa(m) + " min " + strconv.Itoa(int(d)%60) + " s"
}

// credits shows credits without trailing zeros.
func credits(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// stamp shows an API timestamp (RFC 3339) as the console does.
func stamp(s any) string {
	var text string
	switch v := s.(type) {
	case string:
		text = v
	case *string:
		if v == nil {
			return ""
		}
		text = *v
	}
	t, err := time.Parse(time.RFC3339Nano, text)
	if err != nil {
		return text
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
