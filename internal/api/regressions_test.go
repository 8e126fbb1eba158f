package api_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// answerer is a loopback webhook: /v1 answers "answer-<input>"; /v2 (the
// new version's URL) the same, except for inputs ending in 0 or 5, where
// it answers "wrong-<input>". It counts the calls of each path.
type answerer struct {
	mu    sync.Mutex
	calls map[string]int
	srv   *httptest.Server
}

func newAnswerer(t *testing.T) *answerer {
	a := &answerer{calls: map[string]int{}}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		in := string(b)
		a.mu.Lock()
		a.calls[r.URL.Path]++
		a.mu.Unlock()
		if r.URL.Path == "/v2" && (strings.HasSuffix(in, "0") || strings.HasSuffix(in, "5")) {
			w.Write([]byte("wrong-" + in))
			return
		}
		w.Write([]byte("answer-" + in))
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *answerer) count(path string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls[path]
}

func answerDef(base, path string) map[string]any {
	return map[string]any{"name": "answers", "child_steps": []any{map[string]any{"id": "hook", "step_type": "webhook_call",
		"url": base + path, "child_steps": []any{map[string]any{"id": "show", "step_type": "display_result",
			"template": "{{step.hook.output}}"}}}}}
}

func waitRegression(t *testing.T, s *testserver.Server, agent, id string) api.RegressionResponse {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := s.Do(t, "GET", "/agents/"+agent+"/regressions/"+id, s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var reg api.RegressionResponse
		r.JSON(t, &reg)
		if reg.Status == "completed" || reg.Status == "cancelled" {
			return reg
		}
		if time.Now().After(deadline) {
			t.Fatalf("regression still %s: %s", reg.Status, r.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRegressionOverTwentyRuns records 20 runs on v1, saves v2 (which
// answers wrong for a fifth of the inputs) and replays the 20 on it: the
// report names the 4 changed outputs side by side, the pass rates before
// (1) and after (0.8) by the agent's criterion, and the replays stay out
// of the run lists.
func TestRegressionOverTwentyRuns(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		h := newAnswerer(t)
		v1def, _ := json.Marshal(answerDef(h.srv.URL, "/v1"))
		agent := makeAgent(t, s, s.AccountID, string(v1def))
		r := s.Do(t, "POST", "/agents/"+agent+"/evaluation-criteria", s.Key, map[string]any{"step_id": "hook",
			"expectation_config": map[string]any{"contains": "answer"}})
		wantStatus(t, r, http.StatusCreated)

		var recorded []string
		for i := range 20 {
			r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": fmt.Sprintf("q%d", i)})
			wantStatus(t, r, http.StatusOK)
			var st runs.RunResponse
			r.JSON(t, &st)
			if done := waitRun(t, s, s.Key, st.RunID); done.Status != "completed" {
				t.Fatalf("recorded run %d: %+v", i, done)
			}
			recorded = append(recorded, st.RunID)
		}
		v1 := func() string {
			r := s.Do(t, "GET", "/agents/"+agent+"/versions", s.Key, nil)
			var page struct {
				Data []api.AgentVersionResponse `json:"data"`
			}
			r.JSON(t, &page)
			return page.Data[0].ChangeID
		}()
		v2 := putDef(t, s, agent, v1, answerDef(h.srv.URL, "/v2"))

		// Bad selections are 422s at the field.
		wantLoc(t, s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{}), "", "body", "last_runs")
		wantLoc(t, s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{"last_runs": 101}), "", "body", "last_runs")
		wantLoc(t, s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{"last_runs": 0}), "", "body", "last_runs")
		wantLoc(t, s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{"last_runs": 2, "run_ids": recorded[:1]}), "", "body", "run_ids")
		wantLoc(t, s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{"run_ids": []string{recorded[0], store.NewID()}}), "", "body", "run_ids", 1)
		wantLoc(t, s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{"run_ids": []string{recorded[0], recorded[0]}}), "", "body", "run_ids", 1)
		wantLoc(t, s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{"last_runs": 3, "change_id": store.NewID()}), "", "body", "change_id")
		// Another agent's run is no run of this agent.
		other := makeAgent(t, s, s.AccountID, string(v1def))
		wantLoc(t, s.Do(t, "POST", "/agents/"+other+"/regressions", s.Key, map[string]any{"run_ids": recorded[:1]}), "", "body", "run_ids", 0)
		wantLoc(t, s.Do(t, "POST", "/agents/"+other+"/regressions", s.Key, map[string]any{"last_runs": 5}), "", "body", "last_runs")
		wantStatus(t, s.Do(t, "POST", "/agents/"+store.NewID()+"/regressions", s.Key, map[string]any{"last_runs": 5}), http.StatusNotFound)

		r = s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{"last_runs": 20})
		wantStatus(t, r, http.StatusAccepted)
		var started api.RegressionResponse
		r.JSON(t, &started)
		if started.ChangeID != v2 || started.Progress.Total != 20 || started.Selection != "last_runs" {
			t.Fatalf("started: %s", r.Body)
		}
		reg := waitRegression(t, s, agent, started.RegressionID)
		rep := reg.Report
		if reg.Status != "completed" || reg.Progress.Finished != 20 || reg.Progress.Percent != 100 || rep.Changed != 4 || rep.Unchanged != 16 {
			t.Fatalf("report: %+v %+v", reg.Progress, rep)
		}
		if rep.PassRateBefore == nil || *rep.PassRateBefore != 1 || rep.PassRateAfter == nil || *rep.PassRateAfter != 0.8 {
			t.Errorf("pass rates %v → %v, want 1 → 0.8", rep.PassRateBefore, rep.PassRateAfter)
		}
		changed := map[string]bool{}
		replays := map[string]bool{}
		for _, it := range reg.Runs {
			if it.ReplayRunID == nil || it.Status != "done" || it.Outcome == nil {
				t.Fatalf("item %+v", it)
			}
			replays[*it.ReplayRunID] = true
			if *it.Outcome == "unchanged" {
				if it.SourceOutput != nil || *it.Similarity != 1 || !*it.ReplayPassed {
					t.Errorf("unchanged item %+v", it)
				}
				continue
			}
			changed[*it.SourceOutput] = true
			if !strings.HasPrefix(*it.ReplayOutput, "wrong-") || *it.Similarity >= 1 || *it.ReplayPassed || !*it.SourcePassed ||
				len(it.ReplayVerdicts) != 1 || it.ReplayVerdicts[0].Status != "failed" || it.SourceVerdicts[0].Status != "passed" {
				t.Errorf("changed item %+v", it)
			}
		}
		for _, want := range []string{"answer-q0", "answer-q5", "answer-q10", "answer-q15"} {
			if !changed[want] {
				t.Errorf("changed outputs %v lack %s", changed, want)
			}
		}
		if h.count("/v1") != 20 || h.count("/v2") != 20 {
			t.Errorf("calls: v1 %d v2 %d, want each recorded run replayed once", h.count("/v1"), h.count("/v2"))
		}
		// The replays are runs marked as such, out of the lists.
		for id := range replays {
			run, err := runs.NewRepo(s.DB, nil).Run(t.Context(), s.AccountID, id)
			if err != nil || run.RegressionID != reg.RegressionID || run.ChangeID != v2 {
				t.Fatalf("replay %s: %+v %v", id, run, err)
			}
		}
		r = s.Do(t, "GET", "/agents/runs?limit=100", s.Key, nil)
		for id := range replays {
			if strings.Contains(string(r.Body), id) {
				t.Fatalf("the account's run list shows replay %s", id)
			}
		}
		r = s.Do(t, "GET", "/agents/"+agent+"/runs?limit=100", s.Key, nil)
		for id := range replays {
			if strings.Contains(string(r.Body), id) {
				t.Fatalf("the agent's run list shows replay %s", id)
			}
		}
		// A regression that ended cannot be cancelled; the list shows it.
		wantStatus(t, s.Do(t, "POST", "/agents/"+agent+"/regressions/"+reg.RegressionID+"/cancel", s.Key, nil), http.StatusConflict)
		r = s.Do(t, "GET", "/agents/"+agent+"/regressions", s.Key, nil)
		var list struct {
			Data       []api.RegressionResponse `json:"data"`
			Pagination api.Pagination           `json:"pagination"`
		}
		r.JSON(t, &list)
		if len(list.Data) != 1 || list.Data[0].RegressionID != reg.RegressionID || list.Data[0].Runs != nil || list.Data[0].Report.Changed != 4 {
			t.Errorf("list: %s", r.Body)
		}
		// Another agent's path does not find it.
		wantStatus(t, s.Do(t, "GET", "/agents/"+other+"/regressions/"+reg.RegressionID, s.Key, nil), http.StatusNotFound)
	})
}
