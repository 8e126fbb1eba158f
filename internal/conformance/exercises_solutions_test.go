package conformance

import (
	"net/http"
	"testing"
)

// Solutions, their assistants, the agent assistant, feedback, account and
// documentation search.

const solUploadsPlan = "A source for the PDFs I will upload, and a knowledge base over it"

func solSolution(t *testing.T, e *Env) Vars {
	t.Helper()
	r := e.Do(t, http.MethodPost, "/solutions", map[string]any{"name": "Harbour", "description": "Harbour news"})
	var s struct{ ID string }
	r.JSON(t, &s)
	if s.ID == "" {
		t.Fatalf("create solution: %s", r.Body)
	}
	return Vars{"solution_id": s.ID}
}

// solLinked is a solution with an agent, a knowledge base and a source.
func solLinked(t *testing.T, e *Env) Vars {
	t.Helper()
	v := knKB(t, e)
	r := e.Do(t, http.MethodPost, "/agents", map[string]any{"name": "Helper"})
	var a struct{ ID string }
	r.JSON(t, &a)
	v["agent_id"] = a.ID
	for k, val := range solSolution(t, e) {
		v[k] = val
	}
	return v
}

// solPlan is a solution with a pending knowledge-base plan.
func solPlan(t *testing.T, e *Env) Vars {
	t.Helper()
	v := solSolution(t, e)
	r := e.Do(t, http.MethodPost, "/solutions/"+v["solution_id"]+"/ai-assistant/knowledge-base", map[string]any{"user_input": solUploadsPlan})
	var p struct {
		ConversationID string `json:"conversation_id"`
	}
	r.JSON(t, &p)
	if p.ConversationID == "" {
		t.Fatalf("plan: %s", r.Body)
	}
	v["conversation_id"] = p.ConversationID
	return v
}

func solStandalonePlan(t *testing.T, e *Env) Vars {
	t.Helper()
	r := e.Do(t, http.MethodPost, "/ai-assistant/knowledge-base", map[string]any{"user_input": solUploadsPlan})
	var p struct {
		ConversationID string `json:"conversation_id"`
	}
	r.JSON(t, &p)
	if p.ConversationID == "" {
		t.Fatalf("plan: %s", r.Body)
	}
	return Vars{"conversation_id": p.ConversationID}
}

// solTurn is a solution with a turn recorded by hand.
func solTurn(t *testing.T, e *Env) Vars {
	t.Helper()
	v := solSolution(t, e)
	r := e.Do(t, http.MethodPost, "/solutions/"+v["solution_id"]+"/conversations", map[string]any{"user_input": "hello"})
	var c struct{ ID string }
	r.JSON(t, &c)
	v["conversation_id"] = c.ID
	return v
}

func solAgent(t *testing.T, e *Env) Vars {
	t.Helper()
	r := e.Do(t, http.MethodPost, "/agents", map[string]any{"name": "Helper"})
	var a struct{ ID string }
	r.JSON(t, &a)
	if a.ID == "" {
		t.Fatalf("agent: %s", r.Body)
	}
	return Vars{"agent_id": a.ID}
}

func solAgentTurn(t *testing.T, e *Env) Vars {
	t.Helper()
	v := solAgent(t, e)
	r := e.Do(t, http.MethodPost, "/agents/"+v["agent_id"]+"/ai-assistant/step-config", map[string]any{"step_type": "prompt_call",
		"user_input": "Summarise the input in three bullet points"})
	var c struct {
		ConversationID string `json:"conversation_id"`
	}
	r.JSON(t, &c)
	v["conversation_id"] = c.ConversationID
	return v
}

func solLink(v Vars, key string) func(Vars) any {
	return func(v Vars) any { return map[string]any{"ids": []string{v[key]}} }
}

func init() {
	register(
		Exercise{Op: "GET /solutions", Name: "list", Setup: solSolution, Status: http.StatusOK, Check: agWantBody(`"agent_count":0`)},
		Exercise{Op: "GET /solutions", Name: "search by name", Setup: solSolution, Path: "/solutions?search=harb&sort=name&order=asc", Status: http.StatusOK,
			Check: agWantBody(`"name":"Harbour"`)},
		Exercise{Op: "GET /solutions", Name: "bad order", Path: "/solutions?order=sideways", Status: http.StatusUnprocessableEntity},
		Exercise{Op: "POST /solutions", Name: "create", Body: map[string]any{"name": "Harbour"}, Status: http.StatusCreated,
			Check: agWantBody(`"description":""`)},
		Exercise{Op: "POST /solutions", Name: "missing name", Body: map[string]any{"description": "x"}, Status: http.StatusUnprocessableEntity,
			Check: expectLoc("body", "name")},
		Exercise{Op: "GET /solutions/{solution_id}", Name: "get", Setup: solSolution, Status: http.StatusOK},
		Exercise{Op: "GET /solutions/{solution_id}", Name: "not a uuid", Path: "/solutions/harbour", Status: http.StatusUnprocessableEntity},
		Exercise{Op: "GET /solutions/{solution_id}", Name: "missing", Path: "/solutions/" + knMissing, Status: http.StatusNotFound},
		Exercise{Op: "PATCH /solutions/{solution_id}", Name: "rename", Setup: solSolution, Body: map[string]any{"name": "Port"}, Status: http.StatusOK,
			Check: agWantBody(`"name":"Port"`)},
		Exercise{Op: "PATCH /solutions/{solution_id}", Name: "empty name", Setup: solSolution, Body: map[string]any{"name": ""}, Status: http.StatusUnprocessableEntity},
		Exercise{Op: "DELETE /solutions/{solution_id}", Name: "delete", Setup: solSolution, Status: http.StatusNoContent},
		Exercise{Op: "DELETE /solutions/{solution_id}", Name: "not a uuid", Path: "/solutions/x", Status: http.StatusUnprocessableEntity},
	)
	for _, l := range []struct{ path, key string }{{"agents", "agent_id"}, {"knowledge-bases", "knowledge_base_id"}, {"source-connections", "source_connection_id"}} {
		op := "/solutions/{solution_id}/" + l.path
		register(
			Exercise{Op: "POST " + op, Name: "link", Setup: solLinked, Body: solLink(nil, l.key), Status: http.StatusOK, Check: agWantBody(`"id":`)},
			Exercise{Op: "POST " + op, Name: "not uuids", Setup: solSolution, Body: map[string]any{"ids": []string{"x"}}, Status: http.StatusUnprocessableEntity},
			Exercise{Op: "POST " + op, Name: "missing resource", Setup: solSolution, Body: map[string]any{"ids": []string{knMissing}},
				Status: http.StatusUnprocessableEntity, Check: expectLoc("body", "ids", 0.0)},
			Exercise{Op: "DELETE " + op, Name: "unlink what is not linked", Setup: solLinked, Body: solLink(nil, l.key), Status: http.StatusOK},
			Exercise{Op: "DELETE " + op, Name: "missing ids", Setup: solSolution, Body: map[string]any{}, Status: http.StatusUnprocessableEntity},
		)
	}
	register(
		Exercise{Op: "GET /solutions/{solution_id}/conversations", Name: "list", Setup: solTurn, Status: http.StatusOK, Check: agWantBody(`"user_input":"hello"`)},
		Exercise{Op: "GET /solutions/{solution_id}/conversations", Name: "not a uuid", Path: "/solutions/x/conversations", Status: http.StatusUnprocessableEntity},
		Exercise{Op: "POST /solutions/{solution_id}/conversations", Name: "add", Setup: solSolution, Status: http.StatusCreated,
			Body: map[string]any{"user_input": "Add a feed", "ai_response": "Done", "actions_taken": map[string]any{"created": 1}}},
		Exercise{Op: "POST /solutions/{solution_id}/conversations", Name: "missing user_input", Setup: solSolution, Body: map[string]any{},
			Status: http.StatusUnprocessableEntity, Check: expectLoc("body", "user_input")},
		Exercise{Op: "PATCH /solutions/{solution_id}/conversations/{conversation_id}", Name: "mark", Setup: solTurn,
			Body: map[string]any{"accepted": true}, Status: http.StatusNoContent},
		Exercise{Op: "PATCH /solutions/{solution_id}/conversations/{conversation_id}", Name: "missing accepted", Setup: solTurn,
			Body: map[string]any{}, Status: http.StatusUnprocessableEntity},
	)
	for _, kind := range []string{"generate", "knowledge-base", "source"} {
		op := "POST /solutions/{solution_id}/ai-assistant/" + kind
		register(
			Exercise{Op: op, Name: "plan", Setup: solSolution, Body: map[string]any{"user_input": solUploadsPlan}, Status: http.StatusOK,
				Check: agWantBody(`"success":true`)},
			Exercise{Op: op, Name: "missing user_input", Setup: solSolution, Body: map[string]any{}, Status: http.StatusUnprocessableEntity},
		)
	}
	for _, kind := range []string{"solution", "knowledge-base", "source"} {
		op := "POST /ai-assistant/" + kind
		register(
			Exercise{Op: op, Name: "plan", Body: map[string]any{"user_input": solUploadsPlan}, Status: http.StatusOK, Check: agWantBody(`"success":true`)},
			Exercise{Op: op, Name: "blank user_input", Body: map[string]any{"user_input": "   "}, Status: http.StatusUnprocessableEntity},
		)
	}
	register(
		Exercise{Op: "POST /solutions/{solution_id}/ai-assistant/{conversation_id}/accept", Name: "accept", Setup: solPlan, Body: map[string]any{},
			Status: http.StatusOK, Check: agWantBody(`"success":true`)},
		Exercise{Op: "POST /solutions/{solution_id}/ai-assistant/{conversation_id}/accept", Name: "bad confirm_deletions", Setup: solPlan,
			Body: map[string]any{"confirm_deletions": "yes"}, Status: http.StatusUnprocessableEntity},
		Exercise{Op: "POST /solutions/{solution_id}/ai-assistant/{conversation_id}/decline", Name: "decline", Setup: solPlan, Status: http.StatusNoContent},
		Exercise{Op: "POST /solutions/{solution_id}/ai-assistant/{conversation_id}/decline", Name: "not a uuid", Setup: solSolution,
			Path: "/solutions/{solution_id}/ai-assistant/x/decline", Status: http.StatusUnprocessableEntity},
		Exercise{Op: "POST /ai-assistant/{conversation_id}/accept", Name: "accept into a new solution", Setup: solStandalonePlan,
			Body: map[string]any{"solution_name": "Uploads"}, Status: http.StatusOK, Check: agWantBody(`"solution_id":"`)},
		Exercise{Op: "POST /ai-assistant/{conversation_id}/accept", Name: "not a uuid", Path: "/ai-assistant/x/accept", Body: map[string]any{},
			Status: http.StatusUnprocessableEntity},
		Exercise{Op: "POST /ai-assistant/{conversation_id}/decline", Name: "decline", Setup: solStandalonePlan, Status: http.StatusNoContent},
		Exercise{Op: "POST /ai-assistant/{conversation_id}/decline", Name: "not a uuid", Path: "/ai-assistant/x/decline", Status: http.StatusUnprocessableEntity},
		Exercise{Op: "POST /ai-assistant/feedback", Name: "thumbs down flagged", Status: http.StatusOK,
			Body:  map[string]any{"feature": "solution", "rating": "thumbs_down", "comment": "It deleted my source without asking"},
			Check: agWantBody(`"flagged":true`)},
		Exercise{Op: "POST /ai-assistant/feedback", Name: "bad rating", Body: map[string]any{"feature": "solution", "rating": "meh"},
			Status: http.StatusUnprocessableEntity, Check: expectLoc("body", "rating")},

		Exercise{Op: "POST /agents/{agent_id}/ai-assistant/generate-steps", Name: "generate", Setup: solAgent, Status: http.StatusOK,
			Body: map[string]any{"user_input": "Summarise the input in a few short paragraphs"}, Check: agWantBody(`"success":true`)},
		Exercise{Op: "POST /agents/{agent_id}/ai-assistant/generate-steps", Name: "missing user_input", Setup: solAgent, Body: map[string]any{},
			Status: http.StatusUnprocessableEntity},
		Exercise{Op: "POST /agents/{agent_id}/ai-assistant/step-config", Name: "config", Setup: solAgent, Status: http.StatusOK,
			Body: map[string]any{"step_type": "prompt_call", "user_input": "Translate the input into French"}, Check: agWantBody(`"prompt_template"`)},
		Exercise{Op: "POST /agents/{agent_id}/ai-assistant/step-config", Name: "unknown step type", Setup: solAgent, Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"step_type": "teleport", "user_input": "x"}, Check: expectLoc("body", "step_type")},
		Exercise{Op: "GET /agents/{agent_id}/ai-assistant/conversations", Name: "history", Setup: solAgentTurn, Status: http.StatusOK,
			Path: "/agents/{agent_id}/ai-assistant/conversations?step_type=prompt_call", Check: agWantBody(`"total":1`)},
		Exercise{Op: "GET /agents/{agent_id}/ai-assistant/conversations", Name: "missing step_type", Setup: solAgent, Status: http.StatusUnprocessableEntity,
			Check: expectLoc("query", "step_type")},
		Exercise{Op: "PATCH /agents/{agent_id}/ai-assistant/{conversation_id}", Name: "accept", Setup: solAgentTurn, Status: http.StatusOK,
			Body: map[string]any{"accepted": true}, Check: agWantBody(`"ok":true`)},
		Exercise{Op: "PATCH /agents/{agent_id}/ai-assistant/{conversation_id}", Name: "missing accepted", Setup: solAgentTurn,
			Body: map[string]any{}, Status: http.StatusUnprocessableEntity},

		Exercise{Op: "GET /search", Name: "by name", Setup: solSolution, Path: "/search?q=harb", Status: http.StatusOK,
			Check: agWantBody(`"entity_type":"solution"`)},
		Exercise{Op: "GET /search", Name: "missing q", Status: http.StatusUnprocessableEntity, Check: expectLoc("query", "q")},
		Exercise{Op: "GET /docs-search", Name: "keyword", Path: "/docs-search?q=knowledge", Status: http.StatusOK, Check: agWantBody(`"doc_slug":"knowledge"`)},
		Exercise{Op: "GET /docs-search", Name: "semantic", Path: "/docs-search?q=cron+time+zone&mode=semantic&limit=3", Status: http.StatusOK,
			Check: agWantBody(`"highlight":"`)},
		Exercise{Op: "GET /docs-search", Name: "unknown mode", Path: "/docs-search?q=x&mode=fuzzy", Status: http.StatusUnprocessableEntity},
	)
}
