package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestNULTextIs422: a NUL inside any JSON string used to reach PostgreSQL,
// which cannot store it, and come back as a 500. Every operation now
// answers a 422 naming the field, on both databases alike.
func TestNULTextIs422(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		for _, c := range []struct {
			method, path, body string
			loc                string
		}{
			{"POST", "/agents", `{"name":"a\u0000b"}`, `["body","name"]`},
			{"POST", "/agents", `{"name":"ok","agent_definition":{"child_steps":[{"id":"t","step_type":"text","text":"x\u0000"}]}}`,
				`["body","agent_definition","child_steps",0,"text"]`},
			{"POST", "/sources", `{"name":"a\u0000b","source_type":"custom_index"}`, `["body","name"]`},
			{"POST", "/memory_banks", `{"name":"a\u0000b"}`, `["body","name"]`},
			{"POST", "/knowledge_bases", `{"name":"kb","source_ids":["x","\u0000"]}`, `["body","source_ids",1]`},
			{"PUT", "/secrets/X", `{"value":"a\u0000b","hosts":["x.example"]}`, `["body","value"]`},
			{"POST", "/alerts/configs", `{"alert_type":"run_failed","threshold":{"note\u0000":1}}`, `["body","threshold","note\u0000"]`},
			{"GET", "/solutions?search=a%00b", ``, `["query","search"]`},
		} {
			var body any
			if c.body != "" {
				body = c.body
			}
			r := s.Do(t, c.method, c.path, s.Key, body)
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `"loc":`+c.loc) {
				t.Errorf("%s %s %s: %d %s", c.method, c.path, c.body, r.Status, r.Body)
			}
		}
		// An escaped backslash before u0000 is no NUL.
		r := s.Do(t, "POST", "/agents", s.Key, `{"name":"a\\u0000b"}`)
		wantStatus(t, r, http.StatusCreated)
	})
}
