package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// hitCounter is a loopback webhook target that counts the calls of each
// path: how many times each step was executed. /fail answers 400.
type hitCounter struct {
	mu   sync.Mutex
	hits map[string]int
	srv  *httptest.Server
}

func newHitCounter(t *testing.T) *hitCounter {
	h := &hitCounter{hits: map[string]int{}}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.hits[r.URL.Path]++
		h.mu.Unlock()
		if r.URL.Path == "/fail" {
			http.Error(w, "broken", http.StatusBadRequest)
			return
		}
		w.Write([]byte("out" + r.URL.Path))
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hitCounter) count(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[path]
}

// sixSteps is a chain of six steps: three webhooks, a fourth whose URL is
// fourth, a text step and the result.
func sixSteps(base, fourth string) map[string]any {
	hook := func(id, path string, child any) map[string]any {
		return map[string]any{"id": id, "step_type": "webhook_call", "url": base + path, "child_steps": []any{child}}
	}
	show := map[string]any{"id": "s6", "step_type": "display_result", "template": "{{step.s1.output}} {{step.s3.output}} {{input}}"}
	s5 := map[string]any{"id": "s5", "step_type": "text", "text": "five({{input}})", "child_steps": []any{show}}
	return map[string]any{"name": "six", "child_steps": []any{hook("s1", "/s1", hook("s2", "/s2", hook("s3", "/s3", hook("s4", fourth, s5))))}}
}

func TestRerunFromStep(t *testing.T) {
	t.Parallel()
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		h := newHitCounter(t)
		v1def, _ := json.Marshal(sixSteps(h.srv.URL, "/fail"))
		agent := makeAgent(t, s, s.AccountID, string(v1def))

		r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "in"})
		var start runs.RunResponse
		r.JSON(t, &start)
		failed := waitRun(t, s, s.Key, start.RunID)
		if failed.Status != "failed" || !strings.Contains(strings.Join(stepIDs(failed), ","), "s4") {
			t.Fatalf("first run: %+v", failed)
		}
		v1 := failed.ChangeID

		// Rerunning a step that did not run, or on an unknown version, is refused.
		r = s.Do(t, "POST", "/agents/runs/"+failed.RunID+"/rerun", s.Key, map[string]any{"from_step": "s5"})
		wantLoc(t, r, "", "body", "from_step")
		r = s.Do(t, "POST", "/agents/runs/"+failed.RunID+"/rerun", s.Key, map[string]any{"from_step": "s4", "change_id": store.NewID()})
		wantLoc(t, r, "", "body", "change_id")
		r = s.Do(t, "POST", "/agents/runs/"+failed.RunID+"/rerun", s.Key, map[string]any{})
		wantLoc(t, r, "", "body", "from_step")

		// The fix: step 4 calls a working URL.
		v2 := putDef(t, s, agent, v1, sixSteps(h.srv.URL, "/s4"))
		r = s.Do(t, "POST", "/agents/runs/"+failed.RunID+"/rerun", s.Key, map[string]any{"from_step": "s4", "change_id": v2})
		wantStatus(t, r, http.StatusAccepted)
		var rs runs.RunResponse
		r.JSON(t, &rs)
		if rs.RerunOf != failed.RunID || rs.RerunFromStep != "s4" || rs.ChangeID != v2 || rs.Status != "pending" {
			t.Fatalf("rerun answer: %s", r.Body)
		}
		done := waitRun(t, s, s.Key, rs.RunID)
		if done.Status != "completed" || done.Output == nil || *done.Output != "out/s1 out/s3 five(out/s4)" {
			t.Fatalf("rerun: %+v", done)
		}
		// Steps 1-3 were not executed again: one call each, ever.
		for _, p := range []string{"/s1", "/s2", "/s3", "/s4", "/fail"} {
			if n := h.count(p); n != 1 {
				t.Errorf("%s called %d times, want 1", p, n)
			}
		}
		reused := map[string]bool{}
		for _, st := range done.Steps {
			reused[st.AgentStepID] = st.Reused
			if st.Reused && st.CreditsUsed != 0 {
				t.Errorf("reused step %s billed %v", st.AgentStepID, st.CreditsUsed)
			}
		}
		if !reused["s1"] || !reused["s2"] || !reused["s3"] || reused["s4"] || reused["s5"] || len(done.Steps) != 6 {
			t.Errorf("reused steps: %v (%d steps)", reused, len(done.Steps))
		}
		// Both runs show the link.
		r = s.Do(t, "GET", "/agents/runs/"+failed.RunID, s.Key, nil)
		var orig runs.RunResponse
		r.JSON(t, &orig)
		if len(orig.Reruns) != 1 || orig.Reruns[0] != rs.RunID {
			t.Errorf("original lists reruns %v", orig.Reruns)
		}

		// From step 5 with another input: nothing before it runs again.
		r = s.Do(t, "POST", "/agents/runs/"+done.RunID+"/rerun", s.Key, map[string]any{"from_step": "s5", "input": "changed"})
		wantStatus(t, r, http.StatusAccepted)
		r.JSON(t, &rs)
		again := waitRun(t, s, s.Key, rs.RunID)
		if again.Status != "completed" || *again.Output != "out/s1 out/s3 five(changed)" || again.ChangeID != v2 {
			t.Fatalf("rerun with input: %+v", again)
		}
		for _, p := range []string{"/s1", "/s2", "/s3", "/s4"} {
			if n := h.count(p); n != 1 {
				t.Errorf("after the second rerun %s called %d times, want 1", p, n)
			}
		}

		// Another account cannot rerun A's run.
		ten := s.NewTenant(t, "other")
		if r := s.Do(t, "POST", "/agents/runs/"+failed.RunID+"/rerun", ten.Key, map[string]any{"from_step": "s4"}); r.Status != http.StatusNotFound {
			t.Errorf("cross-account rerun: %d %s", r.Status, r.Body)
		}
	})
}

func stepIDs(r runs.RunResponse) []string {
	var out []string
	for _, s := range r.Steps {
		out = append(out, s.AgentStepID)
	}
	return out
}

// TestRerunCancelled cancels a rerun while its step waits on a webhook:
// it ends once, failed with "Run cancelled", with one done event.
func TestRerunCancelled(t *testing.T) {
	t.Parallel()
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		var waiting sync.Once
		started, release := make(chan struct{}), make(chan struct{})
		var (
			mu    sync.Mutex
			calls = map[string]int{}
		)
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			calls[r.URL.Path]++
			n := calls[r.URL.Path]
			mu.Unlock()
			if r.URL.Path == "/slow" && n > 1 {
				waiting.Do(func() { close(started) })
				select {
				case <-release:
				case <-r.Context().Done():
				}
				return
			}
			w.Write([]byte("ok" + r.URL.Path))
		}))
		defer hook.Close()
		defer close(release) // before the server closes: it waits for its handlers
		agent := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"a","step_type":"webhook_call","url":"`+hook.URL+`/a","child_steps":[
			{"id":"slow","step_type":"webhook_call","url":"`+hook.URL+`/slow"}]}]}`)
		r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "x"})
		var orig runs.RunResponse
		r.JSON(t, &orig)
		if done := waitRun(t, s, s.Key, orig.RunID); done.Status != "completed" {
			t.Fatalf("original: %+v", done)
		}
		r = s.Do(t, "POST", "/agents/runs/"+orig.RunID+"/rerun", s.Key, map[string]any{"from_step": "slow"})
		wantStatus(t, r, http.StatusAccepted)
		var rs runs.RunResponse
		r.JSON(t, &rs)
		select {
		case <-started:
		case <-time.After(20 * time.Second):
			t.Fatal("the rerun never reached its slow step")
		}
		wantStatus(t, s.Do(t, "DELETE", "/agents/runs/"+rs.RunID, s.Key, nil), http.StatusOK)
		done := waitRun(t, s, s.Key, rs.RunID)
		if done.Status != "failed" || len(done.Attempts) != 1 || done.Attempts[0].Error == nil || *done.Attempts[0].Error != "Run cancelled" {
			t.Fatalf("cancelled rerun: %+v", done)
		}
		evs, err := s.S.Bus.Read(context.Background(), s.AccountID, rs.RunID, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		ends := 0
		for _, e := range evs {
			if e.Type == "done" {
				ends++
			}
		}
		if ends != 1 {
			t.Errorf("%d done events, want 1", ends)
		}
		mu.Lock()
		defer mu.Unlock()
		if calls["/a"] != 1 {
			t.Errorf("step a ran %d times", calls["/a"])
		}
	})
}
