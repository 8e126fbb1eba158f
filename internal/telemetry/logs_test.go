package telemetry_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/telemetry"
	"github.com/agentry/agentry/internal/telemetry/otlptest"
	"github.com/agentry/agentry/internal/testserver"
)

// lockedBuffer collects log lines written from many goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lines decodes the JSON lines logged so far.
func (l *lockedBuffer) lines(t *testing.T) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.b.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a log line is not JSON: %s", sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// logJSON sends the process's log to a buffer as `agentry serve
// --log-format json --node-name node` does.
func logJSON(t *testing.T, node string) *lockedBuffer {
	buf := &lockedBuffer{}
	prev := slog.Default()
	slog.SetDefault(slog.New(telemetry.LogHandler(slog.NewJSONHandler(buf, nil), node)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return buf
}

// TestRunLogLines: the lines an operator looks for — a run started and
// finished (status, duration, steps, tokens, credits), a step failed and
// retried, a policy block — are at info, JSON, and each names the run,
// agent, account, step, trace and span, and the replica; the blocked text
// appears in no line. Tracing is on, so the trace id is the run's.
func TestRunLogLines(t *testing.T) {
	recv := otlptest.Start(t)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream down", http.StatusBadGateway)
	}))
	defer failing.Close()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		traceTo(t, recv, "http/protobuf")
		logs := logJSON(t, "replica-logs")
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		hook := s.StoreAgent(t, s.AccountID, "Hooker", `{"child_steps":[{"id":"call","step_type":"webhook_call","url":"`+failing.URL+`"}]}`, "dynamic_input")
		failed := waitRun(t, s, startRun(t, s, hook, "x"))
		if failed.Status != runs.RunFailed || failed.TraceID == "" {
			t.Fatalf("webhook run %s, trace %q", failed.Status, failed.TraceID)
		}
		wantStatus(t, s.Do(t, "POST", "/governance/policies", s.Key, map[string]any{"name": "No personal data", "config": map[string]any{
			"action": "block", "rules": []any{map[string]any{"type": "pii", "kinds": []string{"email"}}}}}), http.StatusCreated)
		echo := s.StoreAgent(t, s.AccountID, "Echo", `{"child_steps":[{"id":"t","step_type":"text","text":"{{input}}"}]}`, "dynamic_input")
		blocked := waitRun(t, s, startRun(t, s, echo, "write to jane.doe@example.com"))
		if blocked.Status != runs.RunFailed {
			t.Fatalf("blocked run %s", blocked.Status)
		}

		find := func(msg, runID string) []map[string]any {
			var out []map[string]any
			for _, l := range logs.lines(t) {
				if l["msg"] == msg && l["run_id"] == runID {
					out = append(out, l)
				}
			}
			return out
		}
		named := func(l map[string]any, runID, agentID, traceID string) {
			t.Helper()
			if l["level"] != "INFO" || l["node"] != "replica-logs" || l["agent_id"] != agentID || l["account_id"] != s.AccountID ||
				l["trace_id"] != traceID || len(l["span_id"].(string)) != 16 {
				t.Errorf("%q line does not name its run: %v", l["msg"], l)
			}
		}
		for _, msg := range []string{"run started", "step failed", "step retry", "run finished"} {
			got := find(msg, failed.RunID)
			if len(got) == 0 {
				t.Errorf("no %q line for the webhook run", msg)
				continue
			}
			named(got[0], failed.RunID, hook, failed.TraceID)
		}
		if got := find("step failed", failed.RunID); len(got) != 3 || got[0]["step"] != "call" || !strings.Contains(got[0]["error"].(string), "502") {
			t.Errorf("step failed lines: %v", got)
		}
		if got := find("step retry", failed.RunID); len(got) != 2 || got[0]["next_attempt"] != 2.0 {
			t.Errorf("step retry lines: %v", got)
		}
		fin := find("run finished", failed.RunID)
		if len(fin) == 1 {
			f := fin[0]
			if f["status"] != "failed" || f["steps"] != 3.0 || f["trigger"] != "dynamic_input" || f["duration_ms"] == nil ||
				f["input_tokens"] != 0.0 || f["credits"] != 0.0 || f["step"] != nil {
				t.Errorf("run finished: %v", f)
			}
		}
		if got := find("policy blocked", blocked.RunID); len(got) != 1 || got[0]["rule"] != "pii:email" || got[0]["stage"] != "input" {
			t.Errorf("policy blocked lines: %v", got)
		} else {
			named(got[0], blocked.RunID, echo, blocked.TraceID)
		}
		for _, l := range logs.lines(t) {
			if l["node"] != "replica-logs" {
				t.Errorf("a line without the replica's name: %v", l)
			}
			if b, _ := json.Marshal(l); strings.Contains(string(b), "jane.doe@example.com") {
				t.Errorf("a line holds the blocked text: %s", b)
			}
		}
	})
}

// TestExportNeverFailsRuns: with the OTLP endpoint down, runs complete as
// fast as ever, and the spans that could not be sent are counted as
// dropped on /metrics.
func TestExportNeverFailsRuns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1") // nothing listens there
		t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
		t.Setenv("OTEL_TRACES_SAMPLER", "always_on")
		t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "10")
		t.Setenv("OTEL_BSP_EXPORT_TIMEOUT", "200")
		s := testserver.Start(t, d)
		before := scrape(t, s)[`agentry_trace_spans_dropped_total{reason="export_failed"}`]
		echo := s.StoreAgent(t, s.AccountID, "Echo", `{"child_steps":[{"id":"t","step_type":"text","text":"{{input}}"}]}`, "dynamic_input")
		for i := 0; i < 3; i++ {
			if snap := waitRun(t, s, startRun(t, s, echo, "x")); snap.Status != runs.RunCompleted {
				t.Fatalf("run %s", snap.Status)
			}
		}
		if err := s.S.Telemetry.ForceFlush(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := scrape(t, s)[`agentry_trace_spans_dropped_total{reason="export_failed"}`]; got <= before {
			t.Errorf("spans that could not be exported were not counted (%v → %v)", before, got)
		}
	})
}
