package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
)

// The alerts area: the inbox (this file), an alert's page with its status,
// comments and subscribers (this file), the alert configs with their
// webhooks and delivery logs (pages_alerts_configs.go) and the
// organization preferences (pages_alerts_prefs.go). Every read and action
// goes through the API's /alerts operations; lists are read a page at a
// time.

func init() {
	registerArea((*Console).alertsRoutes)
	funcs["alertStatusClass"] = alertStatusClass
	funcs["alertActions"] = alertActions
}

func (c *Console) alertsRoutes() {
	c.page("GET "+Prefix+"alerts", c.alertsInbox)
	c.page("GET "+Prefix+"alerts/{alert_id}", c.alertPage)
	c.page("POST "+Prefix+"alerts/{alert_id}/status", c.alertSetStatus)
	c.page("POST "+Prefix+"alerts/{alert_id}/comments", c.alertComment)
	c.page("POST "+Prefix+"alerts/{alert_id}/subscribe", c.alertSubscribe)
	c.page("POST "+Prefix+"alerts/{alert_id}/unsubscribe", c.alertSubscribe)
	c.alertConfigRoutes()
	c.alertPreferenceRoutes()
}

// Alert statuses, in the API's words.
const (
	alertTriggered    = "triggered"
	alertAcknowledged = "acknowledged"
	alertResolved     = "resolved"
	alertDismissed    = "dismissed"
)

var alertStatuses = []string{alertTriggered, alertAcknowledged, alertResolved, alertDismissed}

// alertStatusClass is the CSS class of an alert status.
func alertStatusClass(status string) string {
	switch status {
	case alertTriggered:
		return "st-failed"
	case alertAcknowledged:
		return "st-wait"
	case alertResolved:
		return "st-ok"
	}
	return "st-muted"
}

// alertAction is a status an alert may be moved to, with its button.
type alertAction struct{ Status, Label string }

// alertActions are the moves an alert in status offers: an open alert is
// acknowledged, resolved or dismissed; a closed one may be reopened.
func alertActions(status string) []alertAction {
	switch status {
	case alertTriggered:
		return []alertAction{{alertAcknowledged, "Acknowledge"}, {alertResolved, "Resolve"}, {alertDismissed, "Dismiss"}}
	case alertAcknowledged:
		return []alertAction{{alertResolved, "Resolve"}, {alertDismissed, "Dismiss"}}
	}
	return []alertAction{{alertTriggered, "Reopen"}}
}

// alertsPageSize is the inbox's page.
const alertsPageSize = 50

// alertsFilter is the inbox's filter, read from the query string. Older
// pages are read by time, not by page number: Before is the creation time
// of the last alert shown and After its id, so an older page is the API's
// first page up to that time (time_to), which the database reads from its
// index as quickly as the newest page, however deep the list goes.
type alertsFilter struct {
	Status, Agent, Source, Since string
	Before, After                string
}

func (f alertsFilter) query(before, after string) string {
	q := url.Values{}
	for k, v := range map[string]string{"status": f.Status, "agent": f.Agent, "source": f.Source, "since": f.Since, "before": before, "after": after} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// alertsPageAfter reads the page of alerts older than (before, after): the
// API's first page up to before, less the alerts at that very time that
// the previous page showed (same time, id not below after: the list is
// newest first, then by id descending).
func alertsPageAfter(req *Request, cl *client.Client, o client.AlertListOptions, before time.Time, after string) ([]client.Alert, bool, error) {
	o.TimeTo, o.Page, o.Limit = before, 1, alertsPageSize+10
	p, err := cl.ListAlerts(req.Ctx(), o)
	if err != nil {
		return nil, false, err
	}
	items := p.Items
	for len(items) > 0 {
		t, err := time.Parse(time.RFC3339Nano, ptrText(items[0].CreatedAt))
		if err != nil || t.Before(before) || items[0].ID < after {
			break
		}
		items = items[1:]
	}
	more := p.HasNext || len(items) > alertsPageSize
	return items[:min(len(items), alertsPageSize)], more, nil
}

type alertRow struct {
	client.Alert
	AgentName string
}

type alertsInboxView struct {
	Filter      alertsFilter
	Statuses    []string
	Windows     []struct{ Value, Label string }
	Agents      []client.Agent
	Rows        []alertRow
	Total       int    // how many match, on the first page
	FirstPage   bool   // the newest alerts
	NewestQuery string // the first page's query string, with the same filters
	NextQuery   string // "" on the last page
	Back        string // this page's path and query, where actions return
	Problem     string
	Notice      string
}

func (v alertsInboxView) flash() string { return v.Notice }

func (c *Console) alertsInbox(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	q := req.URL.Query()
	f := alertsFilter{Status: q.Get("status"), Agent: q.Get("agent"), Source: strings.TrimSpace(q.Get("source")), Since: q.Get("since"),
		Before: q.Get("before"), After: q.Get("after")}
	v := alertsInboxView{Filter: f, Statuses: alertStatuses, Windows: runWindows, Back: req.URL.RequestURI(),
		Notice: actionNotice(q.Get("done")), NewestQuery: f.query("", "")}
	before, err := time.Parse(time.RFC3339Nano, f.Before)
	if f.Before != "" && err != nil {
		return req.Error(http.StatusBadRequest, "The page's time is not a time.")
	}
	v.FirstPage = f.Before == ""
	agents, names, err := agentNames(req, cl)
	if err != nil {
		return err
	}
	v.Agents = agents
	o := client.AlertListOptions{Status: f.Status, AgentID: f.Agent, SourceConnectionID: f.Source, Limit: alertsPageSize}
	if d, err := time.ParseDuration(f.Since); err == nil && d > 0 {
		o.TimeFrom = time.Now().Add(-d)
	}
	var (
		items []client.Alert
		more  bool
	)
	if v.FirstPage {
		var p *client.Page[client.Alert]
		if p, err = cl.ListAlerts(req.Ctx(), o); err == nil {
			items, more, v.Total = p.Items, p.HasNext, p.Total
		}
	} else {
		items, more, err = alertsPageAfter(req, cl, o, before, f.After)
	}
	if err != nil {
		if msg, ok := apiProblem422(err); ok {
			v.Problem = msg
			return req.Page(http.StatusUnprocessableEntity, "alerts_inbox.html", "Alerts", "alerts", v)
		}
		return err
	}
	for _, a := range items {
		r := alertRow{Alert: a}
		if a.AgentID != nil {
			r.AgentName = names[*a.AgentID]
		}
		v.Rows = append(v.Rows, r)
	}
	if more && len(items) > 0 {
		last := items[len(items)-1]
		v.NextQuery = f.query(ptrText(last.CreatedAt), last.ID)
	}
	return req.Page(http.StatusOK, "alerts_inbox.html", "Alerts", "alerts", v)
}

// unprocessable is a 422's message.
func apiProblem422(err error) (string, bool) {
	var ae *client.APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusUnprocessableEntity {
		return ae.Message, true
	}
	return "", false
}

// actionNotices are the one-line confirmations an action's redirect names
// (?done=…): fixed sentences, so a link cannot put words on the page.
var actionNotices = map[string]string{
	"acknowledged": "Acknowledged the alert.", "resolved": "Resolved the alert.", "dismissed": "Dismissed the alert.",
	"triggered": "Reopened the alert.", "commented": "Added your comment.", "subscribed": "You are subscribed to this alert.",
	"unsubscribed": "You are no longer subscribed to this alert.", "created": "Created the alert config.",
	"saved": "Saved the alert config.", "deleted": "Deleted the alert config; its alerts stay.",
	"webhook": "Saved the webhook.", "webhook-removed": "Removed the webhook.", "preference": "Saved your preference.",
	"default": "Saved the account's default model.", "read": "Marked the alert read.", "all-read": "Marked every alert read.",
	"cancelled": "Cancelled the experiment.",
}

func actionNotice(key string) string { return actionNotices[key] }

// backTo is where an action returns: a path of the area the form names,
// or fallback (never another site: only console paths are followed).
func actionBack(req *Request, area, fallback string) string {
	b := req.PostForm.Get("back")
	if strings.HasPrefix(b, Prefix+area) && !strings.HasPrefix(b, "//") && !strings.Contains(b, "\\") {
		return b
	}
	return fallback
}

// withDone adds ?done=key (or &done=key) to a path, replacing any earlier.
func pathWithDone(path, key string) string {
	u, err := url.Parse(path)
	if err != nil {
		return path
	}
	q := u.Query()
	q.Set("done", key)
	q.Del("problem")
	u.RawQuery = q.Encode()
	return u.String()
}

// withProblem adds ?problem=… to a path.
func pathWithProblem(path, msg string) string {
	u, err := url.Parse(path)
	if err != nil {
		return path
	}
	q := u.Query()
	q.Set("problem", msg)
	q.Del("done")
	u.RawQuery = q.Encode()
	return u.String()
}

type alertPageView struct {
	Detail    *client.AlertDetail
	AgentName string
	Actions   []alertAction
	Problem   string
	Notice    string
}

func (v alertPageView) flash() string { return v.Notice }

func (c *Console) alertPage(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	d, err := cl.GetAlert(req.Ctx(), req.PathValue("alert_id"))
	if err != nil {
		return err
	}
	v := alertPageView{Detail: d, Actions: alertActions(d.Alert.Status), Problem: req.URL.Query().Get("problem"),
		Notice: actionNotice(req.URL.Query().Get("done"))}
	if d.Alert.AgentID != nil {
		if a, err := cl.GetAgent(req.Ctx(), *d.Alert.AgentID); err == nil {
			v.AgentName = a.Name
		}
	}
	return req.Page(http.StatusOK, "alerts_alert.html", d.Alert.Title, "alerts", v)
}

func (c *Console) alertSetStatus(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := req.ParseForm(); err != nil {
		return req.Error(http.StatusBadRequest, "The form could not be read.")
	}
	id := req.PathValue("alert_id")
	status := req.PostForm.Get("status")
	back := actionBack(req, "alerts", Prefix+"alerts/"+url.PathEscape(id))
	if _, err := cl.SetAlertStatus(req.Ctx(), id, status, strings.TrimSpace(req.PostForm.Get("note"))); err != nil {
		if msg, ok := apiProblem422(err); ok {
			return req.Redirect(pathWithProblem(back, msg))
		}
		if errors.Is(err, client.ErrConflict) {
			return req.Redirect(pathWithProblem(back, "The alert cannot move to "+status+" now: its config has another open alert, or it changed meanwhile."))
		}
		return err
	}
	return req.Redirect(pathWithDone(back, status))
}

func (c *Console) alertComment(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := req.ParseForm(); err != nil {
		return req.Error(http.StatusBadRequest, "The form could not be read.")
	}
	id := req.PathValue("alert_id")
	back := Prefix + "alerts/" + url.PathEscape(id)
	if _, err := cl.CommentOnAlert(req.Ctx(), id, req.PostForm.Get("body")); err != nil {
		if msg, ok := apiProblem422(err); ok {
			return req.Redirect(pathWithProblem(back, msg))
		}
		return err
	}
	return req.Redirect(pathWithDone(back, "commented") + "#comments")
}

// alertSubscribe subscribes or unsubscribes the signed-in user, by the
// route's last word.
func (c *Console) alertSubscribe(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("alert_id")
	done := "subscribed"
	if strings.HasSuffix(req.URL.Path, "/unsubscribe") {
		done = "unsubscribed"
		_, err = cl.UnsubscribeFromAlert(req.Ctx(), id)
	} else {
		_, err = cl.SubscribeToAlert(req.Ctx(), id)
	}
	if err != nil {
		return err
	}
	return req.Redirect(pathWithDone(Prefix+"alerts/"+url.PathEscape(id), done))
}
