package isolation

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/testserver"
)

// agentOfA stores an agent in account A.
func agentOfA(t *testing.T, c *Ctx) string {
	t.Helper()
	return c.StoreAgent(t, c.A.AccountID, "A's agent", `{"child_steps":[{"id":"t","step_type":"text","text":"secret of A: {{input}}"}]}`, "dynamic_input")
}

// runOfA runs A's agent to completion and records a file on the run.
func runOfA(t *testing.T, c *Ctx) Vars {
	t.Helper()
	agent := agentOfA(t, c)
	r := c.AsA(t, http.MethodPost, "/agents/"+agent+"/runs", map[string]any{"input": "alpha"})
	var run struct {
		RunID string `json:"run_id"`
	}
	r.JSON(t, &run)
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := runs.NewRepo(c.DB, nil).Run(context.Background(), c.A.AccountID, run.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if runs.RunTerminal(got.Status) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("A's run did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	key := "runs/" + run.RunID + "/a.txt"
	ctx := context.Background()
	if _, err := c.S.Blobs.Put(ctx, key, "text/plain", strings.NewReader("A's file")); err != nil {
		t.Fatal(err)
	}
	if err := runs.NewRepo(c.DB, nil).AddRunAttachment(ctx, runs.RunAttachment{StorageKey: key, RunID: run.RunID, AccountID: c.A.AccountID, Name: "a.txt", ContentType: "text/plain"}); err != nil {
		t.Fatal(err)
	}
	return Vars{"agent_id": agent, "run_id": run.RunID, "attachment_id": base64.RawURLEncoding.EncodeToString([]byte(key))}
}

// noMatches checks a search found nothing.
func noMatches(t testing.TB, _ *Ctx, r testserver.Response) {
	t.Helper()
	var body struct{ Total int }
	r.JSON(t, &body)
	if body.Total != 0 || strings.Contains(string(r.Body), "secret of A") {
		t.Errorf("B's search found A's traces: %s", r.Body)
	}
}

func hasMatches(t testing.TB, _ *Ctx, r testserver.Response) {
	t.Helper()
	var body struct{ Total int }
	r.JSON(t, &body)
	if body.Total == 0 {
		t.Errorf("A's own search found nothing: %s", r.Body)
	}
}

// Runs: B can neither start, read, list, search, cancel nor download A's.
func init() {
	register(
		Case{Op: "POST /agents/{agent_id}/runs", Name: "B runs A's agent",
			Setup: func(t *testing.T, c *Ctx) Vars { return Vars{"agent_id": agentOfA(t, c)} },
			Body:  map[string]any{"input": "x"}, Expect: NotFound()},
		Case{Op: "POST /agents/{agent_id}/runs/stream", Name: "B streams A's agent",
			Setup: func(t *testing.T, c *Ctx) Vars { return Vars{"agent_id": agentOfA(t, c)} },
			Body:  map[string]any{"input": "x"}, Expect: NotFound()},
		Case{Op: "POST /agents/{agent_id}/runs/stream", Name: "B resumes A's stream",
			Setup:   runOfA,
			Headers: []string{"Last-Event-ID: {run_id}:0"},
			Body:    map[string]any{}, Expect: NotFound(), NoControl: true},
		Case{Op: "GET /agents/runs/{run_id}", Name: "B reads A's run", Setup: runOfA, Path: "/agents/runs/{run_id}?include_step_outputs=true", Expect: NotFound()},
		Case{Op: "GET /agents/{agent_id}/runs", Name: "B lists A's agent's runs", Setup: runOfA, Expect: NotFound()},
		Case{Op: "POST /agents/runs/search", Name: "B searches for A's traces", Setup: runOfA,
			Body: map[string]any{"query": "secret of A alpha"}, Expect: Status(http.StatusOK, noMatches), Control: Status(http.StatusOK, hasMatches)},
		Case{Op: "DELETE /agents/runs/{run_id}", Name: "B cancels A's run",
			Setup: func(t *testing.T, c *Ctx) Vars {
				r, err := runs.NewRepo(c.DB, nil).CreateRun(context.Background(), runs.Run{AccountID: c.A.AccountID, AgentID: agentOfA(t, c)})
				if err != nil {
					t.Fatal(err)
				}
				return Vars{"run_id": r.ID}
			},
			Expect: func(t testing.TB, c *Ctx, r testserver.Response) {
				NotFound()(t, c, r)
				if got, _ := runs.NewRepo(c.DB, nil).Run(context.Background(), c.A.AccountID, c.Vars["run_id"]); got.CancelRequested || got.Status != runs.RunPending {
					t.Errorf("B's cancel touched A's run: %+v", got)
				}
			}},
		Case{Op: "GET /v2/agent-runs/{run_id}/attachments/{attachment_id}", Name: "B downloads A's file", Setup: runOfA, Expect: NotFound()},
	)
}
