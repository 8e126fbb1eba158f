package telemetry_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/smtp"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/llm/fakellm"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads /metrics into series: "name{k="v",…}" (labels sorted) →
// value (a histogram's count under name_count).
func scrape(t *testing.T, s *testserver.Server) map[string]float64 {
	t.Helper()
	r := s.Do(t, "GET", "/metrics", "", nil)
	wantStatus(t, r, http.StatusOK)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(string(r.Body)))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.Metric {
			var labels []string
			for _, l := range m.Label {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			key := name + "{" + strings.Join(labels, ",") + "}"
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[key] = m.Counter.GetValue()
			case dto.MetricType_GAUGE:
				out[key] = m.Gauge.GetValue()
			case dto.MetricType_HISTOGRAM:
				out[strings.Replace(key, name, name+"_count", 1)] = float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return out
}

// TestMetrics runs agents through what an operator watches — a model
// step judged by an evaluation that fails once, a run a policy blocks
// with an alert configured for failures, mail to an unknown alias, an
// event stream held open — and reads /metrics: each series is there
// under its name and bounded labels, with the values the runs produced;
// no label holds an account, agent or run id.
func TestMetrics(t *testing.T) {
	fake := fakeModel(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.SMTPAddr = "127.0.0.1:0" })
		before := scrape(t, s)
		delta := func(after map[string]float64, series string) float64 { return after[series] - before[series] }

		// 1. A model step with a JSON criterion: the first answer fails it,
		//    the retry passes.
		a, err := agents.NewRepo(s.DB).CreateAgent(context.Background(), agents.NewAgent{
			Agent: agents.Agent{AccountID: s.AccountID, Name: "Extractor", Definition: json.RawMessage(`{"child_steps":[{"id":"extract",
				"step_type":"prompt_call","model":"openai_gpt_4o_mini","prompt_template":"Extract as JSON: {{input}}","response_format":"json"}]}`),
				Settings: agents.AgentSettings{EvaluationMode: "eval_and_retry", ModelUpgradeStrategy: "none", MaxRetries: 2, RetryOnFailure: true}},
			Trigger: agents.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)}})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, s.Do(t, "POST", "/agents/"+a.ID+"/evaluation-criteria", s.Key, map[string]any{"step_id": "extract", "pass_threshold": 1,
			"expectation_config": map[string]any{"json_schema": map[string]any{"type": "object", "required": []string{"name"}}}}), http.StatusCreated)
		fake.Enqueue(fakellm.Reply{Text: `{"nom": "Ada"}`, Usage: fakellm.Usage{Input: 30, Output: 8}},
			fakellm.Reply{Text: `{"name": "Ada"}`, Usage: fakellm.Usage{Input: 50, Output: 9}})
		if snap := waitRun(t, s, startRun(t, s, a.ID, "Ada wrote")); snap.Status != runs.RunCompleted {
			t.Fatalf("extractor run %s", snap.Status)
		}

		// 2. A run whose input a policy blocks, with failures alerted.
		wantStatus(t, s.Do(t, "POST", "/alerts/configs", s.Key, map[string]any{"alert_type": "run_failed"}), http.StatusCreated)
		wantStatus(t, s.Do(t, "POST", "/governance/policies", s.Key, map[string]any{"name": "No personal data", "config": map[string]any{
			"action": "block", "rules": []any{map[string]any{"type": "pii", "kinds": []string{"email"}}}}}), http.StatusCreated)
		echo := s.StoreAgent(t, s.AccountID, "Echo", `{"child_steps":[{"id":"t","step_type":"text","text":"{{input}}"}]}`, "dynamic_input")
		if snap := waitRun(t, s, startRun(t, s, echo, "write to jane.doe@example.com")); snap.Status != runs.RunFailed {
			t.Fatalf("blocked run %s", snap.Status)
		}

		// 3. Mail to an alias nobody has: refused at RCPT.
		c, err := smtp.Dial(s.S.SMTPAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Mail("ada@sender.example"); err != nil {
			t.Fatal(err)
		}
		if err := c.Rcpt("nobody." + s.AccountID + "@agent.localhost"); err == nil || !strings.Contains(err.Error(), "550") {
			t.Fatalf("unknown alias: %v", err)
		}
		c.Close()

		// 4. An event stream held open (the run waits for a review).
		review := s.StoreAgent(t, s.AccountID, "Reviewer", `{"child_steps":[{"id":"r","step_type":"human_in_the_loop","instructions":"ok?"}]}`, "dynamic_input")
		req, _ := http.NewRequest("POST", s.URL+"/agents/"+review+"/runs/stream", strings.NewReader(`{"input":"x"}`))
		req.Header.Set("X-API-Key", s.Key)
		req.Header.Set("Content-Type", "application/json")
		stream, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Body.Close()
		if _, err := bufio.NewReader(stream.Body).ReadString('\n'); err != nil {
			t.Fatal(err)
		}

		// The alert is raised beside the run's end: wait for it.
		var after map[string]float64
		deadline := time.Now().Add(20 * time.Second)
		for {
			after = scrape(t, s)
			if delta(after, `agentry_alerts_raised_total{type="run_failed"}`) >= 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no run_failed alert counted")
			}
			time.Sleep(20 * time.Millisecond)
		}
		want := map[string]float64{
			`agentry_runs_started_total{trigger="dynamic_input"}`:                                       3,
			`agentry_runs_finished_total{status="completed"}`:                                           1,
			`agentry_runs_finished_total{status="failed"}`:                                              1,
			`agentry_run_duration_seconds_count{status="completed"}`:                                    1,
			`agentry_step_duration_seconds_count{status="failed",type="prompt_call"}`:                   1,
			`agentry_step_duration_seconds_count{status="completed",type="prompt_call"}`:                1,
			`agentry_model_requests_total{model="openai_gpt_4o_mini",operation="chat",outcome="ok"}`:    2,
			`agentry_model_request_duration_seconds_count{model="openai_gpt_4o_mini",operation="chat"}`: 2,
			`agentry_model_tokens_total{model="openai_gpt_4o_mini",type="input"}`:                       80,
			`agentry_model_tokens_total{model="openai_gpt_4o_mini",type="output"}`:                      17,
			`agentry_evaluations_total{outcome="failed"}`:                                               1,
			`agentry_evaluations_total{outcome="passed"}`:                                               1,
			`agentry_policy_checks_total{outcome="block",stage="input"}`:                                1,
			`agentry_inbound_mail_total{outcome="refused",reason="unknown_alias"}`:                      1,
			`agentry_alerts_raised_total{type="run_failed"}`:                                            1,
		}
		for series, v := range want {
			if got := delta(after, series); got != v {
				t.Errorf("%s rose by %v, want %v", series, got, v)
			}
		}
		if got := delta(after, `agentry_credits_spent_total{purpose="prompt_call"}`); got <= 0 {
			t.Errorf("credits spent on prompt_call rose by %v", got)
		}
		if got := after[`agentry_sse_streams_open{}`]; got < 1 {
			t.Errorf("open streams: %v", got)
		}
		// The two finished runs' jobs; the parked one's may still be ending.
		if got := delta(after, `agentry_jobs_worked_total{kind="agent_run",outcome="ok"}`); got < 2 {
			t.Errorf("agent_run jobs worked: %v", got)
		}
		if got := delta(after, `agentry_job_wait_seconds_count{kind="agent_run"}`); got < 2 {
			t.Errorf("agent_run jobs' waits observed: %v", got)
		}
		// Bounded labels: no id of anything a tenant made.
		ids := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
		for series := range after {
			if strings.HasPrefix(series, "agentry_") && ids.MatchString(series) {
				t.Errorf("a label holds an id: %s", series)
			}
		}
	})
}

// TestQueueDepth: on an API-only replica nothing works the jobs, so a run's
// job waits, and /metrics reports it by kind and state.
func TestQueueDepth(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.Role = server.RoleAPI })
		echo := s.StoreAgent(t, s.AccountID, "Echo", `{"child_steps":[{"id":"t","step_type":"text","text":"{{input}}"}]}`, "dynamic_input")
		startRun(t, s, echo, "a")
		startRun(t, s, echo, "b")
		if got := scrape(t, s)[`agentry_job_queue_depth{kind="agent_run",state="available"}`]; got != 2 {
			t.Errorf("agent_run jobs available: %v, want 2", got)
		}
	})
}
