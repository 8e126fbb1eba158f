package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestRerunFromAStep fixes a failed run's workflow and reruns it from the
// step that failed, from the run page: the new run reuses the step before
// (not executed again), runs the fixed step on the current version, and
// both pages link each other. Another account cannot.
func TestRerunFromAStep(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		var firstCalls atomic.Int32
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/first":
				firstCalls.Add(1)
				w.Write([]byte("fetched"))
			case "/fail":
				http.Error(w, "broken", http.StatusBadRequest)
			default:
				w.Write([]byte("fixed"))
			}
		}))
		t.Cleanup(hook.Close)
		def := func(second string) json.RawMessage {
			b, _ := json.Marshal(map[string]any{"child_steps": []any{map[string]any{
				"id": "fetch", "step_type": "webhook_call", "url": hook.URL + "/first", "child_steps": []any{map[string]any{
					"id": "post", "step_type": "webhook_call", "url": hook.URL + second, "child_steps": []any{map[string]any{
						"id": "show", "step_type": "display_result", "template": "{{step.fetch.output}} {{step.post.output}}"}}}}}}})
			return b
		}
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		agent := srv.StoreAgent(t, srv.AccountID, "Poster", string(def("/fail")), "dynamic_input")
		failed, err := api.RunAndWait(ctx, agent, client.AgentRunRequest{Input: "x"})
		if err != nil || failed.Status != client.RunFailed {
			t.Fatal(failed, err)
		}

		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		p := b.get("/console/runs/" + failed.RunID)
		p.mustContain(t, "Rerun from this step", `name="from_step" value="post"`, "Version")

		// The fix, saved as a new version; then the rerun from "post".
		cur, err := api.GetAgentDefinition(ctx, agent)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := api.UpdateAgentDefinition(ctx, agent, cur.ChangeID, def("/ok")); err != nil {
			t.Fatal(err)
		}
		p = b.post("/console/runs/"+failed.RunID+"/rerun-from", url.Values{"from_step": {"post"}, "version": {"current"}})
		newID := strings.TrimPrefix(p.URL, "/console/runs/")
		if newID == p.URL || newID == failed.RunID {
			t.Fatalf("rerun went to %s: %s", p.URL, p.Body)
		}
		done := waitStatus(t, api, newID, client.RunCompleted)
		if done.OutputText() != "fetched fixed" || done.RerunOf != failed.RunID {
			t.Fatalf("rerun: %+v", done)
		}
		if n := firstCalls.Load(); n != 1 {
			t.Fatalf("the step before was executed %d times, want once", n)
		}
		b.get("/console/runs/"+newID).mustContain(t, "Rerun of", failed.RunID, "reused")
		b.get("/console/runs/"+failed.RunID).mustContain(t, "Reruns", "/console/runs/"+newID)

		// A step that never ran is a notice on the page, not an error page.
		p = b.post("/console/runs/"+failed.RunID+"/rerun-from", url.Values{"from_step": {"nowhere"}})
		p.mustContain(t, "Could not rerun from nowhere")

		// Another account: a 404.
		other := srv.NewTenant(t, "other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		ob.get("/console/runs")
		if p := ob.post("/console/runs/"+failed.RunID+"/rerun-from", url.Values{"from_step": {"post"}}); p.Status != http.StatusNotFound {
			t.Fatalf("rerun for another account: %d", p.Status)
		}
	})
}
