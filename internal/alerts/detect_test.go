package alerts_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/alerts"
	"github.com/agentry/agentry/internal/billing"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// storeRun records a finished run of an agent straight in the runs table,
// taking dur, for the window detectors' sweeps.
func storeRun(t *testing.T, s *testserver.Server, accountID, agentID, status string, dur time.Duration) string {
	t.Helper()
	r, err := runs.NewRepo(s.DB, nil).CreateRun(ctx, runs.Run{AccountID: accountID, AgentID: agentID})
	if err != nil {
		t.Fatal(err)
	}
	att, err := runs.NewRepo(s.DB, nil).StartRunAttempt(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if dur > 0 {
		if _, err := s.DB.W.ExecContext(ctx, `UPDATE runs SET started_at = $1 WHERE id = $2`, time.Now().UTC().Add(-dur), r.ID); err != nil {
			t.Fatal(err)
		}
	}
	res := runs.RunResult{Status: status}
	if status == runs.RunFailed {
		res.Error, res.ErrorCount = "boom", 1
	}
	if err := runs.NewRepo(s.DB, nil).FinishRunAttempt(ctx, r.ID, att, res); err != nil {
		t.Fatal(err)
	}
	return r.ID
}

func types(l alertList) map[string]int {
	out := map[string]int{}
	for _, a := range l.Data {
		out[a.AlertType]++
	}
	return out
}

// consecutive_failures fires on the Nth failure in a row, inline; a
// success in between resets the count.
func TestConsecutiveFailuresInline(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		flaky := failingAgent(t, s, s.AccountID)
		createConfig(t, s, s.Key, map[string]any{"alert_type": "consecutive_failures", "agent_id": flaky, "threshold": map[string]any{"count": 2}})
		runToEnd(t, s, s.Key, flaky)
		time.Sleep(300 * time.Millisecond)
		if l := listAlerts(t, s, s.Key, ""); len(l.Data) != 0 {
			t.Fatalf("alert after one failure: %+v", l.Data)
		}
		runToEnd(t, s, s.Key, flaky)
		var l alertList
		eventually(t, "consecutive failures", func() bool { l = listAlerts(t, s, s.Key, ""); return len(l.Data) == 1 })
		if a := l.Data[0]; a.AlertType != "consecutive_failures" || !strings.Contains(*a.Description, "last 2 runs failed") {
			t.Fatalf("alert: %+v", a)
		}
		// A third failure is the same condition, not a new occurrence.
		runToEnd(t, s, s.Key, flaky)
		time.Sleep(300 * time.Millisecond)
		if l = listAlerts(t, s, s.Key, ""); len(l.Data) != 1 || l.Data[0].Details["occurrences"] != 1.0 {
			t.Fatalf("after a third failure: %+v", l.Data)
		}
	})
}

// The sweep evaluates the windows and the per-run types over runs the
// inline path never saw, and counts each run once.
func TestSweepDetectors(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		agent := okAgent(t, s, s.AccountID)
		other := okAgent(t, s, s.AccountID)
		createConfig(t, s, s.Key, map[string]any{"alert_type": "error_rate_spike", "agent_id": agent,
			"threshold": map[string]any{"rate": 0.5, "min_runs": 4, "window_minutes": 10}})
		createConfig(t, s, s.Key, map[string]any{"alert_type": "run_burst", "threshold": map[string]any{"count": 6, "window_minutes": 5}})
		createConfig(t, s, s.Key, map[string]any{"alert_type": "slow_run", "agent_id": other, "threshold": map[string]any{"seconds": 30}})
		createConfig(t, s, s.Key, map[string]any{"alert_type": "run_failed", "cooldown_minutes": 0})

		// 2 of 4 of agent's runs fail (50%): a spike. other has one slow
		// run. 6 runs in all: a burst for the account-level config.
		storeRun(t, s, s.AccountID, agent, runs.RunCompleted, 0)
		storeRun(t, s, s.AccountID, agent, runs.RunFailed, 0)
		storeRun(t, s, s.AccountID, agent, runs.RunCompleted, 0)
		storeRun(t, s, s.AccountID, agent, runs.RunFailed, 0)
		storeRun(t, s, s.AccountID, other, runs.RunCompleted, time.Minute)
		storeRun(t, s, s.AccountID, other, runs.RunCompleted, time.Second)

		n, err := s.S.Alerts.DetectRuns(ctx)
		if err != nil || n != 4 {
			t.Fatalf("DetectRuns = %d, %v", n, err)
		}
		l := listAlerts(t, s, s.Key, "?limit=100")
		got := types(l)
		if got["error_rate_spike"] != 1 || got["run_burst"] != 1 || got["slow_run"] != 1 || got["run_failed"] != 1 {
			t.Fatalf("alerts: %v", got)
		}
		for _, a := range l.Data {
			switch a.AlertType {
			case "run_failed":
				if a.Details["occurrences"] != 2.0 {
					t.Errorf("run_failed counted %v runs, want 2", a.Details["occurrences"])
				}
			case "slow_run":
				if a.Details["duration_seconds"].(float64) < 59 {
					t.Errorf("slow run: %v", a.Details)
				}
			case "error_rate_spike":
				if a.Details["error_rate"] != 0.5 {
					t.Errorf("rate: %v", a.Details)
				}
			}
		}
		// A second sweep counts nothing twice.
		if _, err := s.S.Alerts.DetectRuns(ctx); err != nil {
			t.Fatal(err)
		}
		for _, a := range listAlerts(t, s, s.Key, "?limit=100").Data {
			if a.AlertType == "run_failed" && a.Details["occurrences"] != 2.0 {
				t.Errorf("the second sweep recounted: %v", a.Details["occurrences"])
			}
		}
		if got := types(listAlerts(t, s, s.Key, "?limit=100")); len(got) != 4 || got["run_burst"] != 1 {
			t.Errorf("after the second sweep: %v", got)
		}
	})
}

// Source, governance, evaluation and model lifecycle signals raise their
// configs through Raise; the source detectors count pull outcomes.
func TestSignals(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		r := s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "feed", "source_type": "custom_index"})
		var source struct{ ID string }
		r.JSON(t, &source)
		src := source.ID
		createConfig(t, s, s.Key, map[string]any{"alert_type": "consecutive_pull_failures", "source_connection_id": src, "threshold": map[string]any{"count": 3}})
		createConfig(t, s, s.Key, map[string]any{"alert_type": "pull_failed"})
		raise := func(typ string) {
			t.Helper()
			if err := s.S.Alerts.Raise(ctx, alerts.Signal{AccountID: s.AccountID, Type: typ, SourceID: src, Message: "HTTP 503"}); err != nil {
				t.Fatal(err)
			}
		}
		raise("pull_failed")
		raise("pull_failed")
		raise("pull_succeeded")
		raise("pull_failed")
		raise("pull_failed")
		if got := types(listAlerts(t, s, s.Key, "")); got["consecutive_pull_failures"] != 0 || got["pull_failed"] != 1 {
			t.Fatalf("after a success in between: %v", got)
		}
		raise("pull_failed")
		l := listAlerts(t, s, s.Key, "?source_connection_id="+src)
		if got := types(l); got["consecutive_pull_failures"] != 1 || got["pull_failed"] != 1 {
			t.Fatalf("source alerts: %v", got)
		}
		if err := s.S.Alerts.Raise(ctx, alerts.Signal{AccountID: s.AccountID, Type: "no_such_type"}); err == nil {
			t.Error("unknown type accepted")
		}

		// Model lifecycle: an agent on a retired model gets the in-app
		// model alert and, with a model_sunset config, an alert here.
		agent := s.StoreAgent(t, s.AccountID, "Old", `{"child_steps":[{"id":"ask","step_type":"prompt_call","model":"openai_gpt_4_turbo","prompt_template":"{{input}}"}]}`, "dynamic_input")
		createConfig(t, s, s.Key, map[string]any{"alert_type": "model_sunset", "agent_id": agent})
		if n, err := s.S.ModelAlerts.CheckAgent(ctx, s.AccountID, agent); err != nil || n == 0 {
			t.Fatalf("CheckAgent = %d, %v", n, err)
		}
		l = listAlerts(t, s, s.Key, "?agent_id="+agent)
		if len(l.Data) != 1 || l.Data[0].AlertType != "model_sunset" || !strings.Contains(*l.Data[0].Description, "GPT-4 Turbo") {
			t.Fatalf("model alert: %+v", l.Data)
		}
		var models struct{ Total int }
		s.Do(t, "GET", "/models/alerts", s.Key, nil).JSON(t, &models)
		if models.Total == 0 {
			t.Error("the in-app model alert is gone")
		}
	})
}

// Credits: a balance under the threshold, and a spend that predicts a run-out.
func TestCreditsSweep(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := start(t, d)
		tn := s.NewTenant(t, "spender") // 1000 credits
		createConfig(t, s, tn.Key, map[string]any{"alert_type": "credits_low_threshold", "threshold": map[string]any{"credits": 500}})
		createConfig(t, s, tn.Key, map[string]any{"alert_type": "credits_runout_prediction", "threshold": map[string]any{"days": 3, "window_minutes": 1440}})
		createConfig(t, s, tn.Key, map[string]any{"alert_type": "credits_usage_spike", "agent_id": nil})
		if n, err := s.S.Alerts.DetectCredits(ctx); err != nil || n != 3 {
			t.Fatalf("DetectCredits = %d, %v", n, err)
		}
		if l := listAlerts(t, s, tn.Key, ""); len(l.Data) != 0 {
			t.Fatalf("alerts with a full balance and no spend: %+v", l.Data)
		}
		if _, err := billing.NewCredits(s.DB).Debit(ctx, tn.AccountID, 600, "test", "spend"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.S.Alerts.DetectCredits(ctx); err != nil {
			t.Fatal(err)
		}
		l := listAlerts(t, s, tn.Key, "")
		got := types(l)
		// 400 left at 600 a day: under 3 days. No baseline: no spike.
		if got["credits_low_threshold"] != 1 || got["credits_runout_prediction"] != 1 || got["credits_usage_spike"] != 0 {
			t.Fatalf("credit alerts: %v", got)
		}
		if other := listAlerts(t, s, s.Key, ""); len(other.Data) != 0 {
			t.Fatalf("another account sees %d alerts", len(other.Data))
		}
	})
}

func TestThresholds(t *testing.T) {
	for _, c := range []struct {
		typ, raw string
		ok       bool
	}{
		{"consecutive_failures", `{"count": 5}`, true},
		{"consecutive_failures", `{"count": 1}`, false},
		{"consecutive_failures", `{"count": 2.5}`, false},
		{"consecutive_failures", `{"count": "3"}`, false},
		{"error_rate_spike", `{"rate": 1.5}`, false},
		{"error_rate_spike", `{"rate": 0.2, "min_runs": 10, "window_minutes": 30, "note": "kept"}`, true},
		{"slow_run", `{"seconds": 0}`, false},
		{"run_failed", `{"anything": [1, 2]}`, true},
		{"run_failed", `[1]`, false},
		{"credits_low_threshold", `{"credits": -1}`, false},
	} {
		_, err := alerts.ParseThreshold(c.typ, json.RawMessage(c.raw))
		if (err == nil) != c.ok {
			t.Errorf("%s %s: err = %v", c.typ, c.raw, err)
		}
	}
	th, _ := alerts.ParseThreshold("run_burst", nil)
	if th.Count != 100 || th.WindowMinutes != 5 {
		t.Errorf("run_burst defaults: %+v", th)
	}
}

func TestSignatures(t *testing.T) {
	body := []byte(`{"event":"alert.triggered"}`)
	now := time.Unix(1_800_000_000, 0)
	h := alerts.Sign([]byte("k"), now, body)
	if !strings.HasPrefix(h, "t=1800000000,v1=") || len(h) != len("t=1800000000,v1=")+64 {
		t.Fatalf("header %q", h)
	}
	for name, err := range map[string]error{
		"good":     alerts.Verify([]byte("k"), h, body, now.Add(30*time.Second), time.Minute),
		"tampered": alerts.Verify([]byte("k"), h, append(body, ' '), now, time.Minute),
		"replayed": alerts.Verify([]byte("k"), h, body, now.Add(10*time.Minute), time.Minute),
		"garbage":  alerts.Verify([]byte("k"), "v1=zz", body, now, time.Minute),
	} {
		if (err == nil) != (name == "good") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzVerify feeds arbitrary signature headers and bodies to Verify, which
// reads a header a stranger may send to a receiver: it must never panic
// and never accept what it did not sign.
func FuzzVerify(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	f.Add(alerts.Sign([]byte("k"), now, []byte("{}")), []byte("{}"))
	f.Add("t=,v1=", []byte(""))
	f.Add("t=99999999999999999999,v1=ab", []byte("x"))
	f.Add(",,,=,=", []byte(nil))
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		if alerts.Verify([]byte("k"), header, body, now, time.Minute) != nil {
			return
		}
		// It verified: the header's MAC must be the one for its time.
		var ts int64
		for _, part := range strings.Split(header, ",") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(part), "t="); ok {
				ts, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		_, want, _ := strings.Cut(alerts.Sign([]byte("k"), time.Unix(ts, 0), body), ",")
		if !strings.Contains(header, want) {
			t.Fatalf("verified %q without its MAC %s", header, want)
		}
	})
}

// FuzzParseThreshold feeds arbitrary JSON to the threshold reader.
func FuzzParseThreshold(f *testing.F) {
	f.Add("consecutive_failures", []byte(`{"count": 3}`))
	f.Add("error_rate_spike", []byte(`{"rate": "x"}`))
	f.Add("slow_run", []byte(`nul`))
	f.Fuzz(func(t *testing.T, typ string, raw []byte) {
		th, err := alerts.ParseThreshold(typ, raw)
		if err == nil && (th.Count < 0 || th.Rate < 0 || th.WindowMinutes < 0) {
			t.Fatalf("accepted out of range: %+v", th)
		}
	})
}
