package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// An agent's evaluation criteria, created, changed, enabled or disabled
// and deleted from the console (POST /agents/{id}/evaluation-criteria,
// PATCH and DELETE /agents/evaluation-criteria/{id}), and the agent's
// evaluation settings (PUT /agents/{id}: evaluation_mode, the default
// judge tier, retries, sampling). The API judges every value: its
// refusals show next to the form with what was typed kept.

func init() { registerArea((*Console).evaluationCriteriaRoutes) }

func (c *Console) evaluationCriteriaRoutes() {
	c.page("GET "+Prefix+"evaluations/{agent_id}/criteria/new", c.criterionNew)
	c.page("POST "+Prefix+"evaluations/{agent_id}/criteria", c.criterionCreate)
	c.page("GET "+Prefix+"evaluations/{agent_id}/criteria/{criteria_id}", c.criterionPage)
	c.page("POST "+Prefix+"evaluations/{agent_id}/criteria/{criteria_id}", c.criterionUpdate)
	c.page("POST "+Prefix+"evaluations/{agent_id}/criteria/{criteria_id}/{action}", c.criterionAction)
	c.page("GET "+Prefix+"evaluations/{agent_id}/settings", c.evaluationSettingsPage)
	c.page("POST "+Prefix+"evaluations/{agent_id}/settings", c.evaluationSettingsSave)
}

// criterionForm is the criterion form as typed.
type criterionForm struct {
	StepID, Description, Prompt, Expect, Threshold, Tier string
	Enabled                                              bool
}

type criterionView struct {
	Agent     *client.Agent
	Criterion *client.EvaluationCriteria // nil on the new criterion's page
	Form      criterionForm
	Steps     []stepChoice // the workflow's steps, offered for step_id
	Problems  []problem
	Notice    string
}

func (v criterionView) flash() string { return v.Notice }

// evaluationTiers are the judge tiers a form offers ("" is none: the
// agent's default).
var evaluationTiers = []string{"fast", "balanced", "thorough"}

// loadCriterionView reads the agent, its steps and, for an existing
// criterion, the criterion, which must be the agent's (another agent's
// criterion under this agent's address is a 404, as another account's).
func (c *Console) loadCriterionView(req *Request, v *criterionView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	agentID := req.PathValue("agent_id")
	if v.Agent, err = cl.GetAgent(req.Ctx(), agentID); err != nil {
		return err
	}
	if id := req.PathValue("criteria_id"); id != "" {
		if v.Criterion, err = c.agentCriterion(req, agentID, id); err != nil {
			return err
		}
	}
	d, err := cl.GetAgentDefinition(req.Ctx(), agentID)
	if err != nil {
		return err
	}
	v.Steps = stepChoices(d.Definition)
	return nil
}

// agentCriterion reads a criterion and checks it belongs to the agent.
func (c *Console) agentCriterion(req *Request, agentID, id string) (*client.EvaluationCriteria, error) {
	cl, err := req.API()
	if err != nil {
		return nil, err
	}
	cr, err := cl.GetEvaluationCriteria(req.Ctx(), id)
	if err != nil {
		return nil, err
	}
	if cr.AgentID != agentID {
		return nil, &client.APIError{StatusCode: http.StatusNotFound, Message: "Evaluation criteria not found"}
	}
	return cr, nil
}

// criterionFormOf fills the form with a criterion's current values.
func criterionFormOf(cr *client.EvaluationCriteria) criterionForm {
	return criterionForm{StepID: deref(cr.StepID), Description: deref(cr.Description), Prompt: deref(cr.EvaluationPrompt),
		Expect: indentJSON(cr.ExpectationConfig), Threshold: strconv.FormatFloat(cr.PassThreshold, 'f', -1, 64),
		Tier: deref(cr.EvaluationTier), Enabled: cr.Enabled}
}

// readCriterionForm reads the posted form; probs gets what cannot be sent
// at all (JSON that is not JSON, a threshold that is not a number).
func readCriterionForm(req *Request) (f criterionForm, expect json.RawMessage, threshold *float64, probs []problem) {
	f = criterionForm{StepID: strings.TrimSpace(req.PostFormValue("step_id")), Description: req.PostFormValue("description"),
		Prompt: req.PostFormValue("evaluation_prompt"), Expect: req.PostFormValue("expectation_config"),
		Threshold: strings.TrimSpace(req.PostFormValue("pass_threshold")), Tier: req.PostFormValue("evaluation_tier"),
		Enabled: req.PostFormValue("enabled") == "on"}
	expect = jsonField(f.Expect, "expectation_config", "The expectations", &probs)
	if f.Threshold != "" {
		t, err := strconv.ParseFloat(f.Threshold, 64)
		if err != nil {
			probs = append(probs, problem{Severity: "error", Path: "pass_threshold", Message: "The pass threshold must be a number from 0 to 1."})
		} else {
			threshold = &t
		}
	}
	return f, expect, threshold, probs
}

func (c *Console) criterionNew(req *Request) error {
	v := criterionView{Form: criterionForm{Threshold: "0.5", Enabled: true}}
	if err := c.loadCriterionView(req, &v); err != nil {
		return err
	}
	if len(v.Steps) > 0 {
		v.Form.StepID = v.Steps[0].ID
	}
	return req.Page(http.StatusOK, "evaluations_criterion.html", "New criterion: "+v.Agent.Name, "evaluations", v)
}

func (c *Console) criterionCreate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	agentID := req.PathValue("agent_id")
	f, expect, threshold, probs := readCriterionForm(req)
	status := http.StatusUnprocessableEntity
	if len(probs) == 0 {
		enabled := f.Enabled
		in := client.EvaluationCriteriaInput{StepID: f.StepID, Description: optText(f.Description), Enabled: &enabled,
			EvaluationPrompt: optText(f.Prompt), ExpectationConfig: expect, PassThreshold: threshold, EvaluationTier: optText(f.Tier)}
		cr, err := cl.CreateEvaluationCriteria(req.Ctx(), agentID, in)
		if err == nil {
			return req.Redirect(Prefix + "evaluations/" + agentID + "/criteria/" + cr.ID + "?done=created")
		}
		var ok bool
		if probs, status, ok = formRefusal(err); !ok {
			return err
		}
	}
	v := criterionView{Form: f, Problems: probs}
	if err := c.loadCriterionView(req, &v); err != nil {
		return err
	}
	return req.Page(status, "evaluations_criterion.html", "New criterion: "+v.Agent.Name, "evaluations", v)
}

func (c *Console) criterionPage(req *Request) error {
	var v criterionView
	switch req.URL.Query().Get("done") {
	case "created":
		v.Notice = "Criterion created: runs of its step are judged by it as the agent's evaluation mode says."
	case "saved":
		v.Notice = "Criterion saved."
	case "enable":
		v.Notice = "Criterion enabled."
	case "disable":
		v.Notice = "Criterion disabled: it judges nothing until enabled again."
	}
	if err := c.loadCriterionView(req, &v); err != nil {
		return err
	}
	v.Form = criterionFormOf(v.Criterion)
	return req.Page(http.StatusOK, "evaluations_criterion.html", "Criterion: "+v.Agent.Name, "evaluations", v)
}

// criterionUpdate sends every field of the form: an emptied text or
// expectations field clears it (null), as the API's PATCH does.
func (c *Console) criterionUpdate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	agentID, id := req.PathValue("agent_id"), req.PathValue("criteria_id")
	if _, err := c.agentCriterion(req, agentID, id); err != nil {
		return err
	}
	f, expect, threshold, probs := readCriterionForm(req)
	status := http.StatusUnprocessableEntity
	if len(probs) == 0 {
		body := map[string]any{"step_id": f.StepID, "enabled": f.Enabled, "description": optText(f.Description),
			"evaluation_prompt": optText(f.Prompt), "evaluation_tier": optText(f.Tier), "expectation_config": json.RawMessage("null")}
		if expect != nil {
			body["expectation_config"] = expect
		}
		if threshold != nil {
			body["pass_threshold"] = *threshold
		}
		_, err := cl.UpdateEvaluationCriteria(req.Ctx(), id, body)
		if err == nil {
			return req.Redirect(Prefix + "evaluations/" + agentID + "/criteria/" + id + "?done=saved")
		}
		var ok bool
		if probs, status, ok = formRefusal(err); !ok {
			return err
		}
	}
	v := criterionView{Form: f, Problems: probs}
	if err := c.loadCriterionView(req, &v); err != nil {
		return err
	}
	return req.Page(status, "evaluations_criterion.html", "Criterion: "+v.Agent.Name, "evaluations", v)
}

// criterionAction enables, disables or deletes a criterion.
func (c *Console) criterionAction(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	agentID, id, action := req.PathValue("agent_id"), req.PathValue("criteria_id"), req.PathValue("action")
	if action != "enable" && action != "disable" && action != "delete" {
		return req.Error(http.StatusNotFound, "There is no such page.")
	}
	if _, err := c.agentCriterion(req, agentID, id); err != nil {
		return err
	}
	if action == "delete" {
		err = cl.DeleteEvaluationCriteria(req.Ctx(), id)
	} else {
		_, err = cl.UpdateEvaluationCriteria(req.Ctx(), id, map[string]bool{"enabled": action == "enable"})
	}
	if err != nil {
		probs, status, ok := formRefusal(err)
		if !ok {
			return err
		}
		v := criterionView{Problems: probs}
		if err := c.loadCriterionView(req, &v); err != nil {
			return err
		}
		v.Form = criterionFormOf(v.Criterion)
		return req.Page(status, "evaluations_criterion.html", "Criterion: "+v.Agent.Name, "evaluations", v)
	}
	if action == "delete" {
		return req.Redirect(Prefix + "evaluations/" + agentID + "#criteria")
	}
	return req.Redirect(Prefix + "evaluations/" + agentID + "/criteria/" + id + "?done=" + action)
}

// evaluationSettingsForm is the agent's evaluation settings as typed.
type evaluationSettingsForm struct {
	Mode, Tier, MaxRetries, Sampling string
	RetryOnFailure                   bool
}

type evaluationSettingsView struct {
	Agent    *client.Agent
	Form     evaluationSettingsForm
	Modes    []string
	Tiers    []string
	Problems []problem
	Notice   string
}

func (v evaluationSettingsView) flash() string { return v.Notice }

// evaluationModes are the agent's evaluation modes (docs/evaluations.md).
var evaluationModes = []string{"output_expectation", "eval_and_retry", "sample_and_flag"}

// renderEvaluationSettings shows the form: with the agent's current
// settings (fromAgent), or as typed, after a refusal.
func (c *Console) renderEvaluationSettings(req *Request, status int, v evaluationSettingsView, fromAgent bool) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if v.Agent, err = cl.GetAgent(req.Ctx(), req.PathValue("agent_id")); err != nil {
		return err
	}
	v.Modes, v.Tiers = evaluationModes, evaluationTiers
	if fromAgent {
		a := v.Agent
		v.Form = evaluationSettingsForm{Mode: a.EvaluationMode, Tier: deref(a.DefaultEvaluationTier),
			MaxRetries: strconv.Itoa(a.MaxRetries), RetryOnFailure: a.RetryOnFailure}
		if a.SamplingConfig != nil {
			b, _ := json.Marshal(a.SamplingConfig)
			v.Form.Sampling = indentJSON(b)
		}
	}
	return req.Page(status, "evaluations_settings.html", "Evaluation settings: "+v.Agent.Name, "evaluations", v)
}

func (c *Console) evaluationSettingsPage(req *Request) error {
	var v evaluationSettingsView
	if req.URL.Query().Get("done") == "saved" {
		v.Notice = "Evaluation settings saved: the next runs follow them."
	}
	return c.renderEvaluationSettings(req, http.StatusOK, v, true)
}

// evaluationSettingsSave changes the agent's evaluation settings with
// PUT /agents/{id}: an empty tier or sampling config clears it (the
// set_* flags), and the sampling config goes to the API as typed.
func (c *Console) evaluationSettingsSave(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	agentID := req.PathValue("agent_id")
	f := evaluationSettingsForm{Mode: req.PostFormValue("evaluation_mode"), Tier: req.PostFormValue("default_evaluation_tier"),
		MaxRetries: strings.TrimSpace(req.PostFormValue("max_retries")), Sampling: req.PostFormValue("sampling_config"),
		RetryOnFailure: req.PostFormValue("retry_on_failure") == "on"}
	var probs []problem
	body := map[string]any{"evaluation_mode": f.Mode, "retry_on_failure": f.RetryOnFailure}
	if t := optText(f.Tier); t != nil {
		body["default_evaluation_tier"] = *t
	} else {
		body["set_default_evaluation_tier"] = true
	}
	if n := intField(f.MaxRetries, "max_retries", "Max retries", &probs); n != nil {
		body["max_retries"] = *n
	}
	if s := jsonField(f.Sampling, "sampling_config", "The sampling settings", &probs); s != nil {
		body["sampling_config"] = s
	} else if strings.TrimSpace(f.Sampling) == "" {
		body["set_sampling_config"] = true
	}
	status := http.StatusUnprocessableEntity
	if len(probs) == 0 {
		// The client's UpdateAgentRequest holds sampling_config as a map;
		// the body is sent as typed so the API judges its shape.
		err := cl.Do(req.Ctx(), http.MethodPut, "/agents/"+url.PathEscape(agentID), body, nil)
		if err == nil {
			return req.Redirect(Prefix + "evaluations/" + agentID + "/settings?done=saved")
		}
		var ok bool
		if probs, status, ok = formRefusal(err); !ok {
			return err
		}
	}
	return c.renderEvaluationSettings(req, status, evaluationSettingsView{Form: f, Problems: probs}, false)
}
