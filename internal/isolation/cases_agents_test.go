package isolation

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/testserver"
)

// Agents: B can neither see, change, export, pause, nor upload to A's
// agents, nor reference them from a workflow of its own.

// agCreateAs creates an agent over HTTP as A (or B).
func agCreateAs(t *testing.T, do func(testing.TB, string, string, any, ...string) testserver.Response, body map[string]any) string {
	t.Helper()
	r := do(t, http.MethodPost, "/agents", body)
	if r.Status != http.StatusCreated {
		t.Fatalf("create agent: %d %s", r.Status, r.Body)
	}
	var a struct {
		ID string `json:"id"`
	}
	r.JSON(t, &a)
	return a.ID
}

// agOfA is a Setup with an agent of A whose workflow reads its input.
func agOfA(t *testing.T, c *Ctx) Vars {
	id := agCreateAs(t, c.AsA, map[string]any{"name": "A's agent", "description": "secret of A", "agent_template": "simple_qa"})
	var d struct {
		ChangeID string `json:"change_id"`
	}
	c.AsA(t, http.MethodGet, "/agents/"+id+"/definition", nil).JSON(t, &d)
	return Vars{"agent_id": id, "change_id": d.ChangeID}
}

// agCallingPayload is a workflow calling A's agent.
func agCallingPayload(v Vars) any {
	return map[string]any{"name": "caller", "agent_definition": map[string]any{"child_steps": []any{
		map[string]any{"id": "c", "name": "Call", "step_type": "call_agent", "agent_id": v["agent_id"]}}}}
}

// agUnchanged checks, after B's 404, that A's agent is as A left it.
func agUnchanged(t testing.TB, c *Ctx, r testserver.Response) {
	t.Helper()
	NotFound()(t, c, r)
	got := c.AsA(t, http.MethodGet, "/agents/"+c.Vars["agent_id"], nil)
	var a struct {
		Name     string `json:"name"`
		Disabled bool   `json:"disabled"`
	}
	got.JSON(t, &a)
	if got.Status != http.StatusOK || a.Name != "A's agent" || a.Disabled != (c.Vars["paused"] == "yes") {
		t.Errorf("B's attempt changed A's agent: %d %s", got.Status, got.Body)
	}
	var d struct {
		ChangeID string `json:"change_id"`
	}
	c.AsA(t, http.MethodGet, "/agents/"+c.Vars["agent_id"]+"/definition", nil).JSON(t, &d)
	if d.ChangeID != c.Vars["change_id"] {
		t.Error("B's attempt changed A's definition")
	}
}

const agUploadType = "multipart/form-data; boundary=isolationboundary"

const agUploadBody = "--isolationboundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.txt\"\r\n\r\nfrom B\r\n--isolationboundary--\r\n"

// agUploadOfA is a Setup with A's agent and an upload of A's, processed.
func agUploadOfA(t *testing.T, c *Ctx) Vars {
	v := agOfA(t, c)
	r := c.AsA(t, http.MethodPost, "/agents/"+v["agent_id"]+"/upload-input", agUploadBody, "Content-Type: "+agUploadType)
	var u struct {
		ID string `json:"id"`
	}
	r.JSON(t, &u)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var st struct{ Status string }
		c.AsA(t, http.MethodGet, "/agents/"+v["agent_id"]+"/input-uploads/"+u.ID, nil).JSON(t, &st)
		if st.Status != "processing" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	v["upload_id"] = u.ID
	return v
}

func init() {
	register(
		Case{Op: "GET /agents", Name: "B lists agents", Setup: agOfA, Expect: EmptyList("data"), Control: NonEmptyList("data")},
		Case{Op: "GET /agents", Name: "B lists agents in the envelope", Setup: agOfA, Headers: []string{"Service-Version: 2026-07-27"},
			Expect: EmptyList("data"), Control: NonEmptyList("data")},
		Case{Op: "POST /agents", Name: "B imports a workflow calling A's agent", Setup: agOfA, Body: agCallingPayload,
			Expect: Status(http.StatusUnprocessableEntity, func(t testing.TB, _ *Ctx, r testserver.Response) {
				if !strings.Contains(string(r.Body), "invalid_agent_definition") || !strings.Contains(string(r.Body), "does not exist") {
					t.Errorf("B's import of a reference to A's agent: %s", r.Body)
				}
			}),
			Control: Status(http.StatusCreated)},
		Case{Op: "POST /agents/preview-import", Name: "B previews a workflow calling A's agent", Setup: agOfA,
			Body: func(v Vars) any {
				return map[string]any{"agent_definition": agCallingPayload(v).(map[string]any)["agent_definition"]}
			},
			Expect: Status(http.StatusOK, func(t testing.TB, c *Ctx, r testserver.Response) {
				var p struct {
					UnresolvedRefs []struct {
						RefID        string            `json:"ref_id"`
						Alternatives []json.RawMessage `json:"alternatives"`
					} `json:"unresolved_refs"`
				}
				r.JSON(t, &p)
				if len(p.UnresolvedRefs) != 1 || p.UnresolvedRefs[0].RefID != c.Vars["agent_id"] || len(p.UnresolvedRefs[0].Alternatives) != 0 ||
					strings.Contains(string(r.Body), "A's agent") {
					t.Errorf("B's preview resolved or offered A's agent: %s", r.Body)
				}
			}),
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				if !strings.Contains(string(r.Body), `"unresolved_refs":[]`) {
					t.Errorf("A's own agent is unresolved for A: %s", r.Body)
				}
			})},
		Case{Op: "GET /agents/{agent_id}", Name: "B reads A's agent", Setup: agOfA, Expect: NotFound()},
		Case{Op: "PUT /agents/{agent_id}", Name: "B renames A's agent", Setup: agOfA, Body: map[string]any{"name": "A's agent"}, Expect: agUnchanged},
		Case{Op: "PUT /agents/{agent_id}", Name: "B replaces A's workflow", Setup: agOfA,
			Body: map[string]any{"agent_definition": map[string]any{"child_steps": []any{}}}, Expect: agUnchanged, NoControl: true},
		Case{Op: "DELETE /agents/{agent_id}", Name: "B deletes A's agent", Setup: agOfA, Expect: agUnchanged},
		Case{Op: "GET /agents/{agent_id}/definition", Name: "B reads A's workflow", Setup: agOfA, Expect: NotFound()},
		Case{Op: "PUT /agents/{agent_id}/definition", Name: "B replaces A's workflow", Setup: agOfA,
			Body: func(v Vars) any {
				return map[string]any{"expected_change_id": v["change_id"], "definition": map[string]any{"child_steps": []any{}}}
			}, Expect: agUnchanged},
		Case{Op: "GET /agents/{agent_id}/export", Name: "B exports A's agent", Setup: agOfA, Expect: NotFound()},
		Case{Op: "POST /agents/{agent_id}/disable", Name: "B pauses A's agent", Setup: agOfA, Expect: agUnchanged},
		Case{Op: "POST /agents/{agent_id}/enable", Name: "B resumes A's paused agent",
			Setup: func(t *testing.T, c *Ctx) Vars {
				v := agOfA(t, c)
				c.AsA(t, http.MethodPost, "/agents/"+v["agent_id"]+"/disable", nil)
				v["paused"] = "yes"
				return v
			}, Expect: agUnchanged},
		Case{Op: "GET /agents/{agent_id}/callers", Name: "B lists A's agent's callers", Setup: agOfA, Expect: NotFound()},
		Case{Op: "GET /agents/{agent_id}/attachment-references", Name: "B reads A's attachment contract", Setup: agOfA, Expect: NotFound()},
		Case{Op: "POST /agents/{agent_id}/upload-input", Name: "B uploads to A's agent", Setup: agOfA,
			Headers: []string{"Content-Type: " + agUploadType}, Body: agUploadBody, Expect: NotFound()},
		Case{Op: "GET /agents/{agent_id}/input-uploads/{upload_id}", Name: "B reads A's upload", Setup: agUploadOfA, Expect: NotFound()},
		Case{Op: "GET /agents/{agent_id}/input-uploads/{upload_id}", Name: "B reads A's upload under its own agent",
			Setup: func(t *testing.T, c *Ctx) Vars {
				v := agUploadOfA(t, c)
				v["b_agent"] = agCreateAs(t, c.AsB, map[string]any{"name": "B's agent", "agent_template": "simple_qa"})
				return v
			},
			Path: "/agents/{b_agent}/input-uploads/{upload_id}", Expect: NotFound(), NoControl: true},
	)
}
