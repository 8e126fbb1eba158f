package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentry/agentry/client"
)

// The planning assistants in the console: a sentence goes to POST
// /ai-assistant/{kind} (standalone) or /solutions/{id}/ai-assistant/…,
// the plan it answers is shown action by action, and accepting or
// declining it is POST …/{conversation_id}/accept or /decline. The API
// keeps no readable copy of a standalone plan, so the plan page is the
// answer to the describing form itself.

// planActionRow is one proposed action as the page shows it.
type planActionRow struct {
	N int // counting from 1, as "$action_N" does
	client.PlanAction
	Target   string   // the id an update or delete acts on
	Body     string   // the request body the action sends, as JSON
	Steps    []string // an agent's planned steps, indented by depth
	Warnings []string
}

type planView struct {
	Solution     *client.Solution // nil for a standalone plan
	Input        string
	Plan         *client.Plan
	Actions      []planActionRow
	AcceptURL    string
	DeclineURL   string
	SolutionName string      // standalone: the name suggested for the new solution
	Planner      plannerForm // describe it again
}

// resultRow is one executed action.
type resultRow struct {
	ActionType, Description string
	Success                 bool
	Error                   string
	Type, ID, URL           string
}

type planResultView struct {
	SolutionID string
	Rows       []resultRow
	Error      string
}

func (c *Console) planStandalone(req *Request) error { return c.plan(req, "") }

func (c *Console) planInSolution(req *Request) error { return c.plan(req, req.PathValue("id")) }

// plan asks an assistant for a plan and shows it.
func (c *Console) plan(req *Request, solutionID string) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	input, kind := strings.TrimSpace(req.PostFormValue("user_input")), req.PostFormValue("kind")
	if kind == "" {
		kind = client.AssistantSolution
	}
	if kind != client.AssistantSolution && kind != client.AssistantKnowledgeBase && kind != client.AssistantSource {
		return req.Error(http.StatusBadRequest, "Unknown assistant: choose what to plan from the list.")
	}
	var sol *client.Solution
	base := Prefix + "solutions/"
	if solutionID != "" {
		// The solution first: another account's is a 404 before anything
		// is asked of a model.
		if sol, err = cl.GetSolution(req.Ctx(), solutionID); err != nil {
			return err
		}
		base += url.PathEscape(solutionID) + "/"
	}
	plan, err := cl.Plan(req.Ctx(), solutionID, kind, client.PlanRequest{UserInput: input})
	if probs, ok := apiProblems(err, nil); ok {
		// An empty or too long sentence: back to the form that sent it.
		form := newPlannerForm(base+"plan", input, kind)
		form.Problems = probs
		if sol == nil {
			return c.renderSolutionsList(req, http.StatusUnprocessableEntity, solutionsListView{Planner: form})
		}
		v, lerr := c.loadSolution(req)
		if lerr != nil {
			return lerr
		}
		v.Planner = form
		return req.Page(http.StatusUnprocessableEntity, "solutions_solution.html", v.Solution.Name, "solutions", v)
	}
	if err != nil {
		return err
	}
	v := planView{Solution: sol, Input: input, Plan: plan, Planner: newPlannerForm(base+"plan", input, kind),
		AcceptURL:  base + "plans/" + url.PathEscape(plan.ConversationID) + "/accept",
		DeclineURL: base + "plans/" + url.PathEscape(plan.ConversationID) + "/decline"}
	if sol == nil {
		v.SolutionName = suggestedName(input)
	}
	for i, a := range plan.ProposedActions {
		v.Actions = append(v.Actions, actionRow(i+1, a))
	}
	return req.Page(http.StatusOK, "solutions_plan.html", "Plan", "solutions", v)
}

// suggestedName is a solution name from the request: its first words.
func suggestedName(input string) string {
	words := strings.Fields(input)
	name := ""
	for _, w := range words {
		if len(name)+len(w)+1 > 60 {
			break
		}
		name = strings.TrimSpace(name + " " + w)
	}
	if name == "" {
		name = "New solution"
	}
	return name
}

func actionRow(n int, a client.PlanAction) planActionRow {
	r := planActionRow{N: n, PlanAction: a}
	if id, ok := a.Params["id"].(string); ok {
		r.Target = id
	}
	if b, ok := a.Params["body"]; ok {
		if j, err := json.MarshalIndent(b, "", "  "); err == nil {
			r.Body = string(j)
		}
	}
	if a.Preview != nil {
		stepLines(a.Preview["steps"], 0, &r.Steps)
		if ws, ok := a.Preview["warnings"].([]any); ok {
			for _, w := range ws {
				r.Warnings = append(r.Warnings, fmt.Sprint(w))
			}
		}
	}
	return r
}

// stepLines flattens a planned workflow's steps into "id (type)" lines,
// indented by depth; it stops at 200 lines (a preview, not the editor).
func stepLines(steps any, depth int, out *[]string) {
	list, _ := steps.([]any)
	for _, s := range list {
		if len(*out) >= 200 {
			return
		}
		m, ok := s.(map[string]any)
		if !ok {
			continue
		}
		id, _ := m["id"].(string)
		typ, _ := m["step_type"].(string)
		*out = append(*out, strings.Repeat("  ", depth)+id+" ("+typ+")")
		stepLines(m["child_steps"], depth+1, out)
	}
}

func (c *Console) acceptStandalone(req *Request) error { return c.accept(req, "") }

func (c *Console) acceptInSolution(req *Request) error { return c.accept(req, req.PathValue("id")) }

// accept runs a plan. When every action worked it lands on the solution
// that holds what was created; otherwise it shows each action's outcome.
func (c *Console) accept(req *Request, solutionID string) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	in := client.AcceptPlanRequest{ConfirmDeletions: req.PostFormValue("confirm_deletions") == "on"}
	if solutionID == "" {
		if name := strings.TrimSpace(req.PostFormValue("solution_name")); name != "" {
			in.SolutionName = &name
		}
	}
	res, err := cl.AcceptPlan(req.Ctx(), solutionID, req.PathValue("conv"), in)
	if err != nil {
		return err
	}
	v := planResultView{SolutionID: solutionID}
	if res.SolutionID != nil {
		v.SolutionID = *res.SolutionID
	}
	if res.Error != nil {
		v.Error = *res.Error
	}
	ok := res.Success
	for _, a := range res.ExecutedActions {
		r := resultRow{ActionType: a.ActionType, Description: a.Description, Success: a.Success, ID: deref(a.ResourceID), Type: deref(a.ResourceType)}
		if a.Error != nil {
			r.Error = *a.Error
		}
		if r.ID != "" && !strings.HasPrefix(a.ActionType, "delete_") {
			r.URL = resourceURL(r.Type, r.ID)
		}
		ok = ok && a.Success
		v.Rows = append(v.Rows, r)
	}
	if ok && v.SolutionID != "" {
		return req.Redirect(Prefix + "solutions/" + url.PathEscape(v.SolutionID) + "?done=accepted")
	}
	status := http.StatusOK
	if !ok {
		status = http.StatusUnprocessableEntity
	}
	return req.Page(status, "solutions_result.html", "Plan accepted", "solutions", v)
}

func (c *Console) declineStandalone(req *Request) error { return c.decline(req, "") }

func (c *Console) declineInSolution(req *Request) error { return c.decline(req, req.PathValue("id")) }

// decline records the refusal; nothing changes.
func (c *Console) decline(req *Request, solutionID string) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := cl.DeclinePlan(req.Ctx(), solutionID, req.PathValue("conv")); err != nil {
		return err
	}
	if solutionID != "" {
		return req.Redirect(Prefix + "solutions/" + url.PathEscape(solutionID) + "?done=declined")
	}
	return req.Redirect(Prefix + "solutions?done=declined")
}
