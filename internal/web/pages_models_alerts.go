package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/agentry/agentry/client"
)

// Model alerts: the in-app actionNotices of the model lifecycle (a model in use
// deprecated or retiring, a newer one out, an agent upgraded or rolled
// back), newest first by offset pages, each marked read or all at once.

func (c *Console) modelAlertRoutes() {
	c.page("GET "+Prefix+"models/alerts", c.modelAlertsPage)
	c.page("POST "+Prefix+"models/alerts/read-all", c.modelAlertsReadAll)
	c.page("POST "+Prefix+"models/alerts/{alert_id}/read", c.modelAlertRead)
}

const modelAlertsPageSize = 50

type modelAlertRow struct {
	client.ModelAlert
	AgentName string
}

type modelAlertsView struct {
	Rows       []modelAlertRow
	Total      int
	Unread     int
	UnreadOnly bool
	Offset     int
	PrevQuery  string
	NextQuery  string
	Back       string
	Notice     string
}

func (v modelAlertsView) flash() string { return v.Notice }

func modelAlertsQuery(unreadOnly bool, offset int) string {
	q := url.Values{}
	if unreadOnly {
		q.Set("unread", "1")
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	if len(q) == 0 {
		return "?"
	}
	return "?" + q.Encode()
}

func (c *Console) modelAlertsPage(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	q := req.URL.Query()
	offset, _ := strconv.Atoi(q.Get("offset"))
	v := modelAlertsView{UnreadOnly: q.Get("unread") != "", Offset: max(offset, 0), Back: req.URL.RequestURI(), Notice: actionNotice(q.Get("done"))}
	p, err := cl.ListModelAlerts(req.Ctx(), client.ModelAlertListOptions{UnreadOnly: v.UnreadOnly, Offset: v.Offset, Limit: modelAlertsPageSize})
	if err != nil {
		return err
	}
	if v.Unread, err = cl.ModelAlertUnreadCount(req.Ctx()); err != nil {
		return err
	}
	_, names, err := agentNames(req, cl)
	if err != nil {
		return err
	}
	for _, a := range p.Items {
		r := modelAlertRow{ModelAlert: a}
		if a.AgentID != nil {
			r.AgentName = names[*a.AgentID]
		}
		v.Rows = append(v.Rows, r)
	}
	v.Total = p.Total
	if v.Offset > 0 {
		v.PrevQuery = modelAlertsQuery(v.UnreadOnly, max(v.Offset-modelAlertsPageSize, 0))
	}
	if p.HasNext {
		v.NextQuery = modelAlertsQuery(v.UnreadOnly, v.Offset+len(p.Items))
	}
	return req.Page(http.StatusOK, "models_alerts.html", "Model alerts", "models", v)
}

func (c *Console) modelAlertRead(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := req.ParseForm(); err != nil {
		return req.Error(http.StatusBadRequest, "The form could not be read.")
	}
	if err := cl.MarkModelAlertRead(req.Ctx(), req.PathValue("alert_id")); err != nil {
		return err
	}
	return req.Redirect(pathWithDone(actionBack(req, "models/alerts", Prefix+"models/alerts"), "read"))
}

func (c *Console) modelAlertsReadAll(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := cl.MarkAllModelAlertsRead(req.Ctx()); err != nil {
		return err
	}
	return req.Redirect(pathWithDone(Prefix+"models/alerts", "all-read"))
}
