package conformance

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/testserver"
	"github.com/agentry/agentry/internal/version"
)

// Agents: the fifteen agent operations.

const agMissing = "01234567-89ab-7def-8123-456789abcdef"

// agCreate creates an agent over HTTP in the exercise's account.
func agCreate(t *testing.T, e *Env, body map[string]any) string {
	t.Helper()
	r := e.Do(t, http.MethodPost, "/agents", body)
	if r.Status != http.StatusCreated {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	var a struct {
		ID string `json:"id"`
	}
	r.JSON(t, &a)
	return a.ID
}

// agWithAgent is a Setup with one agent made from a template that reads
// its input (so it accepts uploads).
func agWithAgent(t *testing.T, e *Env) Vars {
	return Vars{"agent_id": agCreate(t, e, map[string]any{"name": "conformance", "agent_template": "simple_qa"})}
}

// agWithCaller is a Setup with a callee and a live agent calling it.
func agWithCaller(t *testing.T, e *Env) Vars {
	callee := agCreate(t, e, map[string]any{"name": "callee"})
	caller := agCreate(t, e, map[string]any{"name": "caller"})
	d := agDefinition(t, e, caller)
	r := e.Do(t, http.MethodPut, "/agents/"+caller+"/definition", map[string]any{"expected_change_id": d,
		"definition": map[string]any{"child_steps": []any{map[string]any{"id": "c", "name": "Call", "step_type": "call_agent", "agent_id": callee}}}})
	if r.Status != http.StatusOK {
		t.Fatalf("put definition: %d %s", r.Status, r.Body)
	}
	return Vars{"agent_id": callee, "caller_id": caller}
}

// agDefinition returns an agent's change id.
func agDefinition(t *testing.T, e *Env, id string) string {
	t.Helper()
	var d struct {
		ChangeID string `json:"change_id"`
	}
	e.Do(t, http.MethodGet, "/agents/"+id+"/definition", nil).JSON(t, &d)
	return d.ChangeID
}

func agWithChangeID(t *testing.T, e *Env) Vars {
	v := agWithAgent(t, e)
	v["change_id"] = agDefinition(t, e, v["agent_id"])
	return v
}

// agExport is a Setup with an agent and its export in Vars["export"].
func agExport(t *testing.T, e *Env) Vars {
	v := agWithCaller(t, e)
	r := e.Do(t, http.MethodGet, "/agents/"+v["caller_id"]+"/export?download=false", nil)
	v["export"] = string(r.Body)
	return v
}

// agUploaded is a Setup with an upload that finished processing.
func agUploaded(t *testing.T, e *Env) Vars {
	v := agWithAgent(t, e)
	r := e.Do(t, http.MethodPost, "/agents/"+v["agent_id"]+"/upload-input", agUploadBody, "Content-Type: "+agUploadType)
	var u struct {
		ID string `json:"id"`
	}
	r.JSON(t, &u)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := e.S.Agents.Upload(context.Background(), e.Tenant.AccountID, v["agent_id"], u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != "processing" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("upload still processing")
		}
		time.Sleep(20 * time.Millisecond)
	}
	v["upload_id"] = u.ID
	return v
}

const agUploadType = "multipart/form-data; boundary=conformanceboundary"

const agUploadBody = "--conformanceboundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\n" +
	"Content-Type: text/plain\r\n\r\nhello conformance\r\n--conformanceboundary--\r\n"

var agStrict = []string{version.Header + ": " + version.StrictEnvelope}

func agWantBody(substr string) func(t *testing.T, e *Env, r testserver.Response) {
	return func(t *testing.T, _ *Env, r testserver.Response) {
		if !strings.Contains(string(r.Body), substr) {
			t.Errorf("body lacks %q: %s", substr, r.Body)
		}
	}
}

func init() {
	register(
		Exercise{Op: "GET /agents", Name: "list", Status: http.StatusOK, Setup: agWithAgent, Check: agWantBody(`"total":1`)},
		Exercise{Op: "GET /agents", Name: "second page", Status: http.StatusOK, Setup: agWithCaller, Path: "/agents?page=2&limit=1"},
		Exercise{Op: "GET /agents", Name: "envelope at the strict version", Status: http.StatusOK, Setup: agWithAgent,
			Headers: agStrict, Schema: Envelope("AgentSummaryResponse")},
		Exercise{Op: "GET /agents", Name: "limit over 100", Status: http.StatusUnprocessableEntity, Path: "/agents?limit=101",
			Check: expectLoc("query", "limit")},

		Exercise{Op: "POST /agents", Name: "blank", Status: http.StatusCreated, Body: map[string]any{"name": "blank"},
			Check: agWantBody(`"import_warnings":null`)},
		Exercise{Op: "POST /agents", Name: "template and trigger", Status: http.StatusCreated,
			Body: map[string]any{"name": "report", "agent_template": "scheduled_report", "trigger_type": "schedule", "description": "weekly"}},
		Exercise{Op: "POST /agents", Name: "import an export", Status: http.StatusCreated, Setup: agExport,
			Body:  func(v Vars) any { return `{"name": "copy", "agent_definition": ` + v["export"] + `}` },
			Check: agWantBody(`"import_warnings":[]`)},
		Exercise{Op: "POST /agents", Name: "invalid import", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"name": "x", "agent_definition": map[string]any{"child_steps": []any{
				map[string]any{"id": "r", "name": "R", "step_type": "retry", "target_step_id": "r", "max_retries": 11}}}},
			Check: agWantBody(`"error":"invalid_agent_definition"`)},
		Exercise{Op: "POST /agents", Name: "name missing", Status: http.StatusUnprocessableEntity, Body: map[string]any{},
			Check: expectLoc("body", "name")},
		Exercise{Op: "POST /agents", Name: "unknown template", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"name": "x", "agent_template": "nope"}, Check: expectLoc("body", "agent_template")},

		Exercise{Op: "POST /agents/preview-import", Name: "preview", Status: http.StatusOK, Setup: agExport,
			Body: func(v Vars) any { return `{"agent_definition": ` + v["export"] + `}` }, Check: agWantBody(`"ok":true`)},
		Exercise{Op: "POST /agents/preview-import", Name: "unresolved reference", Status: http.StatusOK,
			Body: map[string]any{"agent_definition": map[string]any{"child_steps": []any{
				map[string]any{"id": "c", "name": "C", "step_type": "call_agent", "agent_id": agMissing}}}},
			Check: agWantBody(`"category":"agent"`)},
		Exercise{Op: "POST /agents/preview-import", Name: "invalid payload", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"agent_definition": map[string]any{"agent": map[string]any{}}}},

		Exercise{Op: "GET /agents/{agent_id}", Name: "own agent", Status: http.StatusOK, Setup: agWithAgent},
		Exercise{Op: "GET /agents/{agent_id}", Name: "unknown agent", Status: http.StatusNotFound, Path: "/agents/" + agMissing},
		Exercise{Op: "GET /agents/{agent_id}", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/agents/not-a-uuid",
			Check: expectLoc("path", "agent_id")},

		Exercise{Op: "PUT /agents/{agent_id}", Name: "settings", Status: http.StatusOK, Setup: agWithAgent,
			Body: map[string]any{"name": "renamed", "max_retries": 5, "set_default_evaluation_tier": true, "prompt_model_auto_rollback_triggers": []string{"agent_run_failed"}}},
		Exercise{Op: "PUT /agents/{agent_id}", Name: "replace the workflow from an export", Status: http.StatusOK, Setup: agExport,
			Path: "/agents/{caller_id}", Body: func(v Vars) any { return `{"agent_definition": ` + v["export"] + `}` }},
		Exercise{Op: "PUT /agents/{agent_id}", Name: "nothing to change", Status: http.StatusUnprocessableEntity, Setup: agWithAgent,
			Body: map[string]any{}},
		Exercise{Op: "PUT /agents/{agent_id}", Name: "unknown agent", Status: http.StatusNotFound, Path: "/agents/" + agMissing,
			Body: map[string]any{"name": "x"}},

		Exercise{Op: "DELETE /agents/{agent_id}", Name: "delete", Status: http.StatusNoContent, Setup: agWithAgent,
			Check: func(t *testing.T, e *Env, _ testserver.Response) {
				if r := e.Do(t, http.MethodGet, Fill("/agents/{agent_id}", e.Vars), nil); r.Status != http.StatusNotFound {
					t.Errorf("deleted agent answers %d", r.Status)
				}
			}},
		Exercise{Op: "DELETE /agents/{agent_id}", Name: "unknown agent", Status: http.StatusNotFound, Path: "/agents/" + agMissing},
		Exercise{Op: "DELETE /agents/{agent_id}", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/agents/x"},

		Exercise{Op: "GET /agents/{agent_id}/definition", Name: "definition", Status: http.StatusOK, Setup: agWithAgent,
			Check: agWantBody(`"change_id"`)},
		Exercise{Op: "GET /agents/{agent_id}/definition", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/agents/x/definition"},
		Exercise{Op: "GET /agents/{agent_id}/definition", Name: "unknown agent", Status: http.StatusNotFound, Path: "/agents/" + agMissing + "/definition"},

		Exercise{Op: "PUT /agents/{agent_id}/definition", Name: "replace", Status: http.StatusOK, Setup: agWithChangeID,
			Body: func(v Vars) any {
				return map[string]any{"expected_change_id": v["change_id"], "definition": map[string]any{"name": "n", "child_steps": []any{
					map[string]any{"id": "t", "name": "T", "step_type": "text", "text": "hi"}}}}
			}},
		Exercise{Op: "PUT /agents/{agent_id}/definition", Name: "stale change id", Status: http.StatusConflict, Setup: agWithAgent,
			Body: map[string]any{"expected_change_id": agMissing, "definition": map[string]any{"child_steps": []any{}}}},
		Exercise{Op: "PUT /agents/{agent_id}/definition", Name: "invalid definition", Status: http.StatusUnprocessableEntity, Setup: agWithChangeID,
			Body: func(v Vars) any {
				return map[string]any{"expected_change_id": v["change_id"], "definition": map[string]any{"child_steps": []any{
					map[string]any{"id": "x", "step_type": "teleport"}}}}
			}, Check: agWantBody(`"loc":["body","definition","child_steps",0,"step_type"]`)},

		Exercise{Op: "GET /agents/{agent_id}/export", Name: "download", Status: http.StatusOK, Setup: agWithCaller, Path: "/agents/{caller_id}/export",
			Check: func(t *testing.T, _ *Env, r testserver.Response) {
				if !strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment;") {
					t.Errorf("Content-Disposition %q", r.Header.Get("Content-Disposition"))
				}
			}},
		Exercise{Op: "GET /agents/{agent_id}/export", Name: "inline", Status: http.StatusOK, Setup: agWithAgent, Path: "/agents/{agent_id}/export?download=false"},
		Exercise{Op: "GET /agents/{agent_id}/export", Name: "bad flag", Status: http.StatusUnprocessableEntity, Setup: agWithAgent,
			Path: "/agents/{agent_id}/export?download=perhaps", Check: expectLoc("query", "download")},

		Exercise{Op: "POST /agents/{agent_id}/disable", Name: "pause", Status: http.StatusOK, Setup: agWithAgent, Check: agWantBody(`"disabled_reason":"manual"`)},
		Exercise{Op: "POST /agents/{agent_id}/disable", Name: "live caller", Status: http.StatusConflict, Setup: agWithCaller},
		Exercise{Op: "POST /agents/{agent_id}/disable", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/agents/x/disable"},

		Exercise{Op: "POST /agents/{agent_id}/enable", Name: "resume", Status: http.StatusOK,
			Setup: func(t *testing.T, e *Env) Vars {
				v := agWithAgent(t, e)
				e.Do(t, http.MethodPost, "/agents/"+v["agent_id"]+"/disable", nil)
				return v
			}, Check: agWantBody(`"disabled":false`)},
		Exercise{Op: "POST /agents/{agent_id}/enable", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/agents/x/enable"},

		Exercise{Op: "GET /agents/{agent_id}/callers", Name: "callers", Status: http.StatusOK, Setup: agWithCaller, Check: agWantBody(`"name":"caller"`)},
		Exercise{Op: "GET /agents/{agent_id}/callers", Name: "envelope at the strict version", Status: http.StatusOK, Setup: agWithCaller,
			Headers: agStrict, Schema: Envelope("AgentCallerApiResponse")},
		Exercise{Op: "GET /agents/{agent_id}/callers", Name: "malformed id", Status: http.StatusUnprocessableEntity, Path: "/agents/x/callers"},

		Exercise{Op: "GET /agents/{agent_id}/attachment-references", Name: "contract", Status: http.StatusOK, Setup: agWithAgent,
			Check: agWantBody(`"requires_uploads":true`)},
		Exercise{Op: "GET /agents/{agent_id}/attachment-references", Name: "malformed id", Status: http.StatusUnprocessableEntity,
			Path: "/agents/x/attachment-references"},

		Exercise{Op: "POST /agents/{agent_id}/upload-input", Name: "upload", Status: http.StatusAccepted, Setup: agWithAgent,
			Body: []byte(agUploadBody), Headers: []string{"Content-Type: " + agUploadType}, Check: agWantBody(`"status":"processing"`)},
		Exercise{Op: "POST /agents/{agent_id}/upload-input", Name: "no file part", Status: http.StatusUnprocessableEntity, Setup: agWithAgent,
			Body: []byte("--conformanceboundary--\r\n"), Headers: []string{"Content-Type: " + agUploadType}, Check: expectLoc("body", "file")},
		Exercise{Op: "POST /agents/{agent_id}/upload-input", Name: "agent reads no input", Status: http.StatusBadRequest,
			Setup: func(t *testing.T, e *Env) Vars {
				return Vars{"agent_id": agCreate(t, e, map[string]any{"name": "blank"})}
			},
			Body: []byte(agUploadBody), Headers: []string{"Content-Type: " + agUploadType}},

		Exercise{Op: "GET /agents/{agent_id}/input-uploads/{upload_id}", Name: "status", Status: http.StatusOK, Setup: agUploaded,
			Check: agWantBody(`"status":"ready"`)},
		Exercise{Op: "GET /agents/{agent_id}/input-uploads/{upload_id}", Name: "unknown upload", Status: http.StatusNotFound, Setup: agWithAgent,
			Path: "/agents/{agent_id}/input-uploads/" + agMissing},
		Exercise{Op: "GET /agents/{agent_id}/input-uploads/{upload_id}", Name: "malformed upload id", Status: http.StatusUnprocessableEntity, Setup: agWithAgent,
			Path: "/agents/{agent_id}/input-uploads/x", Check: expectLoc("path", "upload_id")},
	)
	waive("POST /agents", http.StatusPaymentRequired, "no subscription plan limits the number of agents")
}
