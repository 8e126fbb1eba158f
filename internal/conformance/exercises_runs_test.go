package conformance

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/testserver"
)

const runsChain = `{"child_steps":[{"id":"greet","step_type":"text","text":"Hello {{input}}","child_steps":[{"id":"show","step_type":"display_result"}]}]}`

// runAgent stores an agent in the exercise's account.
func runAgent(t *testing.T, e *Env, def string) string {
	t.Helper()
	return e.StoreAgent(t, e.Tenant.AccountID, "conformance", def, "dynamic_input")
}

// finishedRun starts a run over HTTP and waits for it to complete.
func finishedRun(t *testing.T, e *Env) Vars {
	t.Helper()
	agent := runAgent(t, e, runsChain)
	r := e.Do(t, http.MethodPost, "/agents/"+agent+"/runs", map[string]any{"input": "conformance"})
	var run struct {
		RunID string `json:"run_id"`
	}
	r.JSON(t, &run)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := runs.NewRepo(e.DB, nil).Run(context.Background(), e.Tenant.AccountID, run.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if runs.RunTerminal(got.Status) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %s", run.RunID, got.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return Vars{"agent_id": agent, "run_id": run.RunID}
}

func withAgent(t *testing.T, e *Env) Vars { return Vars{"agent_id": runAgent(t, e, runsChain)} }

func broke(t *testing.T, e *Env) Vars {
	v := withAgent(t, e)
	ctx := context.Background()
	bal, _ := billing.NewCredits(e.DB).Balance(ctx, e.Tenant.AccountID)
	if _, err := billing.NewCredits(e.DB).Charge(ctx, e.Tenant.AccountID, bal, "conformance", ""); err != nil {
		t.Fatal(err)
	}
	return v
}

func withAttachment(t *testing.T, e *Env) Vars {
	v := finishedRun(t, e)
	ctx := context.Background()
	key := "runs/" + v["run_id"] + "/chart.png"
	if _, err := e.S.Blobs.Put(ctx, key, "image/png", strings.NewReader("\x89PNG")); err != nil {
		t.Fatal(err)
	}
	if err := runs.NewRepo(e.DB, nil).AddRunAttachment(ctx, runs.RunAttachment{StorageKey: key, RunID: v["run_id"], AccountID: e.Tenant.AccountID, Name: "chart.png", ContentType: "image/png", Size: 4}); err != nil {
		t.Fatal(err)
	}
	v["attachment_id"] = base64.RawURLEncoding.EncodeToString([]byte(key))
	return v
}

func wantStatusField(want string) func(t *testing.T, e *Env, r testserver.Response) {
	return func(t *testing.T, e *Env, r testserver.Response) {
		var body struct{ Status string }
		r.JSON(t, &body)
		if body.Status != want {
			t.Errorf("status %q, want %q: %s", body.Status, want, r.Body)
		}
	}
}

// Runs: the seven run operations.
func init() {
	register(
		Exercise{Op: "POST /agents/{agent_id}/runs", Name: "start", Status: http.StatusOK, Setup: withAgent,
			Body: map[string]any{"input": "hi", "metadata": map[string]any{"k": "v"}}, Check: wantStatusField("pending")},
		Exercise{Op: "POST /agents/{agent_id}/runs", Name: "priority", Status: http.StatusOK, Setup: withAgent,
			Body: map[string]any{"input": "hi", "priority": true}},
		Exercise{Op: "POST /agents/{agent_id}/runs", Name: "no credits", Status: http.StatusPaymentRequired, Setup: broke,
			Body: map[string]any{"input": "hi"}},
		Exercise{Op: "POST /agents/{agent_id}/runs", Name: "upload id not a uuid", Status: http.StatusUnprocessableEntity, Setup: withAgent,
			Body: map[string]any{"input_upload_id": "nope"}, Check: expectLoc("body", "input_upload_id")},
		Exercise{Op: "POST /agents/{agent_id}/runs", Name: "unknown agent", Status: http.StatusNotFound,
			Path: "/agents/01234567-89ab-7def-8123-456789abcdef/runs", Body: map[string]any{"input": "hi"}},

		Exercise{Op: "POST /agents/{agent_id}/runs/stream", Name: "stream to done", Status: http.StatusOK, Setup: withAgent,
			Body: map[string]any{"input": "hi"},
			Check: func(t *testing.T, e *Env, r testserver.Response) {
				body := string(r.Body)
				if !strings.HasPrefix(body, "id: ") || !strings.Contains(body, "event: init") || !strings.Contains(body, "event: done") {
					t.Errorf("stream: %s", body)
				}
			}},
		Exercise{Op: "POST /agents/{agent_id}/runs/stream", Name: "no credits", Status: http.StatusPaymentRequired, Setup: broke,
			Body: map[string]any{"input": "hi"}},
		Exercise{Op: "POST /agents/{agent_id}/runs/stream", Name: "too many uploads", Status: http.StatusUnprocessableEntity, Setup: withAgent,
			Body: map[string]any{"input_upload_ids": strings.Split(strings.Repeat("01234567-89ab-7def-8123-456789abcdef,", 21)[:21*37-1], ",")}},

		Exercise{Op: "GET /agents/runs/{run_id}", Name: "finished run with steps", Status: http.StatusOK, Setup: finishedRun,
			Path: "/agents/runs/{run_id}?include_step_outputs=true", Check: wantStatusField("completed")},
		Exercise{Op: "GET /agents/runs/{run_id}", Name: "bad flag", Status: http.StatusUnprocessableEntity, Setup: finishedRun,
			Path: "/agents/runs/{run_id}?include_step_outputs=maybe"},
		Exercise{Op: "GET /agents/runs/{run_id}", Name: "unknown run", Status: http.StatusNotFound,
			Path: "/agents/runs/01234567-89ab-7def-8123-456789abcdef"},

		Exercise{Op: "GET /agents/{agent_id}/runs", Name: "list", Status: http.StatusOK, Setup: finishedRun},
		Exercise{Op: "GET /agents/{agent_id}/runs", Name: "filtered at the strict version", Status: http.StatusOK, Setup: finishedRun,
			Path: "/agents/{agent_id}/runs?status=completed&page=1&limit=5", Headers: []string{"Service-Version: 2026-07-27"}},
		Exercise{Op: "GET /agents/{agent_id}/runs", Name: "limit out of range", Status: http.StatusUnprocessableEntity, Setup: withAgent,
			Path: "/agents/{agent_id}/runs?limit=1000", Check: expectLoc("query", "limit")},

		Exercise{Op: "POST /agents/runs/search", Name: "search", Status: http.StatusOK, Setup: finishedRun,
			Body: map[string]any{"query": "hello conformance", "top_n": 3}},
		Exercise{Op: "POST /agents/runs/search", Name: "query missing", Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"top_n": 3}, Check: expectLoc("body", "query")},

		Exercise{Op: "DELETE /agents/runs/{run_id}", Name: "finished run is refused", Status: http.StatusConflict, Setup: finishedRun},
		Exercise{Op: "DELETE /agents/runs/{run_id}", Name: "cancel a pending run", Status: http.StatusOK,
			Setup: func(t *testing.T, e *Env) Vars {
				agent := runAgent(t, e, runsChain)
				r, err := runs.NewRepo(e.DB, nil).CreateRun(context.Background(), runs.Run{AccountID: e.Tenant.AccountID, AgentID: agent})
				if err != nil {
					t.Fatal(err)
				}
				return Vars{"run_id": r.ID}
			}, Check: wantStatusField("failed")},

		Exercise{Op: "GET /v2/agent-runs/{run_id}/attachments/{attachment_id}", Name: "download", Status: http.StatusOK, Setup: withAttachment},
		Exercise{Op: "GET /v2/agent-runs/{run_id}/attachments/{attachment_id}", Name: "run id not a uuid", Status: http.StatusUnprocessableEntity,
			Path: "/v2/agent-runs/nope/attachments/eA"},
	)
	waive("DELETE /agents/runs/{run_id}", http.StatusUnprocessableEntity, "run_id is any string in the contract; an unknown one is a 404")
	waive("POST /agents/runs/search", http.StatusPaymentRequired, "search is not billed")
}
