package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestSIGTERMMidRun sends SIGTERM while a run waits on a slow webhook and
// both `agentry runs stream` and a raw stream follow it. The raw stream
// ends with a reconnect event; the process exits cleanly within its
// deadlines, without "database is closed"; after a restart on the same
// address the run resumes at once (the rescuer is set to five minutes)
// from its last finished step, and the CLI, which reconnected on its own,
// prints the answer and exits 0.
func TestSIGTERMMidRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		var (
			mu    sync.Mutex
			calls int
			first = make(chan struct{})
		)
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body) // so that a hang-up cancels r.Context()
			mu.Lock()
			calls++
			n := calls
			mu.Unlock()
			if n == 1 {
				close(first)
				select { // until the process running the step cancels it
				case <-r.Context().Done():
				case <-time.After(time.Minute):
				}
				return
			}
			w.Write([]byte("hooked"))
		}))
		defer hook.Close()

		dbURL, dataDir := storetest.URL(t, d), t.TempDir()
		env := []string{"SERVICE_JOB_TIMEOUT=4m", "SERVICE_JOB_RESCUE_AFTER=5m", "SERVICE_BOOTSTRAP_API_KEY=" + e2eKey,
			"SERVICE_ALLOW_PRIVATE_WEBHOOKS=true", "SERVICE_SHUTDOWN_TIMEOUT=10s", "SERVICE_JOB_SHUTDOWN_TIMEOUT=1s"}
		srv := startServe(t, dbURL, dataDir, env...)
		db, err := store.Open(ctx, dbURL, dataDir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		accountID, agentID := e2eAgent(t, db, `{"child_steps":[{"id":"a","step_type":"text","text":"first {{input}}","child_steps":[
			{"id":"hook","step_type":"webhook_call","url":"`+hook.URL+`","child_steps":[
			{"id":"show","step_type":"display_result","template":"{{step.a.output}} / {{input}}"}]}]}]}`)

		// The CLI starts the run and follows it.
		var cliOut, cliErr strings.Builder
		cli := exec.Command(os.Args[0])
		cli.Env = append(os.Environ(), "AGENTRY_E2E_CHILD=1", "AGENTRY_E2E_ARGS=runs stream "+agentID+" --input x",
			"SERVICE_API_URL=http://"+srv.addr, "SERVICE_API_KEY="+e2eKey, "SERVICE_CONFIG_DIR="+t.TempDir())
		cli.Stdout, cli.Stderr = &cliOut, &cliErr
		if err := cli.Start(); err != nil {
			t.Fatal(err)
		}
		cliDone := make(chan error, 1)
		go func() { cliDone <- cli.Wait() }()
		t.Cleanup(func() {
			if cli.ProcessState == nil {
				_ = cli.Process.Kill()
			}
		})
		select {
		case <-first:
		case <-time.After(30 * time.Second):
			t.Fatal("webhook never called")
		}
		list, _, err := runs.NewRepo(db, nil).RunsOfAgent(ctx, accountID, agentID, "", 10, 0)
		if err != nil || len(list) != 1 {
			t.Fatalf("runs: %v %v", list, err)
		}
		runID := list[0].ID

		// A raw stream of the same run, to see how it ends.
		resp := apiPost(t, srv.addr, "/agents/"+agentID+"/runs/stream", `{}`, "Last-Event-ID: "+runID+":0")
		defer resp.Body.Close()
		opened := make(chan struct{})
		lines := make(chan []string, 1)
		go func() {
			var got []string
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if len(got) == 0 {
					close(opened)
				}
				got = append(got, sc.Text())
			}
			lines <- got
		}()
		select {
		case <-opened:
		case <-time.After(30 * time.Second):
			t.Fatal("raw stream sent nothing")
		}

		if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- srv.cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("exit after SIGTERM: %v\n%s", err, srv.logs)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("did not exit within 30s of SIGTERM")
		}
		if strings.Contains(srv.logs.String(), "database is closed") {
			t.Errorf("wrote to a closed database:\n%s", srv.logs)
		}
		got := <-lines
		if n := len(got); n < 4 || got[n-3] != "event: reconnect" || !strings.Contains(got[n-2], `"last_event_id":"`+runID+`:`) {
			t.Fatalf("raw stream did not end with a reconnect event:\n%s", strings.Join(got, "\n"))
		}

		startServeAt(t, srv.addr, dbURL, dataDir, env...)
		select {
		case err := <-cliDone:
			if err != nil || strings.TrimSpace(cliOut.String()) != "first x / hooked" {
				t.Fatalf("agentry runs stream: %v\nstdout: %s\nstderr: %s", err, cliOut.String(), cliErr.String())
			}
		case <-time.After(90 * time.Second):
			t.Fatal("agentry runs stream did not finish after the restart")
		}
		r, err := runs.NewRepo(db, nil).Run(ctx, accountID, runID)
		if err != nil || r.Status != runs.RunCompleted {
			t.Fatalf("run %s %v", r.Status, err)
		}
		steps, _ := runs.NewRepo(db, nil).Steps(ctx, runID)
		ran := map[string]int{}
		for _, s := range steps {
			ran[s.StepID]++
		}
		if ran["a"] != 1 || ran["hook"] != 2 {
			t.Errorf("step attempts across the restart: %v (want a once, hook twice)", ran)
		}
	})
}
