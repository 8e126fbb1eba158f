package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestIDsInBodiesAre422 sends every id a request body or workflow
// definition carries as a malformed id, a well-formed id that names
// nothing, another account's id and an id holding a NUL: each is a 422
// naming the field, the three kinds alike (another account's id is
// indistinguishable from a missing one), and none is a 500 on either
// database. The retrieval_example template with such a knowledge_base_id
// used to answer 500.
func TestIDsInBodiesAre422(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		other := s.NewTenant(t, "other")
		// The other account's entities, whose ids must not work here.
		theirKB := mustID(t, s.Do(t, "POST", "/knowledge_bases", other.Key, map[string]any{"name": "kb",
			"source_ids": []string{mustID(t, s.Do(t, "POST", "/sources", other.Key, map[string]any{"name": "s", "source_type": "custom_index"}))}}))
		theirSource := mustID(t, s.Do(t, "POST", "/sources", other.Key, map[string]any{"name": "s2", "source_type": "custom_index"}))
		theirAgent := createAgent(t, s, other.Key, map[string]any{"name": "theirs"}).ID
		theirBank := mustID(t, s.Do(t, "POST", "/memory_banks", other.Key, map[string]any{"name": "bank"}))
		// This account's own, for the bodies that need a valid context.
		mySource := mustID(t, s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "mine", "source_type": "custom_index"}))
		myKB := mustID(t, s.Do(t, "POST", "/knowledge_bases", s.Key, map[string]any{"name": "kb", "source_ids": []string{mySource}}))
		mySolution := mustID(t, s.Do(t, "POST", "/solutions", s.Key, map[string]any{"name": "sol"}))
		myAgent := createAgent(t, s, s.Key, map[string]any{"name": "mine"}).ID
		var cur struct {
			ChangeID string `json:"change_id"`
		}
		s.Do(t, "GET", "/agents/"+myAgent+"/definition", s.Key, nil).JSON(t, &cur)

		bad := func(their string) []string {
			ids := []string{"not-a-uuid", "01234567-89ab-7def-8123-456789abcdef", "a\u0000b"}
			if their != "" {
				ids = append(ids, their)
			}
			return ids
		}
		def := func(step string) map[string]any {
			var m map[string]any
			if err := json.Unmarshal([]byte(`{"child_steps":[`+step+`]}`), &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
		type probe struct {
			name, method, path string
			body               func(id string) any
			their              string
			field              string // a word the 422 must name
		}
		probes := []probe{
			{"template knowledge_base_id", "POST", "/agents", func(id string) any {
				return map[string]any{"name": "x", "agent_template": "retrieval_example", "knowledge_base_id": id}
			}, theirKB, "knowledge_base_id"},
			{"retrieval step", "POST", "/agents", func(id string) any {
				return map[string]any{"name": "x", "agent_definition": def(`{"id":"r","step_type":"retrieval","query":"q","knowledge_base_id":"` + jsonEsc(id) + `"}`)}
			}, theirKB, "knowledge_base_id"},
			{"call_agent step", "POST", "/agents", func(id string) any {
				return map[string]any{"name": "x", "agent_definition": def(`{"id":"c","step_type":"call_agent","agent_id":"` + jsonEsc(id) + `"}`)}
			}, theirAgent, "agent_id"},
			{"memory step", "POST", "/agents", func(id string) any {
				return map[string]any{"name": "x", "agent_definition": def(`{"id":"m","step_type":"read_memory","memory_bank_id":"` + jsonEsc(id) + `"}`)}
			}, theirBank, "memory_bank_id"},
			{"definition update", "PUT", "/agents/" + myAgent + "/definition", func(id string) any {
				return map[string]any{"expected_change_id": cur.ChangeID, "definition": def(`{"id":"c","step_type":"call_agent","agent_id":"` + jsonEsc(id) + `"}`)}
			}, theirAgent, "agent_id"},
			{"knowledge base sources", "POST", "/knowledge_bases", func(id string) any {
				return map[string]any{"name": "kb", "source_ids": []string{id}}
			}, theirSource, "source_ids"},
			{"knowledge base update", "PUT", "/knowledge_bases/" + myKB, func(id string) any {
				return map[string]any{"source_ids": []string{id}}
			}, theirSource, "source_ids"},
			{"knowledge base search", "POST", "/knowledge_bases/" + myKB + "/search", func(id string) any {
				return map[string]any{"query": "q", "source_ids": []string{id}}
			}, theirSource, "source_ids"},
			{"solution agents", "POST", "/solutions/" + mySolution + "/agents", func(id string) any { return map[string]any{"ids": []string{id}} }, theirAgent, "ids"},
			{"solution knowledge bases", "POST", "/solutions/" + mySolution + "/knowledge-bases", func(id string) any { return map[string]any{"ids": []string{id}} }, theirKB, "ids"},
			{"solution sources", "POST", "/solutions/" + mySolution + "/source-connections", func(id string) any { return map[string]any{"ids": []string{id}} }, theirSource, "ids"},
			{"governance policy agent", "POST", "/governance/policies", func(id string) any {
				return map[string]any{"agent_id": id, "name": "p", "policy_type": "pii", "config": map[string]any{}}
			}, theirAgent, "agent_id"},
			{"governance check agent", "POST", "/governance/check", func(id string) any {
				return map[string]any{"agent_id": id, "stage": "input", "text": "hello"}
			}, theirAgent, "agent_id"},
			{"alert config agent", "POST", "/alerts/configs", func(id string) any { return map[string]any{"alert_type": "run_failed", "agent_id": id} }, theirAgent, "agent_id"},
			{"alert config source", "POST", "/alerts/configs", func(id string) any {
				return map[string]any{"alert_type": "pull_failed", "source_connection_id": id}
			}, theirSource, "source_connection_id"},
		}
		// A filter, not a reference: runs outlive their agent, so only a
		// malformed id is refused.
		for _, id := range []string{"not-a-uuid", "a\u0000b"} {
			r := s.Do(t, "POST", "/agents/runs/search", s.Key, map[string]any{"query": "q", "agent_id": id})
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "agent_id") {
				t.Errorf("trace search with %q: %d %.300s", id, r.Status, r.Body)
			}
		}
		for _, p := range probes {
			for _, id := range bad(p.their) {
				r := s.Do(t, p.method, p.path, s.Key, p.body(id))
				if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), p.field) {
					t.Errorf("%s with %q: %d %.300s", p.name, id, r.Status, r.Body)
				}
			}
		}
	})
}

// jsonEsc escapes an id for a JSON string literal.
func jsonEsc(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
