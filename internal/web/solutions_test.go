package web_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

var (
	acceptAction  = regexp.MustCompile(`action="(/console/solutions/[^"]*/accept)"`)
	declineAction = regexp.MustCompile(`action="(/console/solutions/[^"]*/decline)"`)
)

// formAction is the URL of a form on the page.
func formAction(t *testing.T, p page, re *regexp.Regexp) string {
	t.Helper()
	m := re.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("page %s (%d) has no form %s:\n%s", p.URL, p.Status, re, p.Body)
	}
	return html.UnescapeString(m[1])
}

// solutionIDOf is the id in a solution page's path.
func solutionIDOf(t *testing.T, p page) string {
	t.Helper()
	id, ok := strings.CutPrefix(p.URL, "/console/solutions/")
	if !ok || id == "" || strings.Contains(id, "/") {
		t.Fatalf("not a solution page: %s (%d)\n%s", p.URL, p.Status, p.Body)
	}
	return id
}

func wantStatus(t *testing.T, p page, status int) {
	t.Helper()
	if p.Status != status {
		t.Fatalf("%s: status %d, want %d\n%s", p.URL, p.Status, status, p.Body)
	}
}

// TestSolutionsPages: the list, a solution with what it groups, and the
// assistant's describe → plan → accept or decline, in a solution and
// standalone, all through the API; another account's solution and plans
// are 404s; a member (the least role) uses it all as the API allows.
func TestSolutionsPages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)

		p := b.get("/console/solutions")
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "No solutions yet", `aria-current="page">Solutions`, `id="planner"`)

		// Create: the API's validation is shown next to the form.
		p = b.post("/console/solutions", url.Values{"name": {""}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, `class="problems"`, `id="new-solution"`)
		p = b.post("/console/solutions", url.Values{"name": {"Harbour ops"}, "description": {"Everything about the harbour"}})
		wantStatus(t, p, http.StatusOK)
		sol := solutionIDOf(t, p)
		p.mustContain(t, "<h1>Harbour ops</h1>", "Everything about the harbour", "Solution created")

		// What it groups, linked to the console's pages.
		agent := srv.StoreAgent(t, srv.AccountID, "Tide reader", showDef, "dynamic_input")
		if _, err := api.LinkSolutionResources(ctx, sol, client.SolutionAgents, []string{agent}); err != nil {
			t.Fatal(err)
		}
		p = b.get("/console/solutions/" + sol)
		p.mustContain(t, `href="/console/agents/`+agent+`">Tide reader</a>`, "No knowledge bases.")

		// Describe in one sentence; the plan is shown action by action;
		// the request's text is escaped.
		p = b.post("/console/solutions/"+sol+"/plan", url.Values{"user_input": {`Answer questions from the <b>manuals</b> I upload`}})
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "The assistant's plan", "&lt;b&gt;manuals&lt;/b&gt;", "create_source", "create_knowledge_base", "create_agent",
			`id="accept-plan"`, `id="decline-plan"`, "for Harbour ops")
		if strings.Contains(p.Body, `name="solution_name"`) {
			t.Error("a solution's plan offers to make a new solution")
		}
		accept := formAction(t, p, acceptAction)

		// Another account: the solution, its plan and its accept are 404s.
		other := srv.NewTenant(t, "other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		wantStatus(t, ob.get("/console/solutions/"+sol), http.StatusNotFound)
		wantStatus(t, ob.post("/console/solutions/"+sol+"/plan", url.Values{"user_input": {"Summarise my mail"}}), http.StatusNotFound)
		wantStatus(t, ob.post(accept, nil), http.StatusNotFound)
		theirs := ob.post("/console/solutions", url.Values{"name": {"Their secret"}})
		theirID := solutionIDOf(t, theirs)
		wantStatus(t, ob.post("/console/solutions/"+theirID+"/plans/"+strings.Split(accept, "/")[5]+"/accept", nil), http.StatusNotFound)
		if p := b.get("/console/solutions"); strings.Contains(p.Body, "Their secret") {
			t.Error("another account's solution is listed")
		}

		// Accept: the actions run; the page that opens is the solution,
		// with what was created in it.
		p = b.post(accept, nil)
		wantStatus(t, p, http.StatusOK)
		if solutionIDOf(t, p) != sol {
			t.Fatalf("accepting landed on %s", p.URL)
		}
		p.mustContain(t, "The plan ran")
		got, err := api.GetSolution(ctx, sol)
		if err != nil || len(got.Agents) != 2 || len(got.KnowledgeBases) != 1 || len(got.SourceConnections) != 1 {
			t.Fatalf("after accepting: %+v %v", got, err)
		}
		p.mustContain(t, `href="/console/knowledge/bases/`+got.KnowledgeBases[0].ID+`"`, `href="/console/knowledge/sources/`+got.SourceConnections[0].ID+`"`,
			"from "+got.SourceConnections[0].Name, "accepted")
		// A plan is accepted once.
		wantStatus(t, b.post(accept, nil), http.StatusConflict)

		// Decline: nothing changes, and the history says so.
		p = b.post("/console/solutions/"+sol+"/plan", url.Values{"user_input": {"Summarise the articles I upload"}, "kind": {client.AssistantSolution}})
		wantStatus(t, p, http.StatusOK)
		p = b.post(formAction(t, p, declineAction), nil)
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "Plan declined: nothing changed.", "declined")
		if again, _ := api.GetSolution(ctx, sol); len(again.Agents) != 2 {
			t.Errorf("declining changed the solution: %+v", again)
		}

		// The planner's own checks: an empty sentence, an unknown kind.
		p = b.post("/console/solutions/"+sol+"/plan", url.Values{"user_input": {"  "}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, `class="problems"`, "<h1>Harbour ops</h1>")
		wantStatus(t, b.post("/console/solutions/"+sol+"/plan", url.Values{"user_input": {"x"}, "kind": {"robot"}}), http.StatusBadRequest)
		wantStatus(t, b.post("/console/solutions/plan", url.Values{"user_input": {strings.Repeat("a", 8001)}}), http.StatusUnprocessableEntity)

		// Standalone: accepting with a name makes a solution for it all.
		p = b.post("/console/solutions/plan", url.Values{"user_input": {"A knowledge base for our HR policies that I will upload"}, "kind": {client.AssistantKnowledgeBase}})
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, `name="solution_name"`, "create_knowledge_base")
		standalone := formAction(t, p, acceptAction)
		wantStatus(t, ob.post(standalone, nil), http.StatusNotFound) // not theirs
		p = b.post(standalone, url.Values{"solution_name": {"HR policies"}})
		wantStatus(t, p, http.StatusOK)
		hr := solutionIDOf(t, p)
		p.mustContain(t, "<h1>HR policies</h1>", "The plan ran")
		if s, err := api.GetSolution(ctx, hr); err != nil || len(s.KnowledgeBases) != 1 {
			t.Fatalf("standalone solution: %+v %v", s, err)
		}

		// Unlink, rename, delete.
		p = b.post("/console/solutions/"+sol+"/unlink", url.Values{"kind": {client.SolutionAgents}, "resource_id": {agent}})
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "Unlinked")
		if strings.Contains(p.Body, "Tide reader") {
			t.Error("the unlinked agent is still shown")
		}
		wantStatus(t, b.post("/console/solutions/"+sol+"/unlink", url.Values{"kind": {"robots"}, "resource_id": {agent}}), http.StatusBadRequest)
		wantStatus(t, ob.post("/console/solutions/"+sol+"/unlink", url.Values{"kind": {client.SolutionAgents}, "resource_id": {agent}}), http.StatusNotFound)
		p = b.post("/console/solutions/"+sol+"/settings", url.Values{"name": {""}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p = b.post("/console/solutions/"+sol+"/settings", url.Values{"name": {"Harbour"}, "description": {"Renamed"}})
		p.mustContain(t, "Saved.", "<h1>Harbour</h1>")
		wantStatus(t, ob.post("/console/solutions/"+sol+"/delete", nil), http.StatusNotFound)
		p = b.post("/console/solutions/"+hr+"/delete", nil)
		wantStatus(t, p, http.StatusOK)
		if p.URL != "/console/solutions" || strings.Contains(p.Body, "HR policies") {
			t.Fatalf("after deleting: %s\n%s", p.URL, p.Body)
		}
		p = b.get("/console/solutions?q=harb")
		p.mustContain(t, ">Harbour</a>")

		// A member, the least role, reads and plans as the API allows.
		mb := newBrowser(t, srv)
		mb.signInWithKey(srv.IssueKey(t, srv.AccountID, srv.UserID, store.RoleMember))
		mb.get("/console/solutions/"+sol).mustContain(t, "<h1>Harbour</h1>")
		p = mb.post("/console/solutions/"+sol+"/plan", url.Values{"user_input": {"A source for the PDFs I will upload"}, "kind": {client.AssistantSource}})
		wantStatus(t, p, http.StatusOK)
		wantStatus(t, mb.post(formAction(t, p, acceptAction), nil), http.StatusOK)

		// Without a session: to the sign-in page, or a 401 for a form.
		anon := newBrowser(t, srv)
		if p := anon.get("/console/solutions"); !strings.HasSuffix(p.URL, "/signin") {
			t.Errorf("anonymous list: %s", p.URL)
		}
		anon.get("/console/signin")
		wantStatus(t, anon.post("/console/solutions/plan", url.Values{"user_input": {"x"}}), http.StatusUnauthorized)
		// Every form needs the CSRF token.
		wantStatus(t, b.post("/console/solutions/plan", url.Values{"user_input": {"x"}, "csrf": {"forged"}}), http.StatusForbidden)
	})
}

// TestSolutionsPlanWithModel: with an assistant model configured, the plan
// the model writes (here the fake OpenAI-compatible server on loopback) is
// what the page shows, and accepting it creates what it says.
func TestSolutionsPlanWithModel(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		fakes, withFakes := playgroundtest.Start(t)
		srv := testserver.Start(t, d, withFakes, func(c *server.Config) { c.AssistantModel = "openai_gpt_4_1" })
		plan, err := json.Marshal(map[string]any{"note": "An upload source for the lighthouse logs.", "actions": []any{
			map[string]any{"action_type": "create_source", "description": "Lighthouse logs", "params": map[string]any{"body": map[string]any{"name": "Lighthouse logs", "source_type": "custom_index"}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		fakes.OpenAI.Enqueue(fakellm.Reply{Text: string(plan), Usage: fakellm.Usage{Input: 100, Output: 40}})
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		p := b.post("/console/solutions/plan", url.Values{"user_input": {"Somewhere to upload the lighthouse logs"}, "kind": {client.AssistantSource}})
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "An upload source for the lighthouse logs.", "Lighthouse logs", "create_source")
		if n := len(fakes.OpenAI.Requests()); n != 1 {
			t.Fatalf("%d model calls, want 1", n)
		}
		p = b.post(formAction(t, p, acceptAction), url.Values{"solution_name": {"Lighthouse"}})
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "<h1>Lighthouse</h1>", ">Lighthouse logs</a>")
	})
}

var (
	acceptSteps  = regexp.MustCompile(`action="(/console/agents/[^"]*/accept)"`)
	declineSteps = regexp.MustCompile(`action="(/console/agents/[^"]*/decline)"`)
)

// TestAgentAssistantPage: describe an agent's workflow, see the proposed
// steps, accept them (saved through PUT /agents/{id}/definition, the turn
// marked accepted; the workflow page opens) or decline them (nothing
// changes); another account's agent is a 404 at every step.
func TestAgentAssistantPage(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		agent := srv.StoreAgent(t, srv.AccountID, "Extractor", showDef, "dynamic_input")
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		base := "/console/agents/" + agent + "/assistant"
		b.get(base).mustContain(t, "<h1>Extractor</h1>", `id="agent-planner"`)

		p := b.post(base, url.Values{"user_input": {"Extract people, organisations and dates from the input as JSON"}})
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, `id="proposal"`, `id="accept-steps"`, "Extract people")
		accept := formAction(t, p, acceptSteps)

		other := srv.NewTenant(t, "other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		wantStatus(t, ob.get(base), http.StatusNotFound)
		wantStatus(t, ob.post(base, url.Values{"user_input": {"anything"}}), http.StatusNotFound)
		wantStatus(t, ob.post(accept, url.Values{"definition": {showDef}}), http.StatusNotFound)

		// Tampered or invalid workflows do not get saved.
		wantStatus(t, b.post(accept, url.Values{"definition": {"{"}}), http.StatusBadRequest)
		p = b.post(accept, url.Values{"definition": {`{"child_steps":[{"id":"x","step_type":"no_such_step"}]}`}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, `class="problems"`)

		// Accept: the form sends back what was proposed.
		b.get(base)
		p = b.post(base, url.Values{"user_input": {"Extract people, organisations and dates from the input as JSON"}})
		accept = formAction(t, p, acceptSteps)
		def := html.UnescapeString(regexp.MustCompile(`name="definition" value="([^"]*)"`).FindStringSubmatch(p.Body)[1])
		p = b.post(accept, url.Values{"definition": {def}})
		wantStatus(t, p, http.StatusOK)
		if p.URL != "/console/agents/"+agent+"/workflow" {
			t.Fatalf("accepting landed on %s", p.URL)
		}
		saved, err := api.GetAgentDefinition(ctx, agent)
		if err != nil || strings.Contains(string(saved.Definition), `"greet"`) {
			t.Fatalf("the workflow was not replaced: %s %v", saved.Definition, err)
		}
		b.get(base).mustContain(t, "turn-accepted")

		// Decline: recorded, nothing changes.
		p = b.post(base, url.Values{"user_input": {"Summarise the input in three sentences"}})
		p = b.post(formAction(t, p, declineSteps), nil)
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "Proposal declined", "turn-declined")
		if again, _ := api.GetAgentDefinition(ctx, agent); string(again.Definition) != string(saved.Definition) {
			t.Error("declining changed the workflow")
		}
		wantStatus(t, b.post(base, url.Values{"user_input": {" "}}), http.StatusUnprocessableEntity)
	})
}

// stepDef has a model step with a display after it, to configure one step.
const stepDef = `{"child_steps":[{"id":"answer","name":"Answer","step_type":"prompt_call","prompt_template":"{{input}}",
	"child_steps":[{"id":"show","step_type":"display_result","template":"{{input}}"}]}]}`

// stepForm is the one-step proposal's accept form: its action and what it
// sends back.
var stepForm = regexp.MustCompile(`action="(/console/agents/[^"]*/accept)" id="accept-step">(?s:.*?)name="definition" value="([^"]*)">\s*<input type="hidden" name="change_id" value="([^"]*)">`)

func TestAgentAssistantOneStep(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		agent := srv.StoreAgent(t, srv.AccountID, "Translator", stepDef, "dynamic_input")
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		base := "/console/agents/" + agent + "/assistant"
		b.get(base).mustContain(t, `id="step-planner"`, `<option value="answer">Answer · answer (prompt_call)</option>`,
			`<option value="show">show (display_result)</option>`)

		propose := func() (action, def, changeID string) {
			t.Helper()
			p := b.post(base+"/step", url.Values{"step_id": {"answer"}, "step_input": {"Answer in French"}})
			wantStatus(t, p, http.StatusOK)
			p.mustContain(t, `id="step-proposal"`, "Answer in French")
			m := stepForm.FindStringSubmatch(p.Body)
			if m == nil {
				t.Fatalf("no accept form:\n%s", p.Body)
			}
			return m[1], html.UnescapeString(m[2]), m[3]
		}

		// Accept: the step gets the proposed prompt, the rest of the tree
		// stays as it was.
		action, def, changeID := propose()
		p := b.post(action, url.Values{"definition": {def}, "change_id": {changeID}})
		wantStatus(t, p, http.StatusOK)
		saved, err := api.GetAgentDefinition(ctx, agent)
		if err != nil {
			t.Fatal(err)
		}
		var tree struct {
			ChildSteps []struct {
				ID             string `json:"id"`
				PromptTemplate string `json:"prompt_template"`
				ChildSteps     []struct {
					ID string `json:"id"`
				} `json:"child_steps"`
			} `json:"child_steps"`
		}
		if err := json.Unmarshal(saved.Definition, &tree); err != nil || len(tree.ChildSteps) != 1 ||
			!strings.HasPrefix(tree.ChildSteps[0].PromptTemplate, "Answer in French") ||
			len(tree.ChildSteps[0].ChildSteps) != 1 || tree.ChildSteps[0].ChildSteps[0].ID != "show" {
			t.Fatalf("saved: %s %v", saved.Definition, err)
		}

		// A proposal made before another edit does not overwrite it.
		action, def, changeID = propose()
		if _, err := api.UpdateAgentDefinition(ctx, agent, saved.ChangeID, json.RawMessage(stepDef)); err != nil {
			t.Fatal(err)
		}
		p = b.post(action, url.Values{"definition": {def}, "change_id": {changeID}})
		wantStatus(t, p, http.StatusConflict)
		p.mustContain(t, `class="problems"`)
		if again, _ := api.GetAgentDefinition(ctx, agent); strings.Contains(string(again.Definition), "French") {
			t.Fatalf("the stale proposal was saved: %s", again.Definition)
		}

		// A step the workflow does not have, and a blank request.
		wantStatus(t, b.post(base+"/step", url.Values{"step_id": {"nope"}, "step_input": {"x"}}), http.StatusUnprocessableEntity)
		wantStatus(t, b.post(base+"/step", url.Values{"step_id": {"answer"}, "step_input": {" "}}), http.StatusUnprocessableEntity)

		other := srv.NewTenant(t, "other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		wantStatus(t, ob.post(base+"/step", url.Values{"step_id": {"answer"}, "step_input": {"Answer in French"}}), http.StatusNotFound)
	})
}
