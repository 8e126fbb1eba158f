package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentry/agentry/client"
)

// The solutions area: the list of solutions, a solution's page with what
// it groups, and the planning assistants (docs/solutions.md): describe what
// you want in one sentence, read the plan, accept it (the API runs its
// actions) or decline it. Everything goes through the API: GET/POST/PATCH/
// DELETE /solutions…, POST …/ai-assistant/… (pages_solutions_plan.go).

func init() {
	registerArea((*Console).solutionsRoutes)
	funcs["resourceURL"] = resourceURL
}

func (c *Console) solutionsRoutes() {
	c.page("GET "+Prefix+"solutions", c.solutionsList)
	c.page("POST "+Prefix+"solutions", c.solutionCreate)
	c.page("GET "+Prefix+"solutions/{id}", c.solutionPage)
	c.page("POST "+Prefix+"solutions/{id}/settings", c.solutionSave)
	c.page("POST "+Prefix+"solutions/{id}/delete", c.solutionDelete)
	c.page("POST "+Prefix+"solutions/{id}/unlink", c.solutionUnlink)
	// The assistants: standalone (a new solution on accepting) and inside
	// a solution (what is created joins it).
	c.page("POST "+Prefix+"solutions/plan", c.planStandalone)
	c.page("POST "+Prefix+"solutions/plans/{conv}/accept", c.acceptStandalone)
	c.page("POST "+Prefix+"solutions/plans/{conv}/decline", c.declineStandalone)
	c.page("POST "+Prefix+"solutions/{id}/plan", c.planInSolution)
	c.page("POST "+Prefix+"solutions/{id}/plans/{conv}/accept", c.acceptInSolution)
	c.page("POST "+Prefix+"solutions/{id}/plans/{conv}/decline", c.declineInSolution)
}

// resourceURL is the console page of a resource found by search or
// grouped by a solution, by the API's entity type; "" when the console has
// no page for it. The areas of part 2 (knowledge, memory, evaluations,
// governance, alerts, settings) own their pages: this is the one place
// that says where they are.
func resourceURL(entityType, id string) string {
	e := "/" + url.PathEscape(id)
	switch entityType {
	case "agent":
		return Prefix + "agents" + e
	case "run":
		return Prefix + "runs" + e
	case "solution":
		return Prefix + "solutions" + e
	case "knowledge_base":
		return Prefix + "knowledge/bases" + e
	case "source_connection":
		return Prefix + "knowledge/sources" + e
	case "content":
		return Prefix + "knowledge/contents" + e
	case "memory_bank":
		return Prefix + "memory" + e
	case "evaluation_criteria":
		return Prefix + "evaluations" // criteria are shown on their agent's page
	case "alert":
		return Prefix + "alerts" + e
	case "governance_policy":
		return Prefix + "governance" // policies are listed on the one page
	case "api_key":
		return Prefix + "settings"
	}
	return ""
}

// solutionsPerPage is the list's page size.
const solutionsPerPage = 50

type solutionsListView struct {
	Query       string
	Page        int
	List        *client.Page[client.SolutionSummary]
	PrevURL     string
	NextURL     string
	Name        string // the new-solution form, kept on a 422
	Desc        string
	NewProblems []problem // the new-solution form's
	Planner     plannerForm
	Notice      string
}

func (v solutionsListView) flash() string { return v.Notice }

// plannerForm is the "describe what you want" form.
type plannerForm struct {
	Action   string // where it posts
	Input    string
	Kind     string
	Kinds    []struct{ Value, Label string }
	Problems []problem
}

var plannerKinds = []struct{ Value, Label string }{
	{client.AssistantSolution, "sources, knowledge bases and agents"},
	{client.AssistantKnowledgeBase, "knowledge bases and their sources"},
	{client.AssistantSource, "sources"},
}

func newPlannerForm(action, input, kind string) plannerForm {
	if kind == "" {
		kind = client.AssistantSolution
	}
	return plannerForm{Action: action, Input: input, Kind: kind, Kinds: plannerKinds}
}

func (c *Console) solutionsList(req *Request) error {
	return c.renderSolutionsList(req, http.StatusOK, solutionsListView{})
}

func (c *Console) renderSolutionsList(req *Request, status int, v solutionsListView) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	q := req.URL.Query()
	v.Query = strings.TrimSpace(q.Get("q"))
	v.Page, _ = strconv.Atoi(q.Get("page"))
	v.Page = max(v.Page, 1)
	if q.Get("done") == "declined" {
		v.Notice = "Plan declined: nothing changed."
	}
	if v.Planner.Action == "" {
		v.Planner = newPlannerForm(Prefix+"solutions/plan", "", "")
	}
	v.List, err = cl.ListSolutions(req.Ctx(), client.SolutionListOptions{Page: v.Page, Limit: solutionsPerPage, Sort: "name", Order: "asc", Search: v.Query})
	if err != nil {
		return err
	}
	link := func(page int) string {
		u := Prefix + "solutions?page=" + strconv.Itoa(page)
		if v.Query != "" {
			u += "&q=" + urlQueryEscape(v.Query)
		}
		return u
	}
	if v.List.HasPrev {
		v.PrevURL = link(v.Page - 1)
	}
	if v.List.HasNext {
		v.NextURL = link(v.Page + 1)
	}
	return req.Page(status, "solutions_list.html", "Solutions", "solutions", v)
}

// solutionCreate creates an empty solution; the API checks the name.
func (c *Console) solutionCreate(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	name, desc := strings.TrimSpace(req.PostFormValue("name")), strings.TrimSpace(req.PostFormValue("description"))
	s, err := cl.CreateSolution(req.Ctx(), name, desc)
	if probs, ok := apiProblems(err, nil); ok {
		return c.renderSolutionsList(req, http.StatusUnprocessableEntity, solutionsListView{Name: name, Desc: desc, NewProblems: probs})
	}
	if err != nil {
		return err
	}
	return req.Redirect(Prefix + "solutions/" + s.ID + "?done=created")
}

// solutionView is a solution's page.
type solutionView struct {
	Solution *client.Solution
	// KBNames and SourceNames name the ids an agent or a knowledge base
	// refers to, when they are in the solution too.
	KBNames     map[string]string
	SourceNames map[string]string
	Turns       []turnRow
	Planner     plannerForm
	Problems    []problem
	Notice      string
}

func (v solutionView) flash() string { return v.Notice }

// turnRow is a turn of the assistants' history with its state: open,
// accepted or declined.
type turnRow struct {
	client.SolutionConversation
	State string
}

// maxShownTurns is how many of the assistants' latest turns the page shows.
const maxShownTurns = 10

func (c *Console) loadSolution(req *Request) (solutionView, error) {
	cl, err := req.API()
	if err != nil {
		return solutionView{}, err
	}
	id := req.PathValue("id")
	s, err := cl.GetSolution(req.Ctx(), id)
	if err != nil {
		return solutionView{}, err
	}
	turns, err := cl.SolutionConversations(req.Ctx(), id)
	if err != nil {
		return solutionView{}, err
	}
	// Newest first, the latest few.
	shown := make([]turnRow, 0, min(len(turns), maxShownTurns))
	for i := len(turns) - 1; i >= 0 && len(shown) < maxShownTurns; i-- {
		r := turnRow{SolutionConversation: turns[i], State: "open"}
		if a := turns[i].Accepted; a != nil {
			r.State = map[bool]string{true: "accepted", false: "declined"}[*a]
		}
		shown = append(shown, r)
	}
	v := solutionView{Solution: s, Turns: shown, KBNames: map[string]string{}, SourceNames: map[string]string{},
		Planner: newPlannerForm(Prefix+"solutions/"+url.PathEscape(id)+"/plan", "", "")}
	for _, kb := range s.KnowledgeBases {
		v.KBNames[kb.ID] = kb.Name
	}
	for _, src := range s.SourceConnections {
		v.SourceNames[src.ID] = src.Name
	}
	return v, nil
}

func (c *Console) solutionPage(req *Request) error {
	v, err := c.loadSolution(req)
	if err != nil {
		return err
	}
	switch req.URL.Query().Get("done") {
	case "created":
		v.Notice = "Solution created. Describe what it should do, or link resources to it."
	case "saved":
		v.Notice = "Saved."
	case "unlinked":
		v.Notice = "Unlinked: the resource itself stays."
	case "accepted":
		v.Notice = "The plan ran: what it created is below."
	case "declined":
		v.Notice = "Plan declined: nothing changed."
	}
	return req.Page(http.StatusOK, "solutions_solution.html", v.Solution.Name, "solutions", v)
}

// solutionSave changes the name and description (PATCH /solutions/{id}).
func (c *Console) solutionSave(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	id := req.PathValue("id")
	name, desc := strings.TrimSpace(req.PostFormValue("name")), strings.TrimSpace(req.PostFormValue("description"))
	_, err = cl.UpdateSolution(req.Ctx(), id, client.UpdateSolutionRequest{Name: &name, Description: &desc})
	if probs, ok := apiProblems(err, nil); ok {
		v, lerr := c.loadSolution(req)
		if lerr != nil {
			return lerr
		}
		v.Problems = probs
		return req.Page(http.StatusUnprocessableEntity, "solutions_solution.html", v.Solution.Name, "solutions", v)
	}
	if err != nil {
		return err
	}
	return req.Redirect(Prefix + "solutions/" + url.PathEscape(id) + "?done=saved")
}

func (c *Console) solutionDelete(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	if err := cl.DeleteSolution(req.Ctx(), req.PathValue("id")); err != nil {
		return err
	}
	return req.Redirect(Prefix + "solutions")
}

// solutionUnlink removes one resource from the solution; the kind is the
// API's path word (agents, knowledge-bases, source-connections).
func (c *Console) solutionUnlink(req *Request) error {
	cl, err := req.API()
	if err != nil {
		return err
	}
	kind := req.PostFormValue("kind")
	switch kind {
	case client.SolutionAgents, client.SolutionKnowledgeBases, client.SolutionSourceConnections:
	default:
		return req.Error(http.StatusBadRequest, "Unknown kind of resource to unlink.")
	}
	rid := strings.TrimSpace(req.PostFormValue("resource_id"))
	if rid == "" {
		return req.Error(http.StatusBadRequest, "Say which resource to unlink.")
	}
	id := req.PathValue("id")
	if _, err := cl.UnlinkSolutionResources(req.Ctx(), id, kind, []string{rid}); err != nil {
		return err
	}
	return req.Redirect(Prefix + "solutions/" + url.PathEscape(id) + "?done=unlinked")
}
