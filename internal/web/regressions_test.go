package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// regressionHook is a loopback webhook: /v1 answers "answer-<input>"; /v2
// the same except for inputs ending in 0 ("wrong-<input>"); /hang answers
// "late-<input>" only once released (or the caller gives up).
func regressionHook(t testing.TB) (*httptest.Server, func()) {
	release := make(chan struct{})
	var once sync.Once
	releaseAll := func() { once.Do(func() { close(release) }) }
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		in := string(b)
		switch {
		case r.URL.Path == "/hang":
			select {
			case <-release:
			case <-r.Context().Done():
			}
			w.Write([]byte("late-" + in))
			return
		case r.URL.Path == "/v2" && strings.HasSuffix(in, "0"):
			w.Write([]byte("wrong-" + in))
			return
		}
		w.Write([]byte("answer-" + in))
	}))
	t.Cleanup(h.Close)
	t.Cleanup(releaseAll)
	return h, releaseAll
}

func hookDef(url string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"child_steps": []any{map[string]any{"id": "hook", "step_type": "webhook_call",
		"url": url, "child_steps": []any{map[string]any{"id": "show", "step_type": "display_result",
			"template": "{{step.hook.output}}"}}}}})
	return b
}

// recordedAgent is an agent with runs recorded on /v1 (inputs given),
// then a new version calling path.
func recordedAgent(t testing.TB, srv *testserver.Server, api *client.Client, base, path string, inputs ...string) (string, []string) {
	t.Helper()
	ctx := context.Background()
	agent := srv.StoreAgent(t, srv.AccountID, "Answers", string(hookDef(base+"/v1")), "dynamic_input")
	var ids []string
	for _, in := range inputs {
		run, err := api.RunAndWait(ctx, agent, client.AgentRunRequest{Input: in})
		if err != nil || run.Status != client.RunCompleted {
			t.Fatalf("recorded run %q: %+v %v", in, run, err)
		}
		ids = append(ids, run.RunID)
	}
	cur, err := api.GetAgentDefinition(ctx, agent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.UpdateAgentDefinition(ctx, agent, cur.ChangeID, hookDef(base+path)); err != nil {
		t.Fatal(err)
	}
	return agent, ids
}

// waitRegressionEnd polls a regression until it has ended.
func waitRegressionEnd(t testing.TB, api *client.Client, agent, id string) *client.Regression {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		reg, err := api.GetRegression(context.Background(), agent, id)
		if err != nil {
			t.Fatal(err)
		}
		if reg.Ended() {
			return reg
		}
		if time.Now().After(deadline) {
			t.Fatalf("regression still %s", reg.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRegressionPages starts a regression from the agent's regressions
// page, lands on its report and, once it has finished, reads there the
// changed output side by side with its original (escaped), with links to
// both runs; refusals are shown next to the form; another account sees a
// 404 everywhere.
func TestRegressionPages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		hook, _ := regressionHook(t)
		api := apiClient(t, srv, srv.Key)
		agent, recorded := recordedAgent(t, srv, api, hook.URL, "/v2", "<b>q0", "q1", "q2")

		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		b.get("/console/agents/"+agent).mustContain(t, `href="/console/agents/`+agent+`/regressions"`, `href="/console/agents/`+agent+`/assistant"`)
		base := "/console/agents/" + agent + "/regressions"
		p := b.get(base)
		p.mustContain(t, "No regression yet", `name="last_runs"`, `value="20"`, `name="run_ids"`, `name="change_id"`, `name="csrf"`)

		// Refusals, next to the form, with what was typed kept.
		p = b.post(base, url.Values{"mode": {"last"}, "last_runs": {"101"}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("last_runs 101: %d", p.Status)
		}
		p.mustContain(t, `class="problems"`, "<code>last_runs</code>", `value="101"`)
		p = b.post(base, url.Values{"mode": {"ids"}, "run_ids": {recorded[0] + "\n" + store.NewID()}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("unknown run id: %d", p.Status)
		}
		p.mustContain(t, `class="problems"`, "<code>run_ids[1]</code>")
		p = b.post(base, url.Values{"mode": {"last"}, "last_runs": {"3"}, "change_id": {store.NewID()}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("unknown change_id: %d", p.Status)
		}
		p.mustContain(t, "<code>change_id</code>")

		// Started from the form with its default (more than the 3 recorded
		// runs): the browser lands on its report.
		p = b.post(base, url.Values{"mode": {"last"}, "last_runs": {"20"}})
		rid := strings.TrimPrefix(p.URL, base+"/")
		if p.Status != http.StatusOK || rid == p.URL || strings.Contains(rid, "/") {
			t.Fatalf("start went to %s (%d): %s", p.URL, p.Status, p.Body)
		}
		p.mustContain(t, "Regression", "of 3 runs judged")
		reg := waitRegressionEnd(t, api, agent, rid)
		if reg.Status != "completed" || reg.Report.Changed != 1 {
			t.Fatalf("regression: %+v", reg)
		}
		var replay string
		for _, r := range reg.Runs {
			if r.SourceRunID == recorded[0] && r.ReplayRunID != nil {
				replay = *r.ReplayRunID
			}
		}
		if replay == "" {
			t.Fatalf("no replay of the changed run: %+v", reg.Runs)
		}
		p = b.get(base + "/" + rid)
		p.mustContain(t, "completed", "3 of 3 runs judged", "100.0%",
			"<pre>answer-&lt;b&gt;q0</pre>", "<pre>wrong-&lt;b&gt;q0</pre>",
			`href="/console/runs/`+recorded[0]+`"`, `href="/console/runs/`+replay+`"`)
		for _, no := range []string{"<b>q0", `hx-trigger="every 2s"`, `/cancel"`} {
			if strings.Contains(p.Body, no) {
				t.Fatalf("finished report has %q:\n%s", no, p.Body)
			}
		}
		// The polled block alone says the same.
		b.get(base+"/"+rid+"/live").mustContain(t, `id="regression-live"`, "<pre>wrong-&lt;b&gt;q0</pre>")
		// The list: newest first, with its figures.
		b.get(base).mustContain(t, base+"/"+rid, "completed", "3 of 3", "100.0%")
		// Cancelling an ended one changes nothing.
		b.get(base + "/" + rid)
		if p = b.post(base+"/"+rid+"/cancel", nil); p.Status != http.StatusOK || !strings.HasSuffix(p.URL, rid) {
			t.Fatalf("cancel of an ended one: %d at %s", p.Status, p.URL)
		}

		// Another account: every page and action is a 404.
		other := srv.NewTenant(t, "other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		for _, path := range []string{base, base + "/" + rid, base + "/" + rid + "/live"} {
			if p := ob.get(path); p.Status != http.StatusNotFound {
				t.Fatalf("%s for another account: %d", path, p.Status)
			}
		}
		ob.get("/console/runs")
		if p := ob.post(base, url.Values{"mode": {"last"}, "last_runs": {"3"}}); p.Status != http.StatusNotFound {
			t.Fatalf("start for another account: %d", p.Status)
		}
		if p := ob.post(base+"/"+rid+"/cancel", nil); p.Status != http.StatusNotFound {
			t.Fatalf("cancel for another account: %d", p.Status)
		}
	})
}

// TestRegressionCancelPage cancels a regression whose replays hang from
// its report: the report polls while it runs and offers Cancel; after it,
// the regression ends cancelled and the report stops polling.
func TestRegressionCancelPage(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		hook, _ := regressionHook(t)
		api := apiClient(t, srv, srv.Key)
		agent, recorded := recordedAgent(t, srv, api, hook.URL, "/hang", "q1", "q2")

		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		base := "/console/agents/" + agent + "/regressions"
		b.get(base)
		p := b.post(base, url.Values{"mode": {"ids"}, "run_ids": {recorded[1] + "\n" + recorded[0] + "\n"}})
		rid := strings.TrimPrefix(p.URL, base+"/")
		if p.Status != http.StatusOK || rid == p.URL {
			t.Fatalf("start went to %s (%d): %s", p.URL, p.Status, p.Body)
		}
		p.mustContain(t, `hx-trigger="every 2s"`, `hx-get="`+base+"/"+rid+`/live"`, `action="`+base+"/"+rid+`/cancel"`, "of 2 runs judged")

		// The polled block alone carries its Cancel form, token included.
		b.get(base+"/"+rid+"/live").mustContain(t, `hx-trigger="every 2s"`, `/cancel"`, `name="csrf" value="`)

		p = b.post(base+"/"+rid+"/cancel", nil)
		if p.Status != http.StatusOK || !strings.HasSuffix(p.URL, "/"+rid) {
			t.Fatalf("cancel went to %s (%d)", p.URL, p.Status)
		}
		if reg := waitRegressionEnd(t, api, agent, rid); reg.Status != "cancelled" {
			t.Fatalf("after cancel: %s", reg.Status)
		}
		p = b.get(base + "/" + rid)
		p.mustContain(t, "cancelled")
		if strings.Contains(p.Body, `hx-trigger="every 2s"`) || strings.Contains(p.Body, `/cancel"`) {
			t.Fatalf("a cancelled report still polls or offers Cancel:\n%s", p.Body)
		}
		b.get(base).mustContain(t, base+"/"+rid, "cancelled")
	})
}

// TestRegressionRefusedOnThePage shows the API's 402 (the estimate over the
// balance) and 409 (a paused agent) next to the form, keeping what was typed.
func TestRegressionRefusedOnThePage(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		hook, _ := regressionHook(t)
		api := apiClient(t, srv, srv.Key)
		agent, recorded := recordedAgent(t, srv, api, hook.URL, "/v2", "q1", "q2")
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		base := "/console/agents/" + agent + "/regressions"
		b.get(base)

		// What the recorded runs cost, together, is more than the balance.
		bal, err := billing.NewCredits(srv.DB).Balance(t.Context(), srv.AccountID)
		if err != nil {
			t.Fatal(err)
		}
		setCredits := func(v float64) {
			for _, id := range recorded {
				if _, err := srv.DB.W.ExecContext(t.Context(), `UPDATE runs SET credits = $1 WHERE id = $2`, store.ToMicro(v), id); err != nil {
					t.Fatal(err)
				}
			}
		}
		setCredits(bal)
		p := b.post(base, url.Values{"mode": {"last"}, "last_runs": {"2"}})
		if p.Status != http.StatusPaymentRequired {
			t.Fatalf("over the balance: %d", p.Status)
		}
		p.mustContain(t, `class="problems"`, "balance does not cover", `value="2"`)
		setCredits(0)

		if _, err := api.DisableAgent(t.Context(), agent); err != nil {
			t.Fatal(err)
		}
		p = b.post(base, url.Values{"mode": {"ids"}, "run_ids": {recorded[0]}})
		if p.Status != http.StatusConflict {
			t.Fatalf("paused agent: %d", p.Status)
		}
		p.mustContain(t, `class="problems"`, recorded[0], "No regression yet")
	})
}
