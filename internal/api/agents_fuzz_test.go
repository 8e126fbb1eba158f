package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

// FuzzCreateAgentImport sends arbitrary agent_definition payloads (and
// arbitrary whole bodies) to POST /agents through the HTTP handler. Every
// answer is a 201, or a 4xx that says where the problem is: an import error
// whose errors all carry a 1-based line and column, or a detail list whose
// items all carry a location. Never a 5xx.
func FuzzCreateAgentImport(f *testing.F) {
	h, key := fuzzAPI(f)
	for _, seed := range []string{
		`{"agent": {"name": "x", "definition": {"child_steps": [{"id": "a", "name": "A", "step_type": "display_result"}]}}}`,
		`{"child_steps": [{"id": "a", "step_type": "retry", "max_retries": 11}]}`,
		`{"export_version": "2", "agent": {"definition": {"child_steps": []}, "max_retries": 1e400}, "trigger": {"trigger_type": "schedule", "schedules": [{"cron_expression": "* * *"}]}}`,
		`{"agent": {"definition": {"child_steps": [{"id": "c", "step_type": "call_agent", "agent_id": "0190a000-0000-7000-8000-0000000000a7"}]}}, "alert_configs": [{"alert_type": "x", "recipient_user_ids": [1]}], "solutions": ["s", {"name": 2}]}`,
		`{"a": 1, "a": 2}`, `[]`, `null`, `"x"`, `{"agent": []}`, "{\"agent\": {\"definition\": {\"steps\": [{\"id\": \"\xff\"}]}}}",
	} {
		f.Add([]byte(seed), true)
	}
	if b, err := os.ReadFile("../agents/definition/testdata/export_full.json"); err == nil {
		f.Add(b, true)
	}
	f.Add([]byte(`{"name": "x", "agent_definition": {"child_steps": []}, "entity_remap": {"a": "b"}}`), false)
	f.Add([]byte(`{"name": 1}`), false)
	f.Fuzz(func(t *testing.T, payload []byte, wrap bool) {
		body := payload
		if wrap {
			body = append(append([]byte(`{"name": "fuzz", "entity_remap": {"0190a000-0000-7000-8000-0000000000a7": "x"}, "agent_definition": `), payload...), '}')
		}
		r := httptest.NewRequest("POST", "/agents", bytes.NewReader(body))
		r.Header.Set("X-API-Key", key)
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch {
		case w.Code == http.StatusCreated:
			return
		case w.Code >= 500 || w.Code < 400:
			t.Fatalf("body %q: status %d %s", body, w.Code, w.Body)
		}
		var out struct {
			Detail json.RawMessage `json:"detail"`
			Errors []struct {
				Line, Column int
			} `json:"errors"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("status %d body is not JSON: %s", w.Code, w.Body)
		}
		if out.Error == "invalid_agent_definition" {
			if len(out.Errors) == 0 {
				t.Fatalf("import error without errors: %s", w.Body)
			}
			for _, e := range out.Errors {
				if e.Line < 1 || e.Column < 1 {
					t.Fatalf("import error without a position for %q: %s", payload, w.Body)
				}
			}
			return
		}
		var items []struct {
			Loc []any `json:"loc"`
		}
		if w.Code == http.StatusUnprocessableEntity {
			if err := json.Unmarshal(out.Detail, &items); err != nil || len(items) == 0 {
				t.Fatalf("422 without locations: %s", w.Body)
			}
			for _, it := range items {
				if len(it.Loc) == 0 {
					t.Fatalf("422 item without a location: %s", w.Body)
				}
			}
		}
	})
}
