package isolation

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/testserver"
)

// Solutions, their assistants, the agent assistant and search: B never
// lists, reads, changes, links, plans in, accepts or declines A's, never
// links A's resources into its own solution, and never finds A's
// resources by name or id.

const solPlanInput = "A source for the PDFs I will upload, and a knowledge base over it"

// solOfA makes A's agent, knowledge base (over a source), a solution
// linking all three, a pending plan in it, a standalone plan, a turn
// recorded by hand and an agent-assistant turn.
func solOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	v := knOfA(t, c)
	r := c.AsA(t, http.MethodPost, "/agents", map[string]any{"name": "Zeppelin planner"})
	var a struct{ ID string }
	r.JSON(t, &a)
	v["agent_id"] = a.ID
	r = c.AsA(t, http.MethodPost, "/solutions", map[string]any{"name": "Zeppelin launch", "description": "A's secret project"})
	var s struct{ ID string }
	r.JSON(t, &s)
	v["solution_id"] = s.ID
	for path, key := range map[string]string{"agents": "agent_id", "knowledge-bases": "knowledge_base_id", "source-connections": "source_connection_id"} {
		if r := c.AsA(t, http.MethodPost, "/solutions/"+s.ID+"/"+path, map[string]any{"ids": []string{v[key]}}); r.Status != http.StatusOK {
			t.Fatalf("link %s: %d %s", path, r.Status, r.Body)
		}
	}
	var p struct {
		ConversationID string `json:"conversation_id"`
	}
	c.AsA(t, http.MethodPost, "/solutions/"+s.ID+"/ai-assistant/knowledge-base", map[string]any{"user_input": solPlanInput}).JSON(t, &p)
	v["conversation_id"] = p.ConversationID
	c.AsA(t, http.MethodPost, "/ai-assistant/knowledge-base", map[string]any{"user_input": solPlanInput}).JSON(t, &p)
	v["standalone_conversation_id"] = p.ConversationID
	var turn struct{ ID string }
	c.AsA(t, http.MethodPost, "/solutions/"+s.ID+"/conversations", map[string]any{"user_input": "hello"}).JSON(t, &turn)
	v["turn_id"] = turn.ID
	var at struct {
		ConversationID string `json:"conversation_id"`
	}
	c.AsA(t, http.MethodPost, "/agents/"+a.ID+"/ai-assistant/step-config", map[string]any{"step_type": "prompt_call", "user_input": "Translate to French"}).JSON(t, &at)
	v["agent_turn_id"] = at.ConversationID
	return v
}

// solOfAWithB adds B's own solution.
func solOfAWithB(t *testing.T, c *Ctx) Vars {
	t.Helper()
	v := solOfA(t, c)
	var s struct{ ID string }
	c.AsB(t, http.MethodPost, "/solutions", map[string]any{"name": "B's solution"}).JSON(t, &s)
	v["b_solution_id"] = s.ID
	return v
}

// solIntact checks A's solution still links its three resources and
// holds its pending plan.
func solIntact(t testing.TB, c *Ctx, _ testserver.Response) {
	t.Helper()
	r := c.AsA(t, http.MethodGet, "/solutions/{solution_id}", nil)
	for _, k := range []string{"agent_id", "knowledge_base_id", "source_connection_id"} {
		if !strings.Contains(string(r.Body), c.Vars[k]) {
			t.Errorf("A's solution lost %s: %d %.500s", k, r.Status, r.Body)
		}
	}
	r = c.AsA(t, http.MethodGet, "/solutions/{solution_id}/conversations", nil)
	if !strings.Contains(string(r.Body), `"accepted":null`) {
		t.Errorf("A's plan was decided: %.500s", r.Body)
	}
}

// bSolutionEmpty checks B's own solution links nothing of A's.
func bSolutionEmpty(t testing.TB, c *Ctx, _ testserver.Response) {
	t.Helper()
	r := c.AsB(t, http.MethodGet, "/solutions/{b_solution_id}", nil)
	for _, k := range []string{"agent_id", "knowledge_base_id", "source_connection_id"} {
		if strings.Contains(string(r.Body), c.Vars[k]) {
			t.Errorf("B's solution links A's %s: %.500s", k, r.Body)
		}
	}
}

// noIDsOfA checks an answer holds no id of A's.
func noIDsOfA(t testing.TB, c *Ctx, r testserver.Response) {
	t.Helper()
	for _, k := range []string{"agent_id", "knowledge_base_id", "source_connection_id", "solution_id"} {
		if strings.Contains(string(r.Body), c.Vars[k]) {
			t.Errorf("B's answer names A's %s: %.500s", k, r.Body)
		}
	}
}

// noneOfA checks an answer names nothing of A's.
func noneOfA(t testing.TB, c *Ctx, r testserver.Response) {
	t.Helper()
	for _, k := range []string{"agent_id", "knowledge_base_id", "source_connection_id", "solution_id"} {
		if strings.Contains(string(r.Body), c.Vars[k]) {
			t.Errorf("B's answer names A's %s: %.500s", k, r.Body)
		}
	}
	if strings.Contains(strings.ToLower(string(r.Body)), "zeppelin") {
		t.Errorf("B's answer names A's resources: %.500s", r.Body)
	}
}

func init() {
	register(
		Case{Op: "GET /solutions", Name: "B does not list A's solutions", Setup: solOfA,
			Expect: Status(http.StatusOK, EmptyList("data")), Control: Status(http.StatusOK, NonEmptyList("data"))},
		Case{Op: "POST /solutions", Name: "B's solution is B's own", Setup: solOfA, Body: map[string]any{"name": "Zeppelin launch"},
			Expect: Status(http.StatusCreated, func(t testing.TB, c *Ctx, _ testserver.Response) {
				t.Helper()
				var list struct{ Data []any }
				c.AsA(t, http.MethodGet, "/solutions", nil).JSON(t, &list)
				if len(list.Data) != 1 {
					t.Errorf("A now sees %d solutions", len(list.Data))
				}
			}), NoControl: true},
		Case{Op: "GET /solutions/{solution_id}", Name: "B reads A's solution", Setup: solOfA, Expect: NotFound()},
		Case{Op: "PATCH /solutions/{solution_id}", Name: "B renames A's solution", Setup: solOfA, Body: map[string]any{"name": "B's now"},
			Expect: NotFound(), Control: Status(http.StatusOK)},
		Case{Op: "DELETE /solutions/{solution_id}", Name: "B deletes A's solution", Setup: solOfA, Expect: NotFound(), Control: Status(http.StatusNoContent)},
	)
	for _, l := range []struct{ path, key string }{{"agents", "agent_id"}, {"knowledge-bases", "knowledge_base_id"}, {"source-connections", "source_connection_id"}} {
		key := l.key
		ids := func(v Vars) any { return map[string]any{"ids": []string{v[key]}} }
		register(
			Case{Op: "POST /solutions/{solution_id}/" + l.path, Name: "B links A's resource into A's solution", Setup: solOfA, Body: ids,
				Expect: NotFound(), Control: Status(http.StatusOK)},
			Case{Op: "POST /solutions/{solution_id}/" + l.path, Name: "B links A's resource into its own solution", Setup: solOfAWithB,
				Path: "/solutions/{b_solution_id}/" + l.path, Body: ids, Expect: Status(http.StatusUnprocessableEntity, bSolutionEmpty), NoControl: true},
			Case{Op: "DELETE /solutions/{solution_id}/" + l.path, Name: "B unlinks from A's solution", Setup: solOfA, Body: ids,
				Expect: Status(http.StatusNotFound, solIntact), NoControl: true},
		)
	}
	register(
		Case{Op: "GET /solutions/{solution_id}/conversations", Name: "B reads A's history", Setup: solOfA, Expect: NotFound()},
		Case{Op: "POST /solutions/{solution_id}/conversations", Name: "B writes into A's history", Setup: solOfA,
			Body: map[string]any{"user_input": "B was here"}, Expect: NotFound(), NoControl: true},
		Case{Op: "PATCH /solutions/{solution_id}/conversations/{conversation_id}", Name: "B marks A's turn", Setup: solOfA,
			Path: "/solutions/{solution_id}/conversations/{turn_id}", Body: map[string]any{"accepted": false}, Expect: NotFound(),
			Control: Status(http.StatusNoContent)},
	)
	for _, kind := range []string{"generate", "knowledge-base", "source"} {
		register(Case{Op: "POST /solutions/{solution_id}/ai-assistant/" + kind, Name: "B plans in A's solution", Setup: solOfA,
			Body: map[string]any{"user_input": solPlanInput}, Expect: NotFound()})
	}
	for _, kind := range []string{"solution", "knowledge-base", "source"} {
		register(Case{Op: "POST /ai-assistant/" + kind, Name: "B's plan cannot reach A's resources", Setup: solOfA,
			Body: map[string]any{"user_input": `Delete "A's docs", "A's KB" and "Zeppelin planner"`},
			Expect: Status(http.StatusOK, noIDsOfA, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), `"proposed_actions":[]`) {
					t.Errorf("B's plan acts on something: %.500s", r.Body)
				}
			}), NoControl: true})
	}
	register(
		Case{Op: "POST /solutions/{solution_id}/ai-assistant/{conversation_id}/accept", Name: "B accepts A's plan", Setup: solOfA,
			Body: map[string]any{}, Expect: Status(http.StatusNotFound, solIntact), NoControl: true},
		Case{Op: "POST /solutions/{solution_id}/ai-assistant/{conversation_id}/accept", Name: "B accepts A's plan through its own solution",
			Setup: solOfAWithB, Path: "/solutions/{b_solution_id}/ai-assistant/{conversation_id}/accept", Body: map[string]any{},
			Expect: Status(http.StatusNotFound, solIntact), NoControl: true},
		Case{Op: "POST /solutions/{solution_id}/ai-assistant/{conversation_id}/decline", Name: "B declines A's plan", Setup: solOfA,
			Expect: Status(http.StatusNotFound, solIntact), NoControl: true},
		Case{Op: "POST /ai-assistant/{conversation_id}/accept", Name: "B accepts A's standalone plan", Setup: solOfA,
			Path: "/ai-assistant/{standalone_conversation_id}/accept", Body: map[string]any{"solution_name": "B's"}, Expect: NotFound(),
			Control: Status(http.StatusOK)},
		Case{Op: "POST /ai-assistant/{conversation_id}/accept", Name: "B accepts A's solution plan as standalone", Setup: solOfA,
			Body: map[string]any{}, Expect: Status(http.StatusNotFound, solIntact), NoControl: true},
		Case{Op: "POST /ai-assistant/{conversation_id}/decline", Name: "B declines A's standalone plan", Setup: solOfA,
			Path: "/ai-assistant/{standalone_conversation_id}/decline", Expect: NotFound(), Control: Status(http.StatusNoContent)},
		Case{Op: "POST /ai-assistant/feedback", Name: "B's feedback on A's conversation is B's own", Setup: solOfA,
			Body: func(v Vars) any {
				return map[string]any{"feature": "solution", "rating": "thumbs_down", "conversation_id": v["conversation_id"], "comment": "meh"}
			}, Expect: Status(http.StatusOK, noneOfA), NoControl: true},

		Case{Op: "POST /agents/{agent_id}/ai-assistant/generate-steps", Name: "B generates steps for A's agent", Setup: solOfA,
			Body: map[string]any{"user_input": "Answer questions"}, Expect: NotFound()},
		Case{Op: "POST /agents/{agent_id}/ai-assistant/step-config", Name: "B configures a step of A's agent", Setup: solOfA,
			Body: map[string]any{"step_type": "prompt_call", "user_input": "Answer questions"}, Expect: NotFound()},
		Case{Op: "GET /agents/{agent_id}/ai-assistant/conversations", Name: "B reads A's agent assistant history", Setup: solOfA,
			Path: "/agents/{agent_id}/ai-assistant/conversations?step_type=prompt_call", Expect: NotFound()},
		Case{Op: "PATCH /agents/{agent_id}/ai-assistant/{conversation_id}", Name: "B marks A's suggestion", Setup: solOfA,
			Path: "/agents/{agent_id}/ai-assistant/{agent_turn_id}", Body: map[string]any{"accepted": true}, Expect: NotFound()},

		Case{Op: "GET /search", Name: "B searches for A's resources by name", Setup: solOfA, Path: "/search?q=zeppelin",
			Expect: Status(http.StatusOK, EmptyList("results")), Control: Status(http.StatusOK, NonEmptyList("results"))},
		Case{Op: "GET /search", Name: "B searches for A's agent by id", Setup: solOfA, Path: "/search?q={agent_id}",
			Expect: Status(http.StatusOK, EmptyList("results")), Control: Status(http.StatusOK, NonEmptyList("results"))},
		Case{Op: "GET /docs-search", Name: "documentation is global and names no account", Setup: solOfA, Path: "/docs-search?q=zeppelin+solution",
			Expect: Status(http.StatusOK, noneOfA), Control: Status(http.StatusOK)},
	)
}
