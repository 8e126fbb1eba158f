package alerts_test

import (
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/runs"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// statusOf finds one alert of a type in the list.
func statusOf(t *testing.T, l alertList, alertType string) (id, status string) {
	t.Helper()
	for _, a := range l.Data {
		if a.AlertType == alertType {
			return a.ID, a.Status
		}
	}
	t.Fatalf("no %s alert in %+v", alertType, l.Data)
	return "", ""
}

// Condition alerts resolve themselves once their detector sees the
// condition gone; per-event alerts stay open.
func TestConditionAlertsResolve(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		agent := okAgent(t, s, s.AccountID)
		createConfig(t, s, s.Key, map[string]any{"alert_type": "consecutive_failures", "agent_id": agent, "threshold": map[string]any{"count": 2}})
		createConfig(t, s, s.Key, map[string]any{"alert_type": "error_rate_spike", "agent_id": agent,
			"threshold": map[string]any{"rate": 0.5, "min_runs": 2, "window_minutes": 10}})
		createConfig(t, s, s.Key, map[string]any{"alert_type": "run_failed", "agent_id": agent, "cooldown_minutes": 0})
		storeRun(t, s, s.AccountID, agent, runs.RunFailed, 0)
		storeRun(t, s, s.AccountID, agent, runs.RunFailed, 0)
		if _, err := s.S.Alerts.DetectRuns(ctx); err != nil {
			t.Fatal(err)
		}
		l := listAlerts(t, s, s.Key, "?limit=100")
		for _, typ := range []string{"consecutive_failures", "error_rate_spike", "run_failed"} {
			if _, st := statusOf(t, l, typ); st != "triggered" {
				t.Fatalf("%s: %s", typ, st)
			}
		}
		// Two successes: no longer two failures in a row, and 2 of 4 is
		// still a 50% rate (the spike holds).
		storeRun(t, s, s.AccountID, agent, runs.RunCompleted, 0)
		storeRun(t, s, s.AccountID, agent, runs.RunCompleted, 0)
		if _, err := s.S.Alerts.DetectRuns(ctx); err != nil {
			t.Fatal(err)
		}
		l = listAlerts(t, s, s.Key, "?limit=100")
		cf, st := statusOf(t, l, "consecutive_failures")
		if st != "resolved" {
			t.Fatalf("consecutive_failures after a success: %s", st)
		}
		if _, st := statusOf(t, l, "error_rate_spike"); st != "triggered" {
			t.Fatalf("error_rate_spike at 50%%: %s", st)
		}
		if _, st := statusOf(t, l, "run_failed"); st != "triggered" {
			t.Fatalf("run_failed is an event and stays open: %s", st)
		}
		var detail struct {
			History []struct {
				NewStatus string  `json:"new_status"`
				Note      *string `json:"note"`
			} `json:"history"`
		}
		r := s.Do(t, "GET", "/alerts/"+cf, s.Key, nil)
		r.JSON(t, &detail)
		found := false
		for _, h := range detail.History {
			if h.NewStatus == "resolved" && h.Note != nil && strings.Contains(*h.Note, "Resolved automatically") {
				found = true
			}
		}
		if !found {
			t.Fatalf("no automatic resolution in the history: %s", r.Body)
		}
		// More successes bring the rate under the threshold.
		storeRun(t, s, s.AccountID, agent, runs.RunCompleted, 0)
		storeRun(t, s, s.AccountID, agent, runs.RunCompleted, 0)
		if _, err := s.S.Alerts.DetectRuns(ctx); err != nil {
			t.Fatal(err)
		}
		if _, st := statusOf(t, listAlerts(t, s, s.Key, "?limit=100"), "error_rate_spike"); st != "resolved" {
			t.Fatalf("error_rate_spike at 33%%: %s", st)
		}
		// The condition back: a new alert opens (the resolved one stays resolved).
		balance, err := billing.NewCredits(s.DB).Balance(ctx, s.AccountID)
		if err != nil {
			t.Fatal(err)
		}
		createConfig(t, s, s.Key, map[string]any{"alert_type": "credits_low_threshold", "threshold": map[string]any{"credits": balance + 5000}})
		if _, err := s.S.Alerts.DetectCredits(ctx); err != nil {
			t.Fatal(err)
		}
		if _, st := statusOf(t, listAlerts(t, s, s.Key, "?limit=100"), "credits_low_threshold"); st != "triggered" {
			t.Fatalf("credits_low_threshold: %s", st)
		}
		if _, err := billing.NewCredits(s.DB).Grant(ctx, s.AccountID, 5000, "test", "top-up"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.S.Alerts.DetectCredits(ctx); err != nil {
			t.Fatal(err)
		}
		if _, st := statusOf(t, listAlerts(t, s, s.Key, "?limit=100"), "credits_low_threshold"); st != "resolved" {
			t.Fatalf("credits_low_threshold after a top-up: %s", st)
		}
	})
}

// Accounts that spend credits get the default credits alerts, once: a
// deleted default does not come back; an idle account gets none.
func TestDefaultCreditAlerts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		spender := s.NewTenant(t, "spender")
		idle := s.NewTenant(t, "idle")
		own := createConfig(t, s, spender.Key, map[string]any{"alert_type": "credits_usage_spike", "threshold": map[string]any{"multiplier": 5}})
		if _, err := billing.NewCredits(s.DB).Debit(ctx, spender.AccountID, 10, "test", "spend"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.S.Alerts.DetectCredits(ctx); err != nil {
			t.Fatal(err)
		}
		list := func(key string) map[string][]string {
			var l struct {
				Configs []struct {
					ID        string `json:"id"`
					AlertType string `json:"alert_type"`
					Enabled   bool   `json:"enabled"`
				} `json:"configs"`
			}
			r := s.Do(t, "GET", "/alerts/configs", key, nil)
			if r.Status != http.StatusOK {
				t.Fatalf("list configs: %d %s", r.Status, r.Body)
			}
			r.JSON(t, &l)
			out := map[string][]string{}
			for _, c := range l.Configs {
				if !c.Enabled {
					t.Errorf("default %s not enabled", c.AlertType)
				}
				out[c.AlertType] = append(out[c.AlertType], c.ID)
			}
			return out
		}
		got := list(spender.Key)
		if len(got["credits_low_threshold"]) != 1 || len(got["credits_runout_prediction"]) != 1 ||
			len(got["credits_usage_spike"]) != 1 || got["credits_usage_spike"][0] != own {
			t.Fatalf("spender's configs: %v", got)
		}
		if got := list(idle.Key); len(got) != 0 {
			t.Fatalf("idle account got %v", got)
		}
		if r := s.Do(t, "DELETE", "/alerts/configs/"+got["credits_low_threshold"][0], spender.Key, nil); r.Status >= 300 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if _, err := s.S.Alerts.DetectCredits(ctx); err != nil {
			t.Fatal(err)
		}
		if got := list(spender.Key); len(got["credits_low_threshold"]) != 0 {
			t.Fatalf("a deleted default came back: %v", got)
		}
	})
}
