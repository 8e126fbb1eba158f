package web

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
)

func init() { registerArea((*Console).agentsRoutes) }

func (c *Console) agentsRoutes() {
	c.page("GET "+Prefix+"agents", c.agentsList)
	c.page("GET "+Prefix+"agents/new", c.agentNewPage)
	c.page("POST "+Prefix+"agents", c.agentCreate)
	c.page("GET "+Prefix+"agents/{id}", c.agentPage)
	c.page("POST "+Prefix+"agents/{id}/settings", c.agentSaveSettings)
	c.page("POST "+Prefix+"agents/{id}/enable", c.agentEnable)
	c.page("POST "+Prefix+"agents/{id}/disable", c.agentDisable)
	c.page("GET "+Prefix+"agents/{id}/export", c.agentExport)
	c.page("POST "+Prefix+"agents/{id}/run", c.agentRun)
	c.page("POST "+Prefix+"agents/{id}/schedules", c.scheduleAdd)
	c.page("POST "+Prefix+"agents/{id}/schedules/{schedule}", c.scheduleUpdate)
	c.page("POST "+Prefix+"agents/{id}/schedules/{schedule}/delete", c.scheduleDelete)
}

// maxListedAgents bounds how many agents the list reads to search and
// filter them (the API lists pages of 100, without a search parameter).
const maxListedAgents = 2000

type agentRow struct {
	client.Agent
	Trigger string
}

type agentsView struct {
	Query, State, Trigger string
	Rows                  []agentRow
	Triggers              []string // the trigger types offered as filters
	Total                 int
	Truncated             bool
	// Without a filter the list is the API's pages, one read each: Page
	// is the one shown (1-based), Prev and Next the neighbours (0: none).
	Page, Prev, Next int
}

// agentsPage is how many agents an unfiltered page lists (the API's
// largest page, so one read answers it).
const agentsPage = 100

// triggerTypes are the trigger filter's choices.
var triggerTypes = []string{client.TriggerDynamicInput, client.TriggerEmailReceived, client.TriggerNewContent,
	client.TriggerSchedule, client.TriggerTemplateInput}

// agentsList is the agents list: a search over name and description, the
// trigger type as a tag to filter on, and the enabled state.
func (c *Console) agentsList(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	q := req.URL.Query()
	v := agentsView{Query: strings.TrimSpace(q.Get("q")), State: q.Get("state"), Trigger: q.Get("trigger"), Triggers: triggerTypes}
	if v.Query == "" && v.State == "" && v.Trigger == "" {
		if err := agentsPageOf(req, cl, &v); err != nil {
			return err
		}
		return c.renderAgents(req, v)
	}
	needle := strings.ToLower(v.Query)
	n := 0
	for a, err := range cl.Agents(req.Ctx(), client.AgentListOptions{Limit: 100}) {
		if err != nil {
			return err
		}
		if n++; n > maxListedAgents {
			v.Truncated = true
			break
		}
		v.Total++
		row := agentRow{Agent: a, Trigger: client.TriggerDynamicInput}
		if a.TriggerType != nil {
			row.Trigger = *a.TriggerType
		}
		if needle != "" && !strings.Contains(strings.ToLower(a.Name), needle) &&
			(a.Description == nil || !strings.Contains(strings.ToLower(*a.Description), needle)) {
			continue
		}
		if (v.State == "enabled" && a.Disabled) || (v.State == "disabled" && !a.Disabled) {
			continue
		}
		if v.Trigger != "" && row.Trigger != v.Trigger {
			continue
		}
		v.Rows = append(v.Rows, row)
	}
	return c.renderAgents(req, v)
}

// agentsPageOf reads one page of the account's agents (?page=, from 1),
// with the account's total: a filter needs every agent read, a plain list
// only the page shown.
func agentsPageOf(req *Request, cl *client.Client, v *agentsView) error {
	v.Page = 1
	if n, err := strconv.Atoi(req.URL.Query().Get("page")); err == nil && n > 1 {
		v.Page = n
	}
	p, err := cl.ListAgents(req.Ctx(), client.AgentListOptions{Page: v.Page, Limit: agentsPage})
	if err != nil {
		return err
	}
	v.Total = p.Total
	for _, a := range p.Items {
		row := agentRow{Agent: a, Trigger: client.TriggerDynamicInput}
		if a.TriggerType != nil {
			row.Trigger = *a.TriggerType
		}
		v.Rows = append(v.Rows, row)
	}
	if v.Page > 1 {
		v.Prev = v.Page - 1
	}
	if p.HasNext {
		v.Next = v.Page + 1
	}
	return nil
}

func (c *Console) renderAgents(req *Request, v agentsView) error {
	if req.Header.Get("HX-Request") != "" && req.Header.Get("HX-Target") == "agent-rows" {
		return req.Fragment(http.StatusOK, "agents_list.html", "rows", v)
	}
	return req.Page(http.StatusOK, "agents_list.html", "Agents", "agents", v)
}

type agentNewView struct {
	Templates   []client.AgentTemplate
	Name        string
	Description string
	Template    string
	Trigger     string
	Problems    []problem
}

func (c *Console) agentNewPage(req *Request) error {
	return c.renderAgentNew(req, http.StatusOK, agentNewView{Template: req.URL.Query().Get("template")})
}

func (c *Console) renderAgentNew(req *Request, status int, v agentNewView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if v.Templates, err = cl.ListAgentTemplates(req.Ctx()); err != nil {
		return err
	}
	if v.Template == "" {
		v.Template = client.TemplateBlank
	}
	return req.Page(status, "agents_new.html", "New agent", "agents", v)
}

// agentCreate creates an agent from a template; the API validates it, and
// its 422 is shown next to the form.
func (c *Console) agentCreate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v := agentNewView{Name: req.PostFormValue("name"), Description: req.PostFormValue("description"),
		Template: req.PostFormValue("template"), Trigger: req.PostFormValue("trigger_type")}
	in := client.CreateAgentRequest{Name: v.Name, AgentTemplate: v.Template, TriggerType: v.Trigger}
	if strings.TrimSpace(v.Description) != "" {
		in.Description = &v.Description
	}
	a, err := cl.CreateAgent(req.Ctx(), in)
	if probs, ok := apiProblems(err, nil); ok {
		v.Problems = probs
		return c.renderAgentNew(req, http.StatusUnprocessableEntity, v)
	}
	if err != nil {
		return err
	}
	return req.Redirect(Prefix + "agents/" + a.ID)
}

type agentView struct {
	Agent     *client.Agent
	Trigger   string
	Schedules []client.Schedule
	Callers   []client.AgentCaller
	Uploads   bool // the workflow takes files as input
	// MailDomain is the shared mail domain: an email_received agent is
	// reached at <agent_id>@MailDomain.
	MailDomain string
	Problems   []problem
	Notice     string
}

func (v agentView) flash() string { return v.Notice }

func (c *Console) loadAgent(req *Request) (agentView, error) {
	cl, err := req.API()
	if err != nil {
		return agentView{}, err
	}
	id := req.PathValue("id")
	a, err := cl.GetAgent(req.Ctx(), id)
	if err != nil {
		return agentView{}, err
	}
	v := agentView{Agent: a, Trigger: client.TriggerDynamicInput, MailDomain: c.cfg.MailDomain}
	if a.TriggerType != nil {
		v.Trigger = *a.TriggerType
	}
	if v.Trigger == client.TriggerSchedule {
		if v.Schedules, err = cl.ListSchedules(req.Ctx(), id); err != nil {
			return agentView{}, err
		}
	}
	if v.Callers, err = cl.AgentCallers(req.Ctx(), id); err != nil {
		return agentView{}, err
	}
	refs, err := cl.AgentAttachmentReferences(req.Ctx(), id)
	if err != nil {
		return agentView{}, err
	}
	v.Uploads = refs.RequiresUploads
	return v, nil
}

func (c *Console) agentPage(req *Request) error {
	v, err := c.loadAgent(req)
	if err != nil {
		return err
	}
	switch req.URL.Query().Get("done") {
	case "saved":
		v.Notice = "Settings saved."
	case "imported":
		v.Notice = "Imported."
	case "scheduled":
		v.Notice = "Schedule added."
	case "unscheduled":
		v.Notice = "Schedule removed."
	case "rescheduled":
		v.Notice = "Schedule saved."
	case "enabled":
		v.Notice = "The agent is enabled: its triggers start runs again."
	case "disabled":
		v.Notice = "The agent is paused: its triggers start no runs until it is enabled."
	}
	return req.Page(http.StatusOK, "agents_agent.html", v.Agent.Name, "agents", v)
}

// agentSaveSettings updates the agent's metadata (PUT /agents/{id}).
func (c *Console) agentSaveSettings(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	name, desc := req.PostFormValue("name"), req.PostFormValue("description")
	in := client.UpdateAgentRequest{Name: &name, Description: &desc}
	retry := req.PostFormValue("retry_on_failure") == "on"
	in.RetryOnFailure = &retry
	var probs []problem
	if s := strings.TrimSpace(req.PostFormValue("max_retries")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			probs = append(probs, problem{Severity: "error", Path: "max_retries", Message: "Max retries must be a whole number."})
		}
		in.MaxRetries = &n
	}
	if len(probs) == 0 {
		_, err = cl.UpdateAgent(req.Ctx(), id, in)
		if p, ok := apiProblems(err, nil); ok {
			probs = p
		} else if err != nil {
			return err
		}
	}
	if len(probs) > 0 {
		v, err := c.loadAgent(req)
		if err != nil {
			return err
		}
		v.Problems = probs
		return req.Page(http.StatusUnprocessableEntity, "agents_agent.html", v.Agent.Name, "agents", v)
	}
	return req.Redirect(Prefix + "agents/" + id + "?done=saved")
}

func (c *Console) agentEnable(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if _, err := cl.EnableAgent(req.Ctx(), req.PathValue("id")); err != nil {
		return err
	}
	return req.Redirect(Prefix + "agents/" + req.PathValue("id") + "?done=enabled")
}

func (c *Console) agentDisable(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if _, err := cl.DisableAgent(req.Ctx(), req.PathValue("id")); err != nil {
		return err
	}
	return req.Redirect(Prefix + "agents/" + req.PathValue("id") + "?done=disabled")
}

// agentExport passes the API's export download through.
func (c *Console) agentExport(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	d, err := cl.ExportAgent(req.Ctx(), req.PathValue("id"))
	if err != nil {
		return err
	}
	defer d.Close()
	name := d.FileName
	if name == "" {
		name = "agent.json"
	}
	req.W.Header().Set("Content-Type", "application/json")
	req.W.Header().Set("Content-Disposition", `attachment; filename="`+strings.ReplaceAll(name, `"`, "")+`"`)
	_, err = io.Copy(req.W, d.Body)
	return err
}

// uploadWait bounds how long a run's input file may take to be processed
// before the run starts.
const uploadWait = 2 * time.Minute

// agentRun starts a run with a text or file input, then opens its page.
func (c *Console) agentRun(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	in := client.AgentRunRequest{Input: req.FormValue("input")}
	if f, h, ferr := req.FormFile("file"); ferr == nil {
		defer f.Close()
		up, err := cl.UploadAgentInput(req.Ctx(), id, client.Upload{FileName: h.Filename, ContentType: h.Header.Get("Content-Type"), Content: f, Size: h.Size})
		if err != nil {
			return c.runFailed(req, err)
		}
		if up.Status == client.UploadProcessing {
			if up, err = cl.WaitInputUpload(req.Ctx(), id, up.ID, 200*time.Millisecond, uploadWait); err != nil {
				return c.runFailed(req, err)
			}
		}
		if up.Status == client.UploadFailed {
			msg := "The file could not be read."
			if up.Error != nil {
				msg = "The file could not be read: " + *up.Error
			}
			return c.runFailed(req, errors.New(msg))
		}
		in.InputUploadID = up.ID
	} else if !errors.Is(ferr, http.ErrMissingFile) && !errors.Is(ferr, http.ErrNotMultipart) {
		return c.runFailed(req, ferr)
	}
	run, err := cl.StartRun(req.Ctx(), id, in)
	if err != nil {
		return c.runFailed(req, err)
	}
	return req.Redirect(Prefix + "runs/" + run.RunID)
}

// runFailed shows the agent page with why the run did not start (a 4xx of
// the API: no credits, a disabled agent, a bad input).
func (c *Console) runFailed(req *Request, cause error) error {
	var ae *client.APIError
	msg := cause.Error()
	status := http.StatusUnprocessableEntity
	if errors.As(cause, &ae) {
		if ae.StatusCode == http.StatusNotFound || ae.StatusCode >= 500 {
			return cause
		}
		msg, status = ae.Message, ae.StatusCode
		if probs, ok := apiProblems(cause, nil); ok && len(probs) > 0 {
			msg = probs[0].Message
		}
	}
	v, err := c.loadAgent(req)
	if err != nil {
		return err
	}
	v.Problems = []problem{{Severity: "error", Message: "The run did not start: " + msg}}
	return req.Page(status, "agents_agent.html", v.Agent.Name, "agents", v)
}

// scheduleAdd adds a cron schedule to a schedule-triggered agent; the API
// checks the expression and the time zone, and its answer shows on the page.
func (c *Console) scheduleAdd(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	in := client.CreateScheduleRequest{CronExpression: strings.TrimSpace(req.PostFormValue("cron_expression"))}
	if tz := strings.TrimSpace(req.PostFormValue("timezone")); tz != "" {
		in.Timezone = &tz
	}
	if input := req.PostFormValue("input"); input != "" {
		in.Input = &input
	}
	if _, err = cl.CreateSchedule(req.Ctx(), id, in); err != nil {
		return c.scheduleRefused(req, err)
	}
	return req.Redirect(Prefix + "agents/" + id + "?done=scheduled#trigger")
}

// scheduleUpdate changes a schedule in place (cron, time zone, input and
// whether it is enabled). An emptied input field removes the input, as the
// API's update does for an empty string.
func (c *Console) scheduleUpdate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	cron := strings.TrimSpace(req.PostFormValue("cron_expression"))
	input := req.PostFormValue("input")
	enabled := req.PostFormValue("enabled") == "true"
	in := client.UpdateScheduleRequest{CronExpression: &cron, Input: &input, Enabled: &enabled}
	if tz := strings.TrimSpace(req.PostFormValue("timezone")); tz != "" {
		in.Timezone = &tz
	}
	if _, err = cl.UpdateSchedule(req.Ctx(), id, req.PathValue("schedule"), in); err != nil {
		return c.scheduleRefused(req, err)
	}
	return req.Redirect(Prefix + "agents/" + id + "?done=rescheduled#trigger")
}

// scheduleRefused shows the API's reasons for refusing a schedule on the
// agent's page (formRefusal: a 422 at its fields, a 400, 403 or 409 as a
// sentence); a missing agent or schedule and server errors go to the
// error page.
func (c *Console) scheduleRefused(req *Request, err error) error {
	probs, status, ok := formRefusal(err)
	if !ok {
		return err
	}
	v, lerr := c.loadAgent(req)
	if lerr != nil {
		return lerr
	}
	v.Problems = probs
	return req.Page(status, "agents_agent.html", v.Agent.Name, "agents", v)
}

func (c *Console) scheduleDelete(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	if err := cl.DeleteSchedule(req.Ctx(), id, req.PathValue("schedule")); err != nil {
		return err
	}
	return req.Redirect(Prefix + "agents/" + id + "?done=unscheduled#trigger")
}
