package web

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/agentry/agentry/client"
)

// One step with the agent assistant (POST /agents/{id}/ai-assistant/
// step-config): pick a step of the current workflow, say in a sentence
// what it should do, and see the configuration the assistant proposes for
// it. Accepting puts the proposed fields into that step and saves the whole
// workflow through PUT /agents/{id}/definition, at the change id the
// proposal was made against, so an edit made meanwhile is not overwritten.

func init() { registerArea((*Console).agentStepRoutes) }

func (c *Console) agentStepRoutes() {
	c.page("POST "+Prefix+"agents/{id}/assistant/step", c.agentStepConfigure)
}

// stepChoice is one step of the workflow offered in the picker.
type stepChoice struct {
	ID, Label string
}

// stepProposal is the assistant's answer for one step, with the workflow
// it would become.
type stepProposal struct {
	StepID string
	client.StepConfig
	Config     string // the proposed fields, as indented JSON
	Definition string // the whole workflow with them, as the accept form sends it
	ChangeID   string
}

// structuralKeys are a step's keys that are not its configuration: the
// assistant neither sees nor changes them.
var structuralKeys = map[string]bool{"id": true, "name": true, "step_type": true, "purpose": true, "child_steps": true}

// workflowSteps lists the steps of a definition, wherever they sit in the
// tree (child steps, branches, loop bodies, switch cases), in document
// order.
func workflowSteps(v any, out *[]map[string]any) {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t["step_type"].(string); ok {
			if _, ok := t["id"].(string); ok {
				*out = append(*out, t)
			}
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		// child_steps last, so a step's branches list before what follows it.
		sort.SliceStable(keys, func(i, j int) bool { return keys[j] == "child_steps" && keys[i] != "child_steps" })
		for _, k := range keys {
			workflowSteps(t[k], out)
		}
	case []any:
		for _, e := range t {
			workflowSteps(e, out)
		}
	}
}

// stepChoices are the picker's entries for a definition.
func stepChoices(raw json.RawMessage) []stepChoice {
	var root any
	if json.Unmarshal(raw, &root) != nil {
		return nil
	}
	var steps []map[string]any
	workflowSteps(root, &steps)
	out := make([]stepChoice, 0, len(steps))
	for _, s := range steps {
		id, _ := s["id"].(string)
		typ, _ := s["step_type"].(string)
		label := id + " (" + typ + ")"
		if name, _ := s["name"].(string); name != "" && name != id {
			label = name + " · " + label
		}
		out = append(out, stepChoice{ID: id, Label: label})
	}
	return out
}

// findStep returns the step with the id in a decoded definition (a map
// that changes the definition when changed), or nil.
func findStep(root any, id string) map[string]any {
	var steps []map[string]any
	workflowSteps(root, &steps)
	for _, s := range steps {
		if s["id"] == id {
			return s
		}
	}
	return nil
}

// agentStepConfigure asks the assistant for one step's configuration and
// shows it with the workflow it would make.
func (c *Console) agentStepConfigure(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v, err := c.loadAgentAssistant(req)
	if err != nil {
		return err
	}
	d, err := cl.GetAgentDefinition(req.Ctx(), v.Agent.ID)
	if err != nil {
		return err
	}
	v.StepChoices = stepChoices(d.Definition)
	v.StepID = req.PostFormValue("step_id")
	v.StepInput = strings.TrimSpace(req.PostFormValue("step_input"))
	var root any
	if err := json.Unmarshal(d.Definition, &root); err != nil {
		return err
	}
	step := findStep(root, v.StepID)
	if step == nil {
		v.Problems = []problem{{Severity: "error", Message: "Pick a step of the workflow: it has no step " + quote(v.StepID) + "."}}
		return req.Page(http.StatusUnprocessableEntity, "solutions_agent.html", v.Agent.Name+" · assistant", "agents", v)
	}
	current := map[string]any{}
	for k, val := range step {
		if !structuralKeys[k] {
			current[k] = val
		}
	}
	stepType, _ := step["step_type"].(string)
	id := v.StepID
	res, err := cl.GenerateStepConfig(req.Ctx(), v.Agent.ID, client.StepConfigRequest{StepType: stepType, UserInput: v.StepInput,
		CurrentConfig: current, StepID: &id})
	if probs, ok := apiProblems(err, nil); ok {
		v.Problems = probs
		return req.Page(http.StatusUnprocessableEntity, "solutions_agent.html", v.Agent.Name+" · assistant", "agents", v)
	}
	if err != nil {
		return err
	}
	p := &stepProposal{StepID: id, StepConfig: *res, ChangeID: d.ChangeID}
	cfg, err := json.MarshalIndent(res.ResultingConfig, "", "  ")
	if err != nil {
		return err
	}
	p.Config = string(cfg)
	if res.Success {
		for k, val := range res.ResultingConfig {
			if !structuralKeys[k] {
				step[k] = val
			}
		}
		whole, err := json.Marshal(root)
		if err != nil {
			return err
		}
		p.Definition = string(whole)
	}
	v.StepProposal = p
	return req.Page(http.StatusOK, "solutions_agent.html", v.Agent.Name+" · assistant", "agents", v)
}

func quote(s string) string { return "“" + s + "”" }
