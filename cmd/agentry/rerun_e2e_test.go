package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestRerunResumesAfterKill kills the process while a rerun waits on the
// step it runs again, restarts it, and expects the rerun to finish from its
// journal: the step it reused from the original run is executed neither by
// the rerun nor by its resumed attempt, and is recorded once.
func TestRerunResumesAfterKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes and waits for the job rescuer")
	}
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		var (
			mu      sync.Mutex
			calls   = map[string]int{}
			blocked = make(chan struct{})
			block   = make(chan struct{})
		)
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			calls[r.URL.Path]++
			n := calls[r.URL.Path]
			mu.Unlock()
			switch {
			case r.URL.Path == "/a":
				w.Write([]byte("from a"))
			case n == 1: // the original run fails at b
				http.Error(w, "b is broken", http.StatusBadRequest)
			case n == 2: // the rerun's b: the process holding it is killed
				close(blocked)
				select {
				case <-block:
				case <-r.Context().Done():
				}
			default:
				w.Write([]byte("b fixed"))
			}
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
		accountID, agentID := e2eAgent(t, db, `{"child_steps":[{"id":"a","step_type":"webhook_call","url":"`+hook.URL+`/a","child_steps":[
			{"id":"b","step_type":"webhook_call","url":"`+hook.URL+`/b","child_steps":[
			{"id":"show","step_type":"display_result","template":"{{step.a.output}} / {{input}}"}]}]}]}`)

		waitEnd := func(runID string, within time.Duration) runs.Run {
			t.Helper()
			deadline := time.Now().Add(within)
			for {
				r, err := runs.NewRepo(db, nil).Run(ctx, accountID, runID)
				if err != nil {
					t.Fatal(err)
				}
				if runs.RunTerminal(r.Status) {
					return r
				}
				if time.Now().After(deadline) {
					t.Fatalf("run %s still %s\n%s", runID, r.Status, c.logs)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		var run struct {
			RunID string `json:"run_id"`
		}
		resp := apiPost(t, c.addr, "/agents/"+agentID+"/runs", `{"input":"x"}`)
		json.NewDecoder(resp.Body).Decode(&run)
		resp.Body.Close()
		if orig := waitEnd(run.RunID, 30*time.Second); orig.Status != runs.RunFailed {
			t.Fatalf("original run %s, want failed at b", orig.Status)
		}

		resp = apiPost(t, c.addr, "/agents/runs/"+run.RunID+"/rerun", `{"from_step":"b"}`)
		var rerun struct {
			RunID   string `json:"run_id"`
			RerunOf string `json:"rerun_of"`
		}
		json.NewDecoder(resp.Body).Decode(&rerun)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted || rerun.RerunOf != run.RunID {
			t.Fatalf("rerun: %d %+v", resp.StatusCode, rerun)
		}
		select {
		case <-blocked:
		case <-time.After(30 * time.Second):
			t.Fatalf("the rerun never called b\n%s", c.logs)
		}
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = c.cmd.Wait()

		startServe(t, dbURL, dataDir, env...)
		r := waitEnd(rerun.RunID, 100*time.Second)
		if r.Status != runs.RunCompleted || r.Output == nil || *r.Output != "from a / b fixed" {
			t.Fatalf("rerun %s output %v error %q", r.Status, r.Output, r.Error)
		}
		mu.Lock()
		if calls["/a"] != 1 || calls["/b"] != 3 {
			t.Errorf("webhook calls %v: want a once in all (the original's), b three times", calls)
		}
		mu.Unlock()
		steps, _ := runs.NewRepo(db, nil).Steps(ctx, rerun.RunID)
		recorded := map[string]int{}
		for _, s := range steps {
			recorded[s.StepID]++
		}
		if recorded["a"] != 1 || recorded["show"] != 1 {
			t.Errorf("rerun journal: %v; want a (reused) and show once", recorded)
		}
		attempts, _ := runs.NewRepo(db, nil).RunAttempts(ctx, rerun.RunID)
		if len(attempts) != 2 {
			t.Errorf("rerun attempts: %+v; want the killed one and its resumption", attempts)
		}
	})
}
