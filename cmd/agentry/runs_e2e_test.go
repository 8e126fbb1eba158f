package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

const e2eKey = "agk_e2e_key_0123456789abcdef0123456789"

func e2eAgent(t *testing.T, db *store.DB, def string) (accountID, agentID string) {
	t.Helper()
	k, err := auth.APIKeyByHash(context.Background(), db, auth.HashKey(e2eKey))
	if err != nil {
		t.Fatal(err)
	}
	a, err := agents.NewRepo(db).CreateAgent(context.Background(), agents.NewAgent{
		Agent:   agents.Agent{AccountID: k.AccountID, Name: "e2e", Definition: json.RawMessage(def), Settings: agents.AgentSettings{EvaluationMode: "output_expectation", ModelUpgradeStrategy: "none", MaxRetries: 3}},
		Trigger: agents.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return k.AccountID, a.ID
}

func apiPost(t *testing.T, addr, path, body string, headers ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+addr+path, strings.NewReader(body))
	req.Header.Set("X-API-Key", e2eKey)
	req.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestRunResumesAfterKill kills the process while a run waits on a webhook
// step, restarts it, and expects the run to finish from where it was: the
// completed first step is not run again, and the webhook is retried with the
// same Idempotency-Key.
func TestRunResumesAfterKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes and waits for the job rescuer")
	}
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		var (
			mu    sync.Mutex
			keys  []string
			first = make(chan struct{})
			block = make(chan struct{})
		)
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			keys = append(keys, r.Header.Get("Idempotency-Key"))
			n := len(keys)
			mu.Unlock()
			if n == 1 {
				close(first)
				select { // the process holding this request is killed
				case <-block:
				case <-r.Context().Done():
				}
				return
			}
			w.Write([]byte("hooked"))
		}))
		defer hook.Close()
		defer close(block)

		dbURL, dataDir := storetest.URL(t, d), t.TempDir()
		env := []string{"SERVICE_JOB_TIMEOUT=10s", "SERVICE_JOB_RESCUE_AFTER=12s", "SERVICE_BOOTSTRAP_API_KEY=" + e2eKey, "SERVICE_ALLOW_PRIVATE_WEBHOOKS=true"}
		c := startServe(t, dbURL, dataDir, env...)
		db, err := store.Open(ctx, dbURL, dataDir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// a and b are local steps, whose records the journal may hold:
		// they must be durable before the webhook is called.
		accountID, agentID := e2eAgent(t, db, `{"child_steps":[{"id":"a","step_type":"text","text":"first {{input}}","child_steps":[
			{"id":"b","step_type":"regex_replace","rules":[{"pattern":"^first","replacement":"first"}],"child_steps":[
			{"id":"hook","step_type":"webhook_call","url":"`+hook.URL+`","child_steps":[
			{"id":"show","step_type":"display_result","template":"{{step.a.output}} / {{input}}"}]}]}]}]}`)

		resp := apiPost(t, c.addr, "/agents/"+agentID+"/runs", `{"input":"x"}`)
		var run struct {
			RunID string `json:"run_id"`
		}
		json.NewDecoder(resp.Body).Decode(&run)
		resp.Body.Close()
		select {
		case <-first:
		case <-time.After(30 * time.Second):
			t.Fatalf("webhook never called\n%s", c.logs)
		}
		// The outbound call is made: the local steps before it are on disk.
		before, err := runs.NewRepo(db, nil).Steps(ctx, run.RunID)
		if err != nil {
			t.Fatal(err)
		}
		durable := map[string]string{}
		for _, s := range before {
			durable[s.StepID] = s.Status
		}
		if durable["a"] != "completed" || durable["b"] != "completed" || durable["hook"] != "processing" {
			t.Errorf("steps on disk while the webhook is called: %v; want a and b completed, hook processing", durable)
		}
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = c.cmd.Wait()

		startServe(t, dbURL, dataDir, env...)
		deadline := time.Now().Add(100 * time.Second)
		var r runs.Run
		for {
			if r, err = runs.NewRepo(db, nil).Run(ctx, accountID, run.RunID); err != nil {
				t.Fatal(err)
			}
			if runs.RunTerminal(r.Status) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run still %s after restart", r.Status)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if r.Status != runs.RunCompleted || r.Output == nil || *r.Output != "first x / hooked" {
			t.Fatalf("run %s output %v error %q", r.Status, r.Output, r.Error)
		}
		steps, _ := runs.NewRepo(db, nil).Steps(ctx, run.RunID)
		runsOf := map[string]int{}
		for _, s := range steps {
			runsOf[s.StepID]++
		}
		if runsOf["a"] != 1 || runsOf["b"] != 1 {
			t.Errorf("completed steps ran %d and %d times across the crash", runsOf["a"], runsOf["b"])
		}
		attempts, _ := runs.NewRepo(db, nil).RunAttempts(ctx, run.RunID)
		if len(attempts) != 2 || attempts[0].Status != runs.RunFailed {
			t.Errorf("attempts: %+v", attempts)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(keys) != 2 || keys[0] != keys[1] || keys[0] == "" {
			t.Errorf("webhook Idempotency-Keys %v: want the same key twice", keys)
		}
	})
}

// TestScaleOut runs two processes on one PostgreSQL database: an API
// replica takes the stream request, a worker replica executes the run, and
// every event reaches the client in order through the database.
func TestScaleOut(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	if len(storetest.Dialects()) < 2 {
		t.Skip("needs PostgreSQL (SERVICE_TEST_DATABASE_URL)")
	}
	ctx := context.Background()
	dbURL := storetest.URL(t, store.Postgres)
	env := []string{"SERVICE_BOOTSTRAP_API_KEY=" + e2eKey}
	api := startServe(t, dbURL, t.TempDir(), append(env, "SERVICE_ROLE=api")...)
	startServe(t, dbURL, t.TempDir(), append(env, "SERVICE_ROLE=worker")...)
	db, err := store.Open(ctx, dbURL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, agentID := e2eAgent(t, db, `{"child_steps":[{"id":"ask","step_type":"prompt_call","prompt_template":"Summarise: Ships sail at dawn. The harbour wakes. Gulls follow the boats.",
		"child_steps":[{"id":"stream","step_type":"streaming_result"}]}]}`)
	resp := apiPost(t, api.addr, "/agents/"+agentID+"/runs/stream", `{"input":"go"}`)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	var (
		types  []string
		prev   = int64(-1)
		tokens strings.Builder
		event  string
		output string
	)
	done := false
	for !done && sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			_, seq, _ := strings.Cut(line[4:], ":")
			var n int64
			json.Unmarshal([]byte(seq), &n)
			if n != prev+1 {
				t.Fatalf("event %d after %d", n, prev)
			}
			prev = n
		case strings.HasPrefix(line, "event: "):
			event = line[7:]
			types = append(types, event)
		case strings.HasPrefix(line, "data: "):
			switch event {
			case "stream_token":
				var tok struct{ Token string }
				json.Unmarshal([]byte(line[6:]), &tok)
				tokens.WriteString(tok.Token)
			case "done":
				var snap struct {
					Status string
					Output string
				}
				json.Unmarshal([]byte(line[6:]), &snap)
				if snap.Status != "completed" {
					t.Fatalf("done: %s", line)
				}
				output, done = snap.Output, true
			}
		}
	}
	if !done || types[0] != "init" || output == "" || output != tokens.String() {
		t.Fatalf("events %v, output %q, tokens %q", types, output, tokens.String())
	}
}
