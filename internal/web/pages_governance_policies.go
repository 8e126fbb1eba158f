package web

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/agentry/agentry/client"
)

// Governance policies created and changed from the console (POST and
// PATCH /governance/policies): the scope (every agent or one, chosen at
// creation: the API does not move a policy), the action, the stages it
// checks and its rules as JSON, which the API judges. Writes need the
// owner or admin role: a member's attempt shows the API's 403 next to the
// form, with what they typed kept.

func init() { registerArea((*Console).governancePolicyRoutes) }

func (c *Console) governancePolicyRoutes() {
	c.page("GET "+Prefix+"governance/policies/new", c.policyNew)
	c.page("POST "+Prefix+"governance/policies", c.policyCreate)
	c.page("GET "+Prefix+"governance/policies/{id}", c.policyPage)
	c.page("POST "+Prefix+"governance/policies/{id}", c.policyUpdate)
}

// policyForm is the policy form as typed.
type policyForm struct {
	Name, Description, AgentID, Action, Rules string
	Stages                                    []string
	Enabled                                   bool
}

// HasStage is for the stage checkboxes.
func (f policyForm) HasStage(s string) bool { return slices.Contains(f.Stages, s) }

type policyView struct {
	Policy   *client.GovernancePolicy // nil on the new policy's page
	Agents   []client.Agent           // the scope's choices
	Form     policyForm
	Extra    string // settings of the config the form does not show, kept as they are
	Problems []problem
	Notice   string
}

func (v policyView) flash() string { return v.Notice }

// policyConfigKeys are the keys of a policy's config the form edits.
var policyConfigKeys = []string{"action", "stages", "rules"}

// policyFormOf fills the form from a stored policy; what else its config
// holds (a policy_type's fields, an import's extras) is shown apart and
// kept on save.
func policyFormOf(p *client.GovernancePolicy) (policyForm, string) {
	f := policyForm{Name: p.Name, Description: deref(p.Description), AgentID: deref(p.AgentID), Action: "flag",
		Stages: []string{"input", "output"}, Enabled: p.Enabled}
	var cfg map[string]json.RawMessage
	if json.Unmarshal(p.Config, &cfg) != nil {
		return f, ""
	}
	var action string
	if json.Unmarshal(cfg["action"], &action) == nil && action != "" {
		f.Action = action
	}
	var stages []string
	if json.Unmarshal(cfg["stages"], &stages) == nil && stages != nil {
		f.Stages = stages
	}
	f.Rules = indentJSON(cfg["rules"])
	for _, k := range policyConfigKeys {
		delete(cfg, k)
	}
	if len(cfg) == 0 {
		return f, ""
	}
	b, _ := json.Marshal(cfg)
	return f, string(b)
}

// readPolicyForm reads the posted form and builds the config: the form's
// action, stages and rules over what the stored config (base) holds
// besides them.
func readPolicyForm(req *Request, base json.RawMessage) (policyForm, json.RawMessage, []problem) {
	_ = req.ParseForm()
	f := policyForm{Name: strings.TrimSpace(req.PostFormValue("name")), Description: strings.TrimSpace(req.PostFormValue("description")),
		AgentID: req.PostFormValue("agent_id"), Action: req.PostFormValue("action"), Rules: req.PostFormValue("rules"),
		Stages: req.PostForm["stages"], Enabled: req.PostFormValue("enabled") == "on"}
	var probs []problem
	cfg := map[string]any{}
	var kept map[string]json.RawMessage
	if json.Unmarshal(base, &kept) == nil {
		for k, v := range kept {
			if !slices.Contains(policyConfigKeys, k) {
				cfg[k] = v
			}
		}
	}
	cfg["action"] = f.Action
	cfg["stages"] = append([]string{}, f.Stages...)
	if rules := jsonField(f.Rules, "rules", "The rules", &probs); rules != nil {
		cfg["rules"] = rules
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		probs = append(probs, problem{Severity: "error", Path: "config", Message: "The policy's settings could not be read."})
	}
	return f, b, probs
}

func (c *Console) renderPolicy(req *Request, status int, v policyView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if v.Policy == nil {
		// The scope is chosen at creation only: offer the account's agents.
		agents, err := cl.ListAgents(req.Ctx(), client.AgentListOptions{Limit: 100})
		if err != nil {
			return err
		}
		v.Agents = agents.Items
	}
	title := "New governance policy"
	if v.Policy != nil {
		title = "Policy: " + v.Policy.Name
	}
	return req.Page(status, "governance_policy.html", title, "governance", v)
}

func (c *Console) policyNew(req *Request) error {
	f := policyForm{Action: "flag", Stages: []string{"input", "output"}, Enabled: true,
		Rules: "[\n  {\"type\": \"pii\", \"kinds\": [\"email\", \"card\"]}\n]", AgentID: req.URL.Query().Get("agent_id")}
	return c.renderPolicy(req, http.StatusOK, policyView{Form: f})
}

func (c *Console) policyCreate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	f, cfg, probs := readPolicyForm(req, nil)
	status := http.StatusUnprocessableEntity
	if len(probs) == 0 {
		enabled := f.Enabled
		in := client.GovernancePolicyInput{Name: &f.Name, Enabled: &enabled, Config: cfg}
		if f.Description != "" {
			in.Description = &f.Description
		}
		if f.AgentID != "" {
			in.AgentID = &f.AgentID
		}
		p, err := cl.CreateGovernancePolicy(req.Ctx(), in)
		if err == nil {
			return req.Redirect(Prefix + "governance/policies/" + p.ID + "?done=created")
		}
		var ok bool
		if probs, status, ok = formRefusal(err); !ok {
			return err
		}
	}
	return c.renderPolicy(req, status, policyView{Form: f, Problems: probs})
}

func (c *Console) policyPage(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	p, err := cl.GetGovernancePolicy(req.Ctx(), req.PathValue("id"))
	if err != nil {
		return err
	}
	v := policyView{Policy: p}
	switch req.URL.Query().Get("done") {
	case "created":
		v.Notice = "Policy created: runs are checked against it."
	case "saved":
		v.Notice = "Policy saved."
	}
	v.Form, v.Extra = policyFormOf(p)
	return c.renderPolicy(req, http.StatusOK, v)
}

// policyUpdate saves the form over the policy: name, description,
// whether it is enabled, and its config (the form's action, stages and
// rules; the config's other settings kept).
func (c *Console) policyUpdate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	p, err := cl.GetGovernancePolicy(req.Ctx(), id)
	if err != nil {
		return err
	}
	f, cfg, probs := readPolicyForm(req, p.Config)
	f.AgentID = deref(p.AgentID)
	status := http.StatusUnprocessableEntity
	if len(probs) == 0 {
		enabled := f.Enabled
		_, err := cl.UpdateGovernancePolicy(req.Ctx(), id, client.GovernancePolicyInput{Name: &f.Name, Description: &f.Description,
			Enabled: &enabled, Config: cfg})
		if err == nil {
			return req.Redirect(Prefix + "governance/policies/" + id + "?done=saved")
		}
		var ok bool
		if probs, status, ok = formRefusal(err); !ok {
			return err
		}
	}
	_, extra := policyFormOf(p)
	return c.renderPolicy(req, status, policyView{Policy: p, Form: f, Extra: extra, Problems: probs})
}
