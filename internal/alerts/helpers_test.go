package alerts_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/testserver"
)

var ctx = context.Background()

// start runs a server whose outbound guard lets webhooks reach loopback,
// where the tests' receivers listen.
func start(t testing.TB, d store.Dialect) *testserver.Server {
	t.Helper()
	return testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
}

// refuser answers every request 400, which fails a webhook_call step at
// once (a 4xx is not retried).
func refuser(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// failingAgent stores an agent whose one step calls a URL that refuses.
func failingAgent(t *testing.T, s *testserver.Server, accountID string) string {
	t.Helper()
	return s.StoreAgent(t, accountID, "Flaky", `{"child_steps":[{"id":"call","step_type":"webhook_call","url":"`+refuser(t)+`/x"}]}`, "dynamic_input")
}

// okAgent stores an agent that always completes.
func okAgent(t *testing.T, s *testserver.Server, accountID string) string {
	t.Helper()
	return s.StoreAgent(t, accountID, "Fine", `{"child_steps":[{"id":"say","step_type":"text","text":"ok {{input}}"}]}`, "dynamic_input")
}

// runToEnd starts a run through the API and waits for its terminal status.
func runToEnd(t *testing.T, s *testserver.Server, key, agentID string) (runID, status string) {
	t.Helper()
	r := s.Do(t, "POST", "/agents/"+agentID+"/runs", key, map[string]any{"input": "x"})
	var run struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
	}
	r.JSON(t, &run)
	if r.Status != http.StatusOK {
		t.Fatalf("start run: %d %s", r.Status, r.Body)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		s.Do(t, "GET", "/agents/runs/"+run.RunID, key, nil).JSON(t, &run)
		if runs.RunTerminal(run.Status) {
			return run.RunID, run.Status
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still %s", run.RunID, run.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// eventually polls cond until it holds or 15 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alertList is GET /alerts.
type alertList struct {
	Data []struct {
		ID              string         `json:"id"`
		AlertType       string         `json:"alert_type"`
		Status          string         `json:"status"`
		Title           string         `json:"title"`
		AlertConfigID   *string        `json:"alert_config_id"`
		AgentRunID      *string        `json:"agent_run_id"`
		Description     *string        `json:"description"`
		Details         map[string]any `json:"details"`
		SubscriberCount int            `json:"subscriber_count"`
		IsSubscribed    bool           `json:"is_subscribed"`
		CreatedAt       string         `json:"created_at"`
	} `json:"data"`
	Pagination struct{ Total int } `json:"pagination"`
}

func listAlerts(t *testing.T, s *testserver.Server, key, query string) alertList {
	t.Helper()
	var l alertList
	r := s.Do(t, "GET", "/alerts"+query, key, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("list alerts: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &l)
	return l
}

// createConfig posts a config and returns its id.
func createConfig(t testing.TB, s *testserver.Server, key string, body map[string]any) string {
	t.Helper()
	r := s.Do(t, "POST", "/alerts/configs", key, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("create config: %d %s", r.Status, r.Body)
	}
	var c struct{ ID string }
	r.JSON(t, &c)
	return c.ID
}

// receiver is a loopback webhook endpoint that records what it gets and
// answers with the statuses queued in answers (then 200).
type receiver struct {
	URL     string
	mu      sync.Mutex
	got     []received
	answers []int
}

type received struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

func newReceiver(t *testing.T, answers ...int) *receiver {
	t.Helper()
	rc := &receiver{answers: answers}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{Header: r.Header.Clone(), Body: b, At: time.Now()})
		code := http.StatusOK
		if len(rc.answers) > 0 {
			code, rc.answers = rc.answers[0], rc.answers[1:]
		}
		rc.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(srv.Close)
	rc.URL = srv.URL
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// payload decodes a webhook body.
func payload(t *testing.T, b []byte) (event string, alert map[string]any) {
	t.Helper()
	var p struct {
		Event string         `json:"event"`
		Alert map[string]any `json:"alert"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("webhook body: %v: %s", err, b)
	}
	return p.Event, p.Alert
}

// testserverStart runs a server with the default outbound guard.
func testserverStart(t *testing.T, d store.Dialect) *testserver.Server {
	t.Helper()
	return testserver.Start(t, d)
}
