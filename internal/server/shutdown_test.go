package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

const shutdownKey = "agk_shutdown_test_key_0123456789abcdef"

// blockingHook answers its first call only when the caller gives up, and
// every later call at once.
type blockingHook struct {
	mu    sync.Mutex
	calls int
	first chan struct{}
}

func (h *blockingHook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body) // so that a hang-up cancels r.Context()
	h.mu.Lock()
	h.calls++
	n := h.calls
	h.mu.Unlock()
	if n == 1 {
		close(h.first)
		select { // until the process running the step cancels it
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
		return
	}
	io.WriteString(w, "hooked")
}

// startServer runs a server; stop cancels it and returns what Run returned
// (an error if it did not return within 20s).
func startServer(t *testing.T, cfg server.Config) (s *server.Server, url string, stop func() error) {
	t.Helper()
	s, err := server.New(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	stop = sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			return errors.New("the process did not stop within its deadlines")
		}
	})
	t.Cleanup(func() { _ = stop() })
	return s, "http://" + addr.String(), stop
}

// TestShutdownMidRun stops a process while a run waits on a slow webhook
// and a client streams it: the stream ends with a reconnect event, the
// process returns within its deadlines without writing to a closed
// database, and the next process resumes the run at once — the rescuer,
// set to ten minutes, plays no part — without repeating its finished step.
func TestShutdownMidRun(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		hook := &blockingHook{first: make(chan struct{})}
		hs := httptest.NewServer(hook)
		defer hs.Close()

		cfg := server.Defaults()
		cfg.Addr, cfg.DataDir, cfg.DatabaseURL = "127.0.0.1:0", t.TempDir(), storetest.URL(t, d)
		cfg.BootstrapAPIKey, cfg.AllowPrivateWebhooks = shutdownKey, true
		cfg.ShutdownTimeout, cfg.JobShutdownTimeout = 5*time.Second, 500*time.Millisecond
		cfg.JobTimeout, cfg.JobRescueAfter = 5*time.Minute, 10*time.Minute
		s, url, stop := startServer(t, cfg)

		ctx := context.Background()
		k, err := auth.APIKeyByHash(ctx, s.DB, auth.HashKey(shutdownKey))
		if err != nil {
			t.Fatal(err)
		}
		a, err := agents.NewRepo(s.DB).CreateAgent(ctx, agents.NewAgent{
			Agent: agents.Agent{AccountID: k.AccountID, Name: "slow", Definition: json.RawMessage(`{"child_steps":[{"id":"a","step_type":"text","text":"first {{input}}","child_steps":[
				{"id":"hook","step_type":"webhook_call","url":"` + hs.URL + `","child_steps":[
				{"id":"show","step_type":"display_result","template":"{{step.a.output}} / {{input}}"}]}]}]}`),
				Settings: agents.AgentSettings{EvaluationMode: "output_expectation", ModelUpgradeStrategy: "none", MaxRetries: 3}},
			Trigger: agents.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)},
		})
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest("POST", url+"/agents/"+a.ID+"/runs/stream", strings.NewReader(`{"input":"x"}`))
		req.Header.Set("X-API-Key", shutdownKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		lines := make(chan []string, 1)
		go func() {
			var got []string
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				got = append(got, sc.Text())
			}
			lines <- got
		}()
		select {
		case <-hook.first:
		case <-time.After(30 * time.Second):
			t.Fatal("webhook never called")
		}

		if err := stop(); err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		got := <-lines
		var runID string
		for _, l := range got {
			if strings.HasPrefix(l, "id: ") && runID == "" {
				runID, _, _ = strings.Cut(l[4:], ":")
			}
		}
		if n := len(got); n < 4 || got[n-4] != "retry: 1000" || got[n-3] != "event: reconnect" || !strings.Contains(got[n-2], `"last_event_id":"`+runID+`:`) {
			t.Fatalf("stream did not end with a reconnect event:\n%s", strings.Join(got, "\n"))
		}

		// The next process resumes the run at once.
		cfg.Addr = "127.0.0.1:0"
		s2, _, _ := startServer(t, cfg)
		deadline := time.Now().Add(60 * time.Second)
		var r runs.Run
		for {
			if r, err = runs.NewRepo(s2.DB, nil).Run(ctx, k.AccountID, runID); err != nil {
				t.Fatal(err)
			}
			if runs.RunTerminal(r.Status) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run still %s a minute after the restart", r.Status)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if r.Status != runs.RunCompleted || r.Output == nil || *r.Output != "first x / hooked" {
			t.Fatalf("run %s output %v error %q", r.Status, r.Output, r.Error)
		}
		steps, _ := runs.NewRepo(s2.DB, nil).Steps(ctx, runID)
		ran := map[string]int{}
		for _, st := range steps {
			ran[st.StepID]++
		}
		if ran["a"] != 1 || ran["hook"] != 2 {
			t.Errorf("step attempts across the restart: %v (want a once, hook twice)", ran)
		}
	})
}
