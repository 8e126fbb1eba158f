package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/agentry/agentry/client"
)

// The agent assistant (docs/solutions.md, "Agent assistant"): describe an
// agent's workflow in one sentence, see the steps it proposes (already
// checked by the validator of PUT /agents/{id}/definition), and accept them
// (the console saves them with that operation, then records the turn as
// accepted) or decline them (recorded; nothing changes). The agent's page
// is the agents area's: its tab to here is for that area to add.

func init() {
	registerArea((*Console).agentAssistantRoutes)
	funcs["turnState"] = turnState
}

// turnState is an assistant turn's state: open, accepted or declined.
func turnState(accepted *bool) string {
	switch {
	case accepted == nil:
		return "open"
	case *accepted:
		return "accepted"
	}
	return "declined"
}

func (c *Console) agentAssistantRoutes() {
	c.page("GET "+Prefix+"agents/{id}/assistant", c.agentAssistantPage)
	c.page("POST "+Prefix+"agents/{id}/assistant", c.agentAssistantGenerate)
	c.page("POST "+Prefix+"agents/{id}/assistant/{conv}/accept", c.agentAssistantAccept)
	c.page("POST "+Prefix+"agents/{id}/assistant/{conv}/decline", c.agentAssistantDecline)
}

// agentWorkflowTurns is the history's step type of generate-steps turns.
const agentWorkflowTurns = "agent_workflow"

type agentAssistantView struct {
	Agent    *client.Agent
	Input    string
	Proposal *client.GeneratedSteps
	Steps    []string
	// Definition is the proposed workflow as the accept form sends it
	// back; saving it goes through the API's validator like any edit.
	Definition string
	History    []client.AssistantTurn
	Problems   []problem
	Notice     string

	// One step with the assistant (pages_solutions_step.go).
	StepChoices  []stepChoice
	StepID       string
	StepInput    string
	StepProposal *stepProposal
}

func (v agentAssistantView) flash() string { return v.Notice }

func (c *Console) loadAgentAssistant(req *Request) (agentAssistantView, error) {
	cl, err := req.API()
	if err != nil {
		return agentAssistantView{}, err
	}
	id := req.PathValue("id")
	a, err := cl.GetAgent(req.Ctx(), id)
	if err != nil {
		return agentAssistantView{}, err
	}
	h, err := cl.AgentAssistantHistory(req.Ctx(), id, agentWorkflowTurns, "", 10, 0)
	if err != nil {
		return agentAssistantView{}, err
	}
	// Newest first.
	turns := make([]client.AssistantTurn, 0, len(h.Turns))
	for i := len(h.Turns) - 1; i >= 0; i-- {
		turns = append(turns, h.Turns[i])
	}
	d, err := cl.GetAgentDefinition(req.Ctx(), id)
	if err != nil {
		return agentAssistantView{}, err
	}
	return agentAssistantView{Agent: a, History: turns, StepChoices: stepChoices(d.Definition)}, nil
}

func (c *Console) agentAssistantPage(req *Request) error {
	v, err := c.loadAgentAssistant(req)
	if err != nil {
		return err
	}
	switch req.URL.Query().Get("done") {
	case "accepted":
		v.Notice = "The proposed workflow is saved as the agent's workflow."
	case "declined":
		v.Notice = "Proposal declined: the workflow is unchanged."
	}
	return req.Page(http.StatusOK, "solutions_agent.html", v.Agent.Name+" · assistant", "agents", v)
}

// agentAssistantGenerate asks for a whole workflow for the agent.
func (c *Console) agentAssistantGenerate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	v, err := c.loadAgentAssistant(req)
	if err != nil {
		return err
	}
	v.Input = strings.TrimSpace(req.PostFormValue("user_input"))
	in := client.GenerateStepsRequest{UserInput: v.Input, AgentDescription: v.Agent.Description, TriggerType: v.Agent.TriggerType}
	res, err := cl.GenerateAgentSteps(req.Ctx(), v.Agent.ID, in)
	if probs, ok := apiProblems(err, nil); ok {
		v.Problems = probs
		return req.Page(http.StatusUnprocessableEntity, "solutions_agent.html", v.Agent.Name+" · assistant", "agents", v)
	}
	if err != nil {
		return err
	}
	v.Proposal = res
	list := make([]any, 0, len(res.Steps))
	for _, s := range res.Steps {
		list = append(list, s)
	}
	stepLines(list, 0, &v.Steps)
	if res.Success && len(res.Steps) > 0 {
		b, err := json.Marshal(map[string]any{"child_steps": res.Steps})
		if err != nil {
			return err
		}
		v.Definition = string(b)
	}
	return req.Page(http.StatusOK, "solutions_agent.html", v.Agent.Name+" · assistant", "agents", v)
}

// agentAssistantAccept saves the proposed workflow (PUT /agents/{id}/
// definition, whose validator has the last word) and records the turn as
// accepted.
func (c *Console) agentAssistantAccept(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id, conv := req.PathValue("id"), req.PathValue("conv")
	def := req.PostFormValue("definition")
	if !json.Valid([]byte(def)) {
		return req.Error(http.StatusBadRequest, "The proposed workflow did not come back whole. Ask the assistant again.")
	}
	// A one-step proposal names the change id it was made against, so an
	// edit made since is a conflict rather than overwritten; a whole
	// workflow replaces whatever is there.
	changeID := req.PostFormValue("change_id")
	if changeID == "" {
		cur, err := cl.GetAgentDefinition(req.Ctx(), id)
		if err != nil {
			return err
		}
		changeID = cur.ChangeID
	}
	if _, err := cl.UpdateAgentDefinition(req.Ctx(), id, changeID, json.RawMessage(def)); err != nil {
		if errors.Is(err, client.ErrConflict) {
			var ae *client.APIError
			errors.As(err, &ae)
			v, lerr := c.loadAgentAssistant(req)
			if lerr != nil {
				return lerr
			}
			v.Problems = []problem{{Severity: "error", Message: ae.Message}}
			return req.Page(http.StatusConflict, "solutions_agent.html", v.Agent.Name+" · assistant", "agents", v)
		}
		if probs, ok := apiProblems(err, nil); ok {
			v, lerr := c.loadAgentAssistant(req)
			if lerr != nil {
				return lerr
			}
			v.Problems = probs
			return req.Page(http.StatusUnprocessableEntity, "solutions_agent.html", v.Agent.Name+" · assistant", "agents", v)
		}
		return err
	}
	if err := cl.MarkAgentSuggestion(req.Ctx(), id, conv, true); err != nil {
		return err
	}
	return req.Redirect(Prefix + "agents/" + id + "/workflow")
}

func (c *Console) agentAssistantDecline(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	if err := cl.MarkAgentSuggestion(req.Ctx(), id, req.PathValue("conv"), false); err != nil {
		return err
	}
	return req.Redirect(Prefix + "agents/" + id + "/assistant?done=declined")
}
