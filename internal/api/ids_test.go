package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/danielgtaylor/huma/v2"
)

// TestMalformedIDsAre422: a path id that is not a UUID is a 422 at
// ["path", name] on every operation — a malformed run_id used to be a 404
// while a malformed agent_id was a 422.
func TestMalformedIDsAre422(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := createAgent(t, s, s.Key, map[string]any{"name": "ids"}).ID
		const bad = "not-a-uuid"
		for _, c := range []struct{ method, path, param string }{
			{"GET", "/agents/runs/" + bad, "run_id"},
			{"DELETE", "/agents/runs/" + bad, "run_id"},
			{"GET", "/v2/agent-runs/" + bad + "/attachments/abc", "run_id"},
			{"GET", "/agents/" + bad + "/runs", "agent_id"},
			{"POST", "/agents/" + bad + "/runs", "agent_id"},
			{"POST", "/agents/" + bad + "/runs/stream", "agent_id"},
			{"GET", "/agents/" + bad, "agent_id"},
			{"GET", "/agents/" + bad + "/definition", "agent_id"},
			{"GET", "/agents/" + agent + "/input-uploads/" + bad, "upload_id"},
			{"GET", "/models/playground/experiments/" + bad, "experiment_id"},
			{"PATCH", "/models/alerts/" + bad + "/read", "alert_id"},
		} {
			var body any
			if c.method == "POST" {
				body = map[string]any{"input": "x"}
			}
			r := s.Do(t, c.method, c.path, s.Key, body)
			t.Run(c.method+" "+c.path, func(t *testing.T) { wantLoc(t, r, "uuid_parsing", "path", c.param) })
		}
		// A well-formed id that names nothing is still a 404.
		r := s.Do(t, "GET", "/agents/runs/01234567-89ab-7def-8123-456789abcdef", s.Key, nil)
		wantStatus(t, r, http.StatusNotFound)
	})
}

// TestEveryIDPathParameterIsAUUID guards new operations: every path
// parameter named *_id declares the uuid format, except those whose values
// are not UUIDs (catalog model ids, attachment keys).
func TestEveryIDPathParameterIsAUUID(t *testing.T) {
	t.Parallel()
	notUUID := map[string]bool{"model_id": true, "attachment_id": true}
	s := testserver.Start(t, store.SQLite)
	for path, item := range s.S.API.OpenAPI().Paths {
		for method, op := range map[string]*huma.Operation{"GET": item.Get, "POST": item.Post, "PUT": item.Put, "PATCH": item.Patch, "DELETE": item.Delete} {
			if op == nil {
				continue
			}
			for _, p := range op.Parameters {
				if p.In != "path" || !strings.HasSuffix(p.Name, "_id") || notUUID[p.Name] {
					continue
				}
				if p.Schema == nil || p.Schema.Format != "uuid" {
					t.Errorf("%s %s: path parameter %s does not declare format uuid", method, path, p.Name)
				}
			}
		}
	}
}
