package cli_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestRunsRerunCommand(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		var calls atomic.Int32
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.Write([]byte("fetched"))
		}))
		defer hook.Close()
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		agent := ts.StoreAgent(t, ts.AccountID, "r", `{"child_steps":[{"id":"fetch","step_type":"webhook_call","url":"`+hook.URL+`","child_steps":[
			{"id":"shape","step_type":"text","text":"shaped {{input}}","child_steps":[{"id":"show","step_type":"display_result"}]}]}]}`, "dynamic_input")

		var first client.AgentRunResponse
		run(t, append(g, "runs", "start", agent, "--input", "x", "--wait", "--interval", "20ms")...).ok(t, &first)
		if first.Status != client.RunCompleted || first.OutputText() != "shaped fetched" {
			t.Fatalf("first run: %+v", first)
		}
		var again client.AgentRunResponse
		run(t, append(g, "runs", "rerun", first.RunID, "--from-step", "shape", "--input", "by hand", "--wait", "--interval", "20ms")...).ok(t, &again)
		if again.Status != client.RunCompleted || again.OutputText() != "shaped by hand" || again.RerunOf != first.RunID || calls.Load() != 1 {
			t.Fatalf("rerun: %+v (webhook called %d times)", again, calls.Load())
		}
		tbl := run(t, append(g, "runs", "get", again.RunID, "--steps", "-o", "table")...)
		if !strings.Contains(tbl.stdout, "completed (reused)") || !strings.Contains(tbl.stdout, "Rerun of") {
			t.Errorf("table:\n%s", tbl.stdout)
		}
		run(t, append(g, "runs", "rerun", first.RunID)...).exits(t, cli.ExitUsage, "--from-step")
		run(t, append(g, "runs", "rerun", first.RunID, "--from-step", "nowhere")...).exits(t, cli.ExitValidation, "from_step")
	})
}
