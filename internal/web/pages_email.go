package web

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/agentry/agentry/client"
)

// The e-mail area: inbound mail (each agent's addresses and trigger
// settings, the blocklist and auto-block mode, discarded mail, the
// overload pause and its queue) and the sending domains (records to
// publish, a live verification status, the test e-mail, DMARC).

func init() { registerArea((*Console).emailRoutes) }

func (c *Console) emailRoutes() {
	c.page("GET "+Prefix+"email", c.emailPage)
	c.page("GET "+Prefix+"email/agents/{id}", c.emailAgentPage)
	c.page("POST "+Prefix+"email/agents/{id}/triggers/{trigger}", c.emailTriggerSave)
	c.page("POST "+Prefix+"email/blocked", c.emailBlock)
	c.page("POST "+Prefix+"email/blocked/{id}/unblock", c.emailUnblock)
	c.page("POST "+Prefix+"email/auto-block", c.emailAutoBlockMode)
	c.page("POST "+Prefix+"email/inbound/resume", c.emailResume)
	c.page("POST "+Prefix+"email/inbound/cancel-queued", c.emailCancelQueued)
	c.domainRoutes()
}

// maxEmailAgents bounds how many agents the page reads to find the
// e-mail-triggered ones (the API has no trigger filter).
const maxEmailAgents = 2000

type emailAgent struct {
	ID, Name, TriggerID string
	Disabled            bool
}

type emailView struct {
	Status        *client.InboundEmailStatus
	Agents        []emailAgent
	Truncated     bool
	Blocked       []client.BlockedEmailSender
	BlockedTotal  int
	AutoBlockMode string
	Rejections    []client.InboundEmailRejection
	AgentFilter   string // discarded mail of one agent
	AgentNames    map[string]string
	MailDomain    string
	Notice        string
}

func (v emailView) flash() string { return v.Notice }

// AgentName is the name of a discarded message's agent ("" if none).
func (v emailView) AgentName(id *string) string {
	if id == nil {
		return ""
	}
	return v.AgentNames[*id]
}

// emailNotices are the one-line notices after an action (?done=…).
var emailNotices = map[string]string{
	"blocked":   "Sender blocked.",
	"unblocked": "Sender unblocked.",
	"mode":      "Auto-block mode saved.",
	"resumed":   "Inbound mail resumed.",
	"notpaused": "Inbound mail was not paused.",
	"cancelled": "The queued e-mail runs were cancelled.",
}

func (c *Console) emailPage(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	ctx := req.Ctx()
	v := emailView{MailDomain: c.cfg.MailDomain, AgentFilter: req.URL.Query().Get("agent"), AgentNames: map[string]string{},
		Notice: emailNotices[req.URL.Query().Get("done")]}
	if v.Status, err = cl.GetInboundEmailStatus(ctx); err != nil {
		return err
	}
	n := 0
	for a, err := range cl.Agents(ctx, client.AgentListOptions{Limit: 100}) {
		if err != nil {
			return err
		}
		if n++; n > maxEmailAgents {
			v.Truncated = true
			break
		}
		v.AgentNames[a.ID] = a.Name
		if a.TriggerType == nil || *a.TriggerType != client.TriggerEmailReceived {
			continue
		}
		row := emailAgent{ID: a.ID, Name: a.Name, Disabled: a.Disabled}
		if len(a.Triggers) > 0 {
			row.TriggerID = a.Triggers[0].ID
		}
		v.Agents = append(v.Agents, row)
	}
	slices.SortFunc(v.Agents, func(a, b emailAgent) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	blocked, err := cl.ListBlockedEmailSenders(ctx, 200, 0)
	if err != nil {
		return err
	}
	v.Blocked, v.BlockedTotal, v.AutoBlockMode = blocked.Items, blocked.Total, blocked.AutoBlockMode
	if v.Rejections, err = cl.ListInboundEmailRejections(ctx, v.AgentFilter, 100); err != nil {
		return err
	}
	return req.Page(http.StatusOK, "email_inbound.html", "E-mail", "email", v)
}

// emailAgentView is one agent's e-mail trigger: its addresses and the
// form of its settings. Config is set after a save: the API answers every
// setting then (it has no read of them), so the page shows them all.
type emailAgentView struct {
	Agent     *client.Agent
	Trigger   client.AgentTrigger
	Config    *client.EmailTriggerConfig
	Alias     string
	Problems  []problem
	Notice    string
	Truncated bool
}

func (v emailAgentView) flash() string { return v.Notice }

func (c *Console) loadEmailAgent(req *Request) (emailAgentView, error) {
	cl, err := req.API()
	if err != nil {
		return emailAgentView{}, err
	}
	a, err := cl.GetAgent(req.Ctx(), req.PathValue("id"))
	if err != nil {
		return emailAgentView{}, err
	}
	v := emailAgentView{Agent: a}
	for _, t := range a.Triggers {
		if t.TriggerType == client.TriggerEmailReceived {
			v.Trigger = t
		}
	}
	if v.Trigger.ID == "" {
		return v, errNoEmailTrigger
	}
	v.Alias = emailStr(v.Trigger.EmailAlias)
	return v, nil
}

var errNoEmailTrigger = errors.New("no e-mail trigger")

func (c *Console) emailAgentPage(req *Request) error {
	v, err := c.loadEmailAgent(req)
	if errors.Is(err, errNoEmailTrigger) {
		return req.Error(http.StatusNotFound, "This agent is not started by e-mail: its trigger is not email_received.")
	}
	if err != nil {
		return err
	}
	return req.Page(http.StatusOK, "email_agent.html", v.Agent.Name+" · e-mail", "email", v)
}

// emailTri reads a select of "" (leave as is), "on" or "off".
func emailTri(s string) *bool {
	switch s {
	case "on":
		t := true
		return &t
	case "off":
		f := false
		return &f
	}
	return nil
}

// emailTriggerSave changes the trigger's settings. The API validates the
// alias (422) and its uniqueness (409): both are shown beside the form.
func (c *Console) emailTriggerSave(req *Request) error {
	v, err := c.loadEmailAgent(req)
	if errors.Is(err, errNoEmailTrigger) {
		return req.Error(http.StatusNotFound, "This agent is not started by e-mail: its trigger is not email_received.")
	}
	if err != nil {
		return err
	}
	cl, _ := req.API()
	alias := strings.TrimSpace(req.PostFormValue("alias"))
	in := client.EmailTriggerConfigRequest{Alias: &alias,
		IgnoreAutoGenerated: emailTri(req.PostFormValue("ignore_auto_generated")),
		RequireSenderAuth:   emailTri(req.PostFormValue("require_sender_auth")),
		QueueOnQuota:        emailTri(req.PostFormValue("queue_on_quota"))}
	if req.PostFormValue("set_allowed_senders") == "on" {
		senders := []string{}
		for _, s := range strings.FieldsFunc(req.PostFormValue("allowed_senders"), func(r rune) bool { return r == '\n' || r == ',' || r == '\r' }) {
			if s = strings.TrimSpace(s); s != "" {
				senders = append(senders, s)
			}
		}
		in.AllowedSenders = &senders
	}
	cfg, err := cl.SetEmailTriggerConfig(req.Ctx(), v.Agent.ID, req.PathValue("trigger"), in)
	var ae *client.APIError
	if probs, ok := apiProblems(err, nil); ok {
		v.Problems, v.Alias = probs, alias
		return req.Page(http.StatusUnprocessableEntity, "email_agent.html", v.Agent.Name+" · e-mail", "email", v)
	} else if errors.As(err, &ae) && ae.StatusCode == http.StatusConflict {
		v.Problems, v.Alias = []problem{{Severity: "error", Path: "alias", Message: ae.Message}}, alias
		return req.Page(http.StatusConflict, "email_agent.html", v.Agent.Name+" · e-mail", "email", v)
	}
	if err != nil {
		return err
	}
	v.Config, v.Alias, v.Notice = cfg, emailStr(cfg.EmailAlias), "Saved."
	v.Trigger.EmailAddresses = cfg.EmailAddresses
	return req.Page(http.StatusOK, "email_agent.html", v.Agent.Name+" · e-mail", "email", v)
}

func emailStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (c *Console) emailBlock(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if _, err := cl.BlockEmailSender(req.Ctx(), strings.TrimSpace(req.PostFormValue("sender_email")),
		req.PostFormValue("match_type"), strings.TrimSpace(req.PostFormValue("note"))); err != nil {
		return err
	}
	return req.Redirect(Prefix + "email?done=blocked")
}

func (c *Console) emailUnblock(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := cl.UnblockEmailSender(req.Ctx(), req.PathValue("id")); err != nil {
		return err
	}
	return req.Redirect(Prefix + "email?done=unblocked")
}

func (c *Console) emailAutoBlockMode(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if _, err := cl.SetAutoBlockMode(req.Ctx(), req.PostFormValue("mode")); err != nil {
		return err
	}
	return req.Redirect(Prefix + "email?done=mode")
}

func (c *Console) emailResume(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	resumed, err := cl.ResumeInboundEmail(req.Ctx())
	if err != nil {
		return err
	}
	if !resumed {
		return req.Redirect(Prefix + "email?done=notpaused")
	}
	return req.Redirect(Prefix + "email?done=resumed")
}

func (c *Console) emailCancelQueued(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if _, err := cl.CancelQueuedEmailRuns(req.Ctx()); err != nil {
		return err
	}
	return req.Redirect(Prefix + "email?done=cancelled")
}
