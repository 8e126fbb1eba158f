package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// Alert configs: those of an agent, of a source, or of the account (agent
// alerts, or with scope "source" source alerts), each with its webhook
// and delivery log. The API validates; its 422s are shown by the form.

func (c *Console) alertConfigRoutes() {
	c.page("GET "+Prefix+"alerts/configs", c.alertConfigsPage)
	c.page("POST "+Prefix+"alerts/configs", c.alertConfigCreate)
	c.page("GET "+Prefix+"alerts/configs/{config_id}", c.alertConfigPage)
	c.page("POST "+Prefix+"alerts/configs/{config_id}/save", c.alertConfigSave)
	c.page("POST "+Prefix+"alerts/configs/{config_id}/delete", c.alertConfigDelete)
	c.page("POST "+Prefix+"alerts/configs/{config_id}/webhook", c.alertWebhookSave)
	c.page("POST "+Prefix+"alerts/configs/{config_id}/webhook/delete", c.alertWebhookDelete)
}

// alertTypes are the types a config may watch (docs/alerts.md), with what
// each watches: "agent" types name an agent or the account, "source"
// types a source or every source, "account" types neither.
var alertTypes = []struct{ Type, Scope string }{
	{"run_failed", "agent"}, {"consecutive_failures", "agent"}, {"error_rate_spike", "agent"}, {"run_burst", "agent"},
	{"slow_run", "agent"}, {"non_manual_eval_failed", "agent"}, {"non_manual_eval_flagged", "agent"},
	{"governance_flagged", "agent"}, {"governance_blocked", "agent"}, {"model_newer_available", "agent"},
	{"model_deprecated", "agent"}, {"model_sunset", "agent"},
	{"credits_low_threshold", "account"}, {"credits_runout_prediction", "account"}, {"credits_usage_spike", "account"},
	{"inbound_email_paused", "account"},
	{"pull_failed", "source"}, {"consecutive_pull_failures", "source"}, {"pull_error_rate_spike", "source"},
}

var distributions = []string{"owner", "owner_admins", "selected_members"}

// configScope is which configs a page lists: an agent's, a source's, the
// account's agent configs, or ("source") the account's source configs.
type configScope struct {
	Agent, Source, Scope string
}

func (s configScope) query() string { return s.pageQuery(1) }

// pageQuery is the query string of the scope's page n.
func (s configScope) pageQuery(n int) string {
	q := url.Values{}
	if n > 1 {
		q.Set("page", strconv.Itoa(n))
	}
	setQueryIf(q, "agent", s.Agent)
	setQueryIf(q, "source", s.Source)
	setQueryIf(q, "scope", s.Scope)
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// Types are the alert types a new config of this scope may have.
func (s configScope) Types() []string {
	var out []string
	for _, t := range alertTypes {
		var fits bool
		switch {
		case s.Agent != "":
			fits = t.Scope == "agent"
		case s.Source != "" || s.Scope == "source":
			fits = t.Scope == "source"
		default:
			fits = t.Scope != "source"
		}
		if fits {
			out = append(out, t.Type)
		}
	}
	return out
}

func setQueryIf(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// configForm is what the create and edit forms hold, kept on a 422.
type configForm struct {
	AlertType, Threshold, Cooldown, Distribution, Recipients string
	Enabled                                                  bool
}

type alertConfigsView struct {
	Scope        configScope
	ScopeQuery   string
	Agents       []client.Agent
	AgentName    string
	Configs      []client.AlertConfig
	Total        int
	Page         int
	PrevQuery    string // "" on the first page
	NextQuery    string // "" on the last page
	Distribution []string
	Form         configForm
	Problem      string
	Notice       string
}

func (v alertConfigsView) flash() string { return v.Notice }

func (c *Console) alertConfigsPage(req *Request) error {
	q := req.URL.Query()
	s := configScope{Agent: q.Get("agent"), Source: strings.TrimSpace(q.Get("source"))}
	if q.Get("scope") == "source" {
		s.Scope = "source"
	}
	page, _ := strconv.Atoi(q.Get("page"))
	v := alertConfigsView{Scope: s, Page: max(page, 1), Form: configForm{Enabled: true, Cooldown: "60", Distribution: "owner"},
		Notice: actionNotice(q.Get("done")), Problem: q.Get("problem")}
	return c.renderAlertConfigs(req, v, http.StatusOK)
}

func (c *Console) renderAlertConfigs(req *Request, v alertConfigsView, status int) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v.ScopeQuery, v.Distribution = v.Scope.query(), distributions
	agents, names, err := agentNames(req, cl)
	if err != nil {
		return err
	}
	v.Agents, v.AgentName = agents, names[v.Scope.Agent]
	p, err := cl.ListAlertConfigs(req.Ctx(), client.AlertConfigListOptions{AgentID: v.Scope.Agent, SourceConnectionID: v.Scope.Source,
		Scope: v.Scope.Scope, Page: v.Page, Limit: 50})
	if err != nil {
		if msg, ok := apiProblem422(err); ok {
			v.Problem = msg
			return req.Page(http.StatusUnprocessableEntity, "alerts_configs.html", "Alert configs", "alerts", v)
		}
		return err
	}
	v.Configs, v.Total = p.Items, p.Total
	if v.Page > 1 {
		v.PrevQuery = v.Scope.pageQuery(v.Page - 1)
	}
	if p.HasNext {
		v.NextQuery = v.Scope.pageQuery(v.Page + 1)
	}
	return req.Page(status, "alerts_configs.html", "Alert configs", "alerts", v)
}

// readConfigForm reads the form; a threshold that is not a JSON object is
// a problem before the API is asked.
func readConfigForm(req *Request) (configForm, map[string]any, *int, []string, string) {
	f := configForm{AlertType: req.PostForm.Get("alert_type"), Threshold: strings.TrimSpace(req.PostForm.Get("threshold")),
		Cooldown: strings.TrimSpace(req.PostForm.Get("cooldown_minutes")), Distribution: req.PostForm.Get("distribution_type"),
		Recipients: strings.TrimSpace(req.PostForm.Get("recipient_user_ids")), Enabled: req.PostForm.Get("enabled") != ""}
	var threshold map[string]any
	if f.Threshold != "" {
		if err := json.Unmarshal([]byte(f.Threshold), &threshold); err != nil || threshold == nil {
			return f, nil, nil, nil, "The threshold must be a JSON object, such as {\"count\": 3}."
		}
	}
	var cooldown *int
	if f.Cooldown != "" {
		n, err := strconv.Atoi(f.Cooldown)
		if err != nil {
			return f, nil, nil, nil, "The cooldown must be a whole number of minutes."
		}
		cooldown = &n
	}
	recipients := strings.FieldsFunc(f.Recipients, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' })
	return f, threshold, cooldown, recipients, ""
}

func (c *Console) alertConfigCreate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := req.ParseForm(); err != nil {
		return req.Error(http.StatusBadRequest, "The form could not be read.")
	}
	s := configScope{Agent: req.PostForm.Get("agent"), Source: strings.TrimSpace(req.PostForm.Get("source"))}
	if req.PostForm.Get("scope") == "source" {
		s.Scope = "source"
	}
	f, threshold, cooldown, recipients, problem := readConfigForm(req)
	v := alertConfigsView{Scope: s, Page: 1, Form: f, Problem: problem}
	if problem != "" {
		return c.renderAlertConfigs(req, v, http.StatusUnprocessableEntity)
	}
	enabled := f.Enabled
	in := client.CreateAlertConfigRequest{AlertType: f.AlertType, AgentID: s.Agent, SourceConnectionID: s.Source, Enabled: &enabled,
		Threshold: threshold, CooldownMinutes: cooldown, DistributionType: f.Distribution, RecipientUserIDs: recipients}
	cfg, err := cl.CreateAlertConfig(req.Ctx(), in)
	if err != nil {
		if msg, ok := apiProblem422(err); ok {
			v.Problem = msg
			return c.renderAlertConfigs(req, v, http.StatusUnprocessableEntity)
		}
		return err
	}
	return req.Redirect(pathWithDone(Prefix+"alerts/configs/"+url.PathEscape(cfg.ID), "created"))
}

type alertConfigView struct {
	Config       *client.AlertConfig
	Form         configForm
	AgentName    string
	ListQuery    string // the list this config belongs to
	Webhook      *client.AlertWebhook
	Deliveries   []client.AlertDelivery
	DeliveryPage int
	PrevPage     int
	NextPage     int
	Distribution []string
	Problem      string
	Notice       string
}

func (v alertConfigView) flash() string { return v.Notice }

func formOf(cfg *client.AlertConfig) configForm {
	f := configForm{AlertType: cfg.AlertType, Cooldown: strconv.Itoa(cfg.CooldownMinutes), Distribution: cfg.DistributionType,
		Recipients: strings.Join(cfg.RecipientUserIDs, ", "), Enabled: cfg.Enabled}
	if len(cfg.Threshold) > 0 {
		b, _ := json.Marshal(cfg.Threshold)
		f.Threshold = string(b)
	}
	return f
}

func (c *Console) alertConfigPage(req *Request) error {
	q := req.URL.Query()
	page, _ := strconv.Atoi(q.Get("page"))
	v := alertConfigView{DeliveryPage: max(page, 1), Notice: actionNotice(q.Get("done")), Problem: q.Get("problem")}
	return c.renderAlertConfig(req, v, http.StatusOK)
}

func (c *Console) renderAlertConfig(req *Request, v alertConfigView, status int) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("config_id")
	cfg, err := cl.GetAlertConfig(req.Ctx(), id)
	if err != nil {
		return err
	}
	v.Config, v.Distribution = cfg, distributions
	if v.Form == (configForm{}) {
		v.Form = formOf(cfg)
	}
	s := configScope{}
	switch {
	case cfg.AgentID != nil:
		s.Agent = *cfg.AgentID
		if a, err := cl.GetAgent(req.Ctx(), s.Agent); err == nil {
			v.AgentName = a.Name
		}
	case cfg.SourceConnectionID != nil:
		s.Source = *cfg.SourceConnectionID
	case isSourceType(cfg.AlertType):
		s.Scope = "source"
	}
	v.ListQuery = s.query()
	if v.Webhook, err = cl.GetAlertWebhook(req.Ctx(), id); err != nil {
		return err
	}
	d, err := cl.ListAlertDeliveries(req.Ctx(), id, v.DeliveryPage, 25)
	if err != nil {
		return err
	}
	v.Deliveries = d.Items
	if v.DeliveryPage > 1 {
		v.PrevPage = v.DeliveryPage - 1
	}
	if d.HasNext {
		v.NextPage = v.DeliveryPage + 1
	}
	return req.Page(status, "alerts_config.html", "Alert config", "alerts", v)
}

func isSourceType(t string) bool {
	for _, a := range alertTypes {
		if a.Type == t {
			return a.Scope == "source"
		}
	}
	return false
}

func (c *Console) alertConfigSave(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := req.ParseForm(); err != nil {
		return req.Error(http.StatusBadRequest, "The form could not be read.")
	}
	id := req.PathValue("config_id")
	f, threshold, cooldown, recipients, problem := readConfigForm(req)
	v := alertConfigView{DeliveryPage: 1, Form: f, Problem: problem}
	if problem != "" {
		return c.renderAlertConfig(req, v, http.StatusUnprocessableEntity)
	}
	enabled := f.Enabled
	in := client.UpdateAlertConfigRequest{Enabled: &enabled, Threshold: threshold, CooldownMinutes: cooldown,
		DistributionType: f.Distribution, RecipientUserIDs: recipients}
	if _, err := cl.UpdateAlertConfig(req.Ctx(), id, in); err != nil {
		if msg, ok := apiProblem422(err); ok {
			v.Problem = msg
			return c.renderAlertConfig(req, v, http.StatusUnprocessableEntity)
		}
		return err
	}
	return req.Redirect(pathWithDone(Prefix+"alerts/configs/"+url.PathEscape(id), "saved"))
}

func (c *Console) alertConfigDelete(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("config_id")
	cfg, err := cl.GetAlertConfig(req.Ctx(), id)
	if err != nil {
		return err
	}
	if err := cl.DeleteAlertConfig(req.Ctx(), id); err != nil {
		return err
	}
	s := configScope{}
	switch {
	case cfg.AgentID != nil:
		s.Agent = *cfg.AgentID
	case cfg.SourceConnectionID != nil:
		s.Source = *cfg.SourceConnectionID
	case isSourceType(cfg.AlertType):
		s.Scope = "source"
	}
	return req.Redirect(pathWithDone(Prefix+"alerts/configs"+s.query(), "deleted"))
}

func (c *Console) alertWebhookSave(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := req.ParseForm(); err != nil {
		return req.Error(http.StatusBadRequest, "The form could not be read.")
	}
	id := req.PathValue("config_id")
	back := Prefix + "alerts/configs/" + url.PathEscape(id)
	_, err = cl.SetAlertWebhook(req.Ctx(), id, strings.TrimSpace(req.PostForm.Get("url")), strings.TrimSpace(req.PostForm.Get("secret_name")))
	if err != nil {
		if msg, ok := apiProblem422(err); ok {
			return req.Redirect(pathWithProblem(back, msg) + "#webhook")
		}
		return err
	}
	return req.Redirect(pathWithDone(back, "webhook") + "#webhook")
}

func (c *Console) alertWebhookDelete(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("config_id")
	if err := cl.DeleteAlertWebhook(req.Ctx(), id); err != nil {
		return err
	}
	return req.Redirect(pathWithDone(Prefix+"alerts/configs/"+url.PathEscape(id), "webhook-removed") + "#webhook")
}
