package api_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// recordRuns runs an agent n times (inputs q0…) and waits for each.
func recordRuns(t *testing.T, s *testserver.Server, agent string, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": fmt.Sprintf("q%d", i)})
		wantStatus(t, r, http.StatusOK)
		var st runs.RunResponse
		r.JSON(t, &st)
		waitRun(t, s, s.Key, st.RunID)
		ids = append(ids, st.RunID)
	}
	return ids
}

// waitUntil polls cond for up to 30 seconds.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRegressionCancel cancels a regression while its replays hang: the
// replays running are cancelled, none more starts, and it ends cancelled.
func TestRegressionCancel(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		release := make(chan struct{})
		hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hang" {
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}
			w.Write([]byte("ok"))
		}))
		t.Cleanup(hang.Close)
		t.Cleanup(func() { close(release) })
		agent := makeAgent(t, s, s.AccountID, fmt.Sprintf(`{"child_steps":[{"id":"hook","step_type":"webhook_call","url":%q}]}`, hang.URL+"/fast"))
		recordRuns(t, s, agent, 6)
		r := s.Do(t, "GET", "/agents/"+agent+"/definition", s.Key, nil)
		var cur struct {
			ChangeID string `json:"change_id"`
		}
		r.JSON(t, &cur)
		putDef(t, s, agent, cur.ChangeID, map[string]any{"child_steps": []any{map[string]any{"id": "hook", "step_type": "webhook_call", "url": hang.URL + "/hang"}}})

		r = s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{"last_runs": 6})
		wantStatus(t, r, http.StatusAccepted)
		var reg api.RegressionResponse
		r.JSON(t, &reg)
		// Wait for replays to be running (four at once by default).
		waitUntil(t, func() bool {
			r := s.Do(t, "GET", "/agents/"+agent+"/regressions/"+reg.RegressionID, s.Key, nil)
			var cur api.RegressionResponse
			r.JSON(t, &cur)
			return cur.Progress.Started >= 1
		})
		r = s.Do(t, "POST", "/agents/"+agent+"/regressions/"+reg.RegressionID+"/cancel", s.Key, nil)
		wantStatus(t, r, http.StatusOK)
		var asked api.RegressionResponse
		r.JSON(t, &asked)
		if !asked.CancelRequested {
			t.Errorf("cancel answer: %s", r.Body)
		}
		done := waitRegression(t, s, agent, reg.RegressionID)
		if done.Status != "cancelled" || done.EndedAt == nil || done.Progress.Started > 4 {
			t.Fatalf("cancelled: %+v", done.Progress)
		}
		for _, it := range done.Runs {
			if it.Status != "cancelled" {
				t.Errorf("item %+v, want cancelled", it)
			}
			if it.ReplayRunID != nil {
				run := waitRun(t, s, s.Key, *it.ReplayRunID)
				if run.Status != "failed" || !strings.Contains(runError(run), "cancelled") {
					t.Errorf("replay %s after cancel: %s %s", run.RunID, run.Status, runError(run))
				}
			}
		}
	})
}

// TestRegressionCredits refuses a regression whose estimate (what the
// recorded runs cost) exceeds the balance with the documented 402.
func TestRegressionCredits(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		agent := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"t","step_type":"text","text":"hi {{input}}"}]}`)
		ids := recordRuns(t, s, agent, 3)
		bal, err := billing.NewCredits(s.DB).Balance(t.Context(), s.AccountID)
		if err != nil {
			t.Fatal(err)
		}
		// The recorded runs cost more than the balance, together.
		for _, id := range ids {
			if _, err := s.DB.W.ExecContext(t.Context(), `UPDATE runs SET credits = $1 WHERE id = $2`, store.ToMicro(bal/2), id); err != nil {
				t.Fatal(err)
			}
		}
		r := s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{"last_runs": 3})
		wantStatus(t, r, http.StatusPaymentRequired)
		if !strings.Contains(string(r.Body), "insufficient_credits") || !strings.Contains(string(r.Body), "estimate") {
			t.Errorf("402 body: %s", r.Body)
		}
		// Two of them fit.
		r = s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{"run_ids": ids[:2]})
		wantStatus(t, r, http.StatusAccepted)
		var reg api.RegressionResponse
		r.JSON(t, &reg)
		if reg.EstimatedCredits != store.FromMicro(2*store.ToMicro(bal/2)) {
			t.Errorf("estimate %v for balance %v", reg.EstimatedCredits, bal)
		}
		if done := waitRegression(t, s, agent, reg.RegressionID); done.Report.Unchanged != 2 {
			t.Errorf("report %+v", done.Report)
		}
	})
}

// TestRegressionSendsNoMail replays a run whose send_email step mailed: the
// replay completes with the same output, and queues no mail.
func TestRegressionSendsNoMail(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s, sink, _ := mailServer(t, d)
		agent := s.StoreAgent(t, s.AccountID, "Weekly reporter", sendDef, "dynamic_input")
		ids := recordRuns(t, s, agent, 1)
		sink.Wait(t, 1)
		if _, _, err := s.S.Mail.MessageForStep(t.Context(), s.AccountID, ids[0], "mail"); err != nil {
			t.Fatalf("the recorded run queued no mail: %v", err)
		}
		r := s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{"run_ids": ids})
		wantStatus(t, r, http.StatusAccepted)
		var reg api.RegressionResponse
		r.JSON(t, &reg)
		done := waitRegression(t, s, agent, reg.RegressionID)
		if done.Report.Unchanged != 1 || done.Runs[0].ReplayRunID == nil {
			t.Fatalf("report: %+v", done)
		}
		_, _, err := s.S.Mail.MessageForStep(t.Context(), s.AccountID, *done.Runs[0].ReplayRunID, "mail")
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the replay queued mail (%v)", err)
		}
	})
}

// TestRegressionRaisesNoAlert replays a failed run of an agent with a
// run_failed alert: the original raised one; the replay, failing the
// same way, raises none.
func TestRegressionRaisesNoAlert(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		h := newHitCounter(t)
		agent := makeAgent(t, s, s.AccountID, fmt.Sprintf(`{"child_steps":[{"id":"hook","step_type":"webhook_call","url":%q}]}`, h.srv.URL+"/fail"))
		wantStatus(t, s.Do(t, "POST", "/alerts/configs", s.Key, map[string]any{"alert_type": "run_failed", "agent_id": agent, "cooldown_minutes": 0}), http.StatusCreated)
		var l struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		alerts := func() int {
			s.Do(t, "GET", "/alerts", s.Key, nil).JSON(t, &l)
			return len(l.Data)
		}
		ids := recordRuns(t, s, agent, 1)
		waitUntil(t, func() bool { return alerts() == 1 })
		// Resolved, so that another failure would open a new alert.
		wantStatus(t, s.Do(t, "POST", "/alerts/"+l.Data[0].ID+"/status", s.Key, map[string]any{"status": "resolved"}), http.StatusOK)
		r := s.Do(t, "POST", "/agents/"+agent+"/regressions", s.Key, map[string]any{"run_ids": ids})
		wantStatus(t, r, http.StatusAccepted)
		var reg api.RegressionResponse
		r.JSON(t, &reg)
		done := waitRegression(t, s, agent, reg.RegressionID)
		if done.Runs[0].ReplayStatus == nil || *done.Runs[0].ReplayStatus != "failed" || h.count("/fail") != 2 {
			t.Fatalf("replay: %+v", done.Runs[0])
		}
		// The original's alert came within a second of its end; give the
		// replay's (which must not come) twice that.
		time.Sleep(2 * time.Second)
		if n := alerts(); n != 1 {
			t.Errorf("%d alerts, want only the original run's", n)
		}
	})
}
