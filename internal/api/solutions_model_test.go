package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func planJSON(t *testing.T, v any) fakellm.Reply {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return fakellm.Reply{Text: string(b), Usage: fakellm.Usage{Input: 100, Output: 50}}
}

// With a model configured, the plan is asked for as schema-constrained
// JSON; an invalid plan goes back with the validator's errors and the
// corrected one is proposed. A model that never gets it right is given
// up on after two repairs, and nothing is proposed.
func TestPlanningWithModelRepairsInvalidPlans(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		fakes, withFakes := playgroundtest.Start(t)
		s := testserver.Start(t, d, withFakes, func(c *server.Config) { c.AssistantModel = "openai_gpt_4_1" })
		bad := planJSON(t, map[string]any{"note": "A source.", "actions": []any{
			map[string]any{"action_type": "create_source", "description": "Feed", "params": map[string]any{"body": map[string]any{"name": "Feed", "source_type": "rss"}}},
			map[string]any{"action_type": "create_knowledge_base", "description": "KB", "params": map[string]any{"body": map[string]any{"name": "KB", "source_ids": []any{"$action_7"}}}},
		}})
		good := planJSON(t, map[string]any{"note": "An upload source and a knowledge base over it.", "actions": []any{
			map[string]any{"action_type": "create_source", "description": "Uploads", "params": map[string]any{"body": map[string]any{"name": "Uploads", "source_type": "custom_index"}}},
			map[string]any{"action_type": "create_knowledge_base", "description": "KB", "params": map[string]any{"body": map[string]any{"name": "KB", "source_ids": []any{"$action_1"}}}},
		}})
		fakes.OpenAI.Enqueue(bad, good)
		r := s.Do(t, "POST", "/ai-assistant/knowledge-base", s.Key, map[string]any{"user_input": "A knowledge base for documents I upload"})
		wantStatus(t, r, http.StatusOK)
		var plan planResponse
		r.JSON(t, &plan)
		if !plan.Success || len(plan.ProposedActions) != 2 || plan.Note != "An upload source and a knowledge base over it." {
			t.Fatalf("plan: %s", r.Body)
		}
		reqs := fakes.OpenAI.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d model calls, want 2", len(reqs))
		}
		first := reqs[0].JSON()
		if rf, _ := first["response_format"].(map[string]any); rf["type"] != "json_schema" {
			t.Errorf("the plan is not asked for as schema-constrained JSON: %v", first["response_format"])
		}
		second := string(reqs[1].Body)
		for _, want := range []string{"url_id", "$action_7"} {
			if !strings.Contains(second, want) {
				t.Errorf("the repair request does not feed back the validator's error about %s: %.2000s", want, second)
			}
		}
		r = s.Do(t, "POST", "/ai-assistant/"+plan.ConversationID+"/accept", s.Key, map[string]any{})
		wantStatus(t, r, http.StatusOK)
		var acc acceptResponse
		r.JSON(t, &acc)
		if !acc.Success || len(acc.ExecutedActions) != 2 {
			t.Fatalf("accept: %s", r.Body)
		}

		// Three invalid plans: the first and two repairs, then nothing.
		fakes.OpenAI.Enqueue(bad, bad, bad, good)
		before := len(fakes.OpenAI.Requests())
		r = s.Do(t, "POST", "/ai-assistant/knowledge-base", s.Key, map[string]any{"user_input": "A knowledge base for a feed"})
		wantStatus(t, r, http.StatusOK)
		r.JSON(t, &plan)
		if plan.Success || len(plan.ProposedActions) != 0 || !strings.Contains(plan.Note, "did not pass validation") {
			t.Fatalf("plan after failed repairs: %s", r.Body)
		}
		if n := len(fakes.OpenAI.Requests()) - before; n != 3 {
			t.Errorf("%d model calls, want 3 (one plan, two repairs)", n)
		}

		// The bodies are checked against the operations' own schemas.
		fakes.OpenAI.Enqueue(planJSON(t, map[string]any{"note": "x", "actions": []any{
			map[string]any{"action_type": "create_source", "description": "Uploads", "params": map[string]any{"body": map[string]any{"name": 5, "source_type": "custom_index"}}},
		}}), good)
		wantStatus(t, s.Do(t, "POST", "/ai-assistant/source", s.Key, map[string]any{"user_input": "A source"}), http.StatusOK)
		reqs = fakes.OpenAI.Requests()
		if repair := string(reqs[len(reqs)-1].Body); !strings.Contains(repair, "body.name") || !strings.Contains(repair, "expected string") {
			t.Errorf("the schema error is not fed back: %.3000s", repair)
		}

		// Inside a solution, its earlier turns are the model's context;
		// history_since leaves out older ones.
		sol := mustID(t, s.Do(t, "POST", "/solutions", s.Key, map[string]any{"name": "Harbour"}))
		wantStatus(t, s.Do(t, "POST", "/solutions/"+sol+"/conversations", s.Key, map[string]any{"user_input": "We follow the lighthouse feed"}), http.StatusCreated)
		for _, c := range []struct {
			since string
			want  bool
		}{{"", true}, {"2999-01-01T00:00:00Z", false}} {
			fakes.OpenAI.Enqueue(good)
			body := map[string]any{"user_input": "Add a knowledge base"}
			if c.since != "" {
				body["history_since"] = c.since
			}
			wantStatus(t, s.Do(t, "POST", "/solutions/"+sol+"/ai-assistant/knowledge-base", s.Key, body), http.StatusOK)
			reqs := fakes.OpenAI.Requests()
			if got := strings.Contains(string(reqs[len(reqs)-1].Body), "lighthouse feed"); got != c.want {
				t.Errorf("history_since %q: earlier turn sent = %v", c.since, got)
			}
		}
	})
}

// generate-steps with a model: an invalid workflow is repaired with the
// validator's errors of PUT /agents/{id}/definition.
func TestGenerateStepsWithModelRepairs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		fakes, withFakes := playgroundtest.Start(t)
		s := testserver.Start(t, d, withFakes, func(c *server.Config) { c.AssistantModel = "openai_gpt_4_1" })
		r := s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "Helper"})
		var a struct{ ID string }
		r.JSON(t, &a)
		fakes.OpenAI.Enqueue(
			planJSON(t, map[string]any{"note": "One step.", "child_steps": []any{map[string]any{"id": "x", "name": "X", "step_type": "teleport"}}}),
			planJSON(t, map[string]any{"note": "Answer with a model.", "child_steps": []any{map[string]any{"id": "answer", "name": "Answer",
				"step_type": "prompt_call", "prompt_template": "{{input}}", "child_steps": []any{map[string]any{"id": "show", "name": "Show",
					"step_type": "display_result", "template": "{{input}}"}}}}}))
		r = s.Do(t, "POST", "/agents/"+a.ID+"/ai-assistant/generate-steps", s.Key, map[string]any{"user_input": "Answer questions"})
		wantStatus(t, r, http.StatusOK)
		var out struct {
			Success bool             `json:"success"`
			Steps   []map[string]any `json:"steps"`
			Note    string           `json:"note"`
		}
		r.JSON(t, &out)
		if !out.Success || len(out.Steps) != 1 || out.Steps[0]["step_type"] != "prompt_call" {
			t.Fatalf("steps: %s", r.Body)
		}
		if reqs := fakes.OpenAI.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "teleport") {
			t.Fatalf("repair: %d calls", len(reqs))
		}
		// The generated steps save through PUT …/definition as they are.
		r = s.Do(t, "GET", "/agents/"+a.ID+"/definition", s.Key, nil)
		var cur struct {
			ChangeID string `json:"change_id"`
		}
		r.JSON(t, &cur)
		r = s.Do(t, "PUT", "/agents/"+a.ID+"/definition", s.Key, map[string]any{"expected_change_id": cur.ChangeID,
			"definition": map[string]any{"name": "Helper", "child_steps": out.Steps}})
		wantStatus(t, r, http.StatusOK)
	})
}

// POST /ai-assistant/solution streams the plan when asked for SSE: a
// status event, one event per action, the note, and done with the whole
// response, whose conversation can then be accepted.
func TestSolutionPlanStreams(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		body, _ := json.Marshal(map[string]any{"user_input": "Answer questions from the policies I upload"})
		req, _ := http.NewRequest("POST", s.URL+"/ai-assistant/solution", bytes.NewReader(body))
		req.Header.Set("X-API-Key", s.Key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("status %d, type %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		var events []string
		var done planResponse
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		ev := ""
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				ev = v
				events = append(events, v)
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok && ev == "done" {
				if err := json.Unmarshal([]byte(v), &done); err != nil {
					t.Fatal(err)
				}
			}
		}
		if got := strings.Join(events, ","); got != "status,action,action,action,note,done" {
			t.Fatalf("events %s", got)
		}
		if !done.Success || len(done.ProposedActions) != 3 {
			t.Fatalf("done: %+v", done)
		}
		r := s.Do(t, "POST", "/ai-assistant/"+done.ConversationID+"/accept", s.Key, map[string]any{})
		wantStatus(t, r, http.StatusOK)
	})
}
