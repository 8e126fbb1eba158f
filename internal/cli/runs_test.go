package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/spf13/cobra"
)

const runsChainDef = `{"child_steps":[{"id":"greet","step_type":"text","text":"Hello {{input}} ({{metadata.lang | default: \"en\"}})","child_steps":[{"id":"show","step_type":"display_result","template":"{{input}}!"}]}]}`

// runsAgent stores an agent with a definition, as the agents area would.
func runsAgent(t *testing.T, ts *testserver.Server, def string) string {
	t.Helper()
	return ts.StoreAgent(t, ts.AccountID, "cli run agent", def, "dynamic_input")
}

// runIn is run with stdin.
func runIn(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runTo(t, nil, strings.NewReader(stdin), args...)
}

// runTo executes `agentry args…` writing stdout to w as well (a pipe the
// test reads while the command runs).
func runTo(t *testing.T, w io.Writer, stdin io.Reader, args ...string) result {
	t.Helper()
	root := &cobra.Command{Use: "agentry", SilenceUsage: true, SilenceErrors: true}
	cli.Register(root)
	var out, errb bytes.Buffer
	if w != nil {
		root.SetOut(io.MultiWriter(&out, w))
	} else {
		root.SetOut(&out)
	}
	root.SetErr(&errb)
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	root.SetIn(stdin)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err != nil {
		fmt.Fprintln(&errb, "agentry:", err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: cli.ExitCode(err), err: err}
}

func TestRunsCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		agent := runsAgent(t, ts, runsChainDef)

		var started client.AgentRunResponse
		runs := func(args ...string) []string { return append(append(append([]string{}, g...), "runs"), args...) }
		run(t, runs("start", agent, "--input", "world")...).ok(t, &started)
		if started.RunID == "" || started.Status != client.RunPending {
			t.Fatalf("start = %+v", started)
		}
		var done client.AgentRunResponse
		run(t, runs("start", agent, "--input", "there", "--metadata", `{"lang":"fr"}`, "--priority", "--wait", "--interval", "20ms")...).ok(t, &done)
		if done.Status != client.RunCompleted || done.OutputText() != "Hello there (fr)!" || !done.Priority {
			t.Fatalf("start --wait = %+v", done)
		}
		runIn(t, "from stdin", runs("start", agent, "--input-file", "-", "--wait", "--interval", "20ms")...).ok(t, &done)
		if done.OutputText() != "Hello from stdin (en)!" {
			t.Fatalf("--input-file - = %q", done.OutputText())
		}
		// The first run was started without --wait, and the priority run
		// above may have overtaken it: wait for it to finish before
		// reading its steps.
		for deadline := time.Now().Add(30 * time.Second); ; {
			var cur client.AgentRunResponse
			run(t, runs("get", started.RunID)...).ok(t, &cur)
			if cur.Status == client.RunCompleted {
				break
			}
			if cur.Status == client.RunFailed || time.Now().After(deadline) {
				t.Fatalf("the first run did not complete: %+v", cur)
			}
			time.Sleep(20 * time.Millisecond)
		}
		tbl := run(t, runs("get", started.RunID, "--steps", "-o", "table")...)
		tbl.ok(t, nil)
		for _, want := range []string{"Run:", started.RunID, "Status:", "greet", "display_result", "STEP", "Hello world (en)"} {
			if !strings.Contains(tbl.stdout, want) {
				t.Fatalf("get --steps table lacks %q:\n%s", want, tbl.stdout)
			}
		}
		var got client.AgentRunResponse
		run(t, runs("get", started.RunID, "--steps")...).ok(t, &got)
		if got.Status != client.RunCompleted || len(got.Steps) != 2 || got.Steps[0].AgentStepID != "greet" {
			t.Fatalf("get --steps = %+v", got)
		}

		// Listing: a page, with a hint when there are more; every page; a filter.
		var list []client.AgentRunResponse
		page := run(t, runs("list", agent, "--limit", "2")...)
		page.ok(t, &list)
		if len(list) != 2 || !strings.Contains(page.stderr, "--page 2") || *list[0].Input != "from stdin" {
			t.Fatalf("list page: %+v\n%s", list, page.stderr)
		}
		run(t, runs("list", agent, "--limit", "1", "--all", "--status", "completed")...).ok(t, &list)
		if len(list) != 3 {
			t.Fatalf("list --all --status completed: %d runs", len(list))
		}
		tbl = run(t, runs("list", agent, "-o", "table")...)
		if tbl.code != 0 || !strings.Contains(tbl.stdout, "RUN ID") || strings.Count(tbl.stdout, "\n") != 4 {
			t.Fatalf("list table:\n%s", tbl.stdout)
		}

		var found client.AgentTraceSearchResponse
		run(t, runs("search", "--query", "hello there", "--agent-id", agent, "--top", "3")...).ok(t, &found)
		if found.Total == 0 || found.Total > 3 || !strings.Contains(found.Matches[0].Text, "Hello there") {
			t.Fatalf("search = %+v", found)
		}
		tbl = run(t, runs("search", "--query", "hello", "-o", "table")...)
		if tbl.code != 0 || !strings.Contains(tbl.stdout, "SCORE") {
			t.Fatalf("search table:\n%s%s", tbl.stdout, tbl.stderr)
		}

		// Failures map to their exit codes.
		run(t, runs("cancel", started.RunID)...).exits(t, cli.ExitConflict, "finished")
		run(t, runs("get", store.NewID())...).exits(t, cli.ExitNotFound, "not found")
		run(t, runs("start", agent, "--input", "x", "--metadata", "[1]")...).exits(t, cli.ExitUsage, "--metadata must be a JSON object")
		run(t, runs("start", agent, "--input", "x", "--input-file", "f")...).exits(t, cli.ExitUsage, "not both")
		run(t, runs("search")...).exits(t, cli.ExitUsage, "--query is required")
		run(t, runs("list", agent, "--status", "bogus")...).exits(t, cli.ExitValidation, "status")
		failing := runsAgent(t, ts, `{"child_steps":[{"id":"a","step_type":"text","text":"{{metadata.absent}}"}]}`)
		r := run(t, runs("start", failing, "--input", "x", "--wait", "--interval", "20ms")...)
		if r.code != cli.ExitError || !strings.Contains(r.stderr, "metadata.absent") || !strings.Contains(r.stdout, `"status": "failed"`) {
			t.Fatalf("a failed run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})
}

// TestRunsStreamPrintsTokensLive streams a run whose answer is followed by
// a webhook that holds the run open: the answer must reach stdout while
// the run is still processing, not when it ends.
func TestRunsStreamPrintsTokensLive(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		arrived, release := make(chan struct{}, 1), make(chan struct{})
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			arrived <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer hook.Close()
		var once sync.Once
		defer once.Do(func() { close(release) })
		agent := runsAgent(t, ts, `{"child_steps":[{"id":"ask","step_type":"prompt_call","prompt_template":"Summarise: Rivers flow to the sea. Rain fills the rivers again. {{input}}",
			"child_steps":[{"id":"stream","step_type":"streaming_result","child_steps":[{"id":"hook","step_type":"webhook_call","url":"`+hook.URL+`"}]}]}]}`)

		pr, pw := io.Pipe()
		var mu sync.Mutex
		var live strings.Builder
		go func() {
			b := make([]byte, 256)
			for {
				n, err := pr.Read(b)
				mu.Lock()
				live.Write(b[:n])
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
		finished := make(chan result, 1)
		go func() {
			finished <- runTo(t, pw, nil, "--base-url", ts.URL, "--api-key", ts.Key, "runs", "stream", agent, "--input", "Thanks.")
			pw.Close()
		}()
		select {
		case <-arrived:
		case r := <-finished:
			t.Fatalf("the command ended before the webhook was called: %+v", r)
		case <-time.After(20 * time.Second):
			t.Fatal("the run never reached the webhook")
		}
		// The run is now held open by the webhook; the answer is already out.
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			n := live.Len()
			mu.Unlock()
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no token reached stdout while the run was processing")
			}
			time.Sleep(10 * time.Millisecond)
		}
		select {
		case r := <-finished:
			t.Fatalf("the command ended while the run was held: %+v", r)
		default:
		}
		once.Do(func() { close(release) })
		r := <-finished
		r.ok(t, nil)
		runs, _, err := runs.NewRepo(ts.DB, nil).RunsOfAgent(context.Background(), ts.AccountID, agent, "", 10, 0)
		if err != nil || len(runs) != 1 || runs[0].Output == nil {
			t.Fatalf("runs: %+v, %v", runs, err)
		}
		if want := *runs[0].Output + "\n"; r.stdout != want || *runs[0].Output == "" {
			t.Fatalf("stdout %q, want the output %q and a newline", r.stdout, want)
		}
	})
}

func TestRunsStreamJSONAndText(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		agent := runsAgent(t, ts, runsChainDef)

		// No streaming_result step: the output is printed when it is done.
		r := run(t, append(g, "runs", "stream", agent, "--input", "stream")...)
		r.ok(t, nil)
		if r.stdout != "Hello stream (en)!\n" {
			t.Fatalf("text stream: %q", r.stdout)
		}
		r = run(t, append(g, "runs", "stream", agent, "--input", "json", "-o", "json")...)
		r.ok(t, nil)
		var events []struct {
			Event string          `json:"event"`
			ID    string          `json:"id"`
			Data  json.RawMessage `json:"data"`
		}
		sc := bufio.NewScanner(strings.NewReader(r.stdout))
		for sc.Scan() {
			var ev struct {
				Event string          `json:"event"`
				ID    string          `json:"id"`
				Data  json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatalf("not a JSON line: %q", sc.Text())
			}
			events = append(events, ev)
		}
		if len(events) < 5 || events[0].Event != "init" || events[len(events)-1].Event != "done" {
			t.Fatalf("JSON events: %s", r.stdout)
		}
		runID, _, _ := strings.Cut(events[0].ID, ":")
		for i, ev := range events {
			if ev.ID != fmt.Sprintf("%s:%d", runID, i) {
				t.Fatalf("event %d has id %q", i, ev.ID)
			}
		}
		var final client.AgentRunResponse
		if err := json.Unmarshal(events[len(events)-1].Data, &final); err != nil || final.OutputText() != "Hello json (en)!" {
			t.Fatalf("done data: %s", events[len(events)-1].Data)
		}
		failing := runsAgent(t, ts, `{"child_steps":[{"id":"a","step_type":"text","text":"{{step.nope.output}}"}]}`)
		run(t, append(g, "runs", "stream", failing, "--input", "x")...).exits(t, cli.ExitError, "nope")
		run(t, append(g, "runs", "stream", store.NewID(), "--input", "x")...).exits(t, cli.ExitNotFound, "")
		run(t, append(g, "runs", "stream", agent, "-o", "yaml")...).exits(t, cli.ExitUsage, "unknown output format")
	})
}

func TestRunsCancelAndDownload(t *testing.T) {
	// Not in parallel: a download without --file lands in the working
	// directory, which the test changes (t.Chdir) for the process.
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		arrived, release := make(chan struct{}, 1), make(chan struct{})
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			arrived <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer hook.Close()
		defer close(release)
		agent := runsAgent(t, ts, `{"child_steps":[{"id":"call","step_type":"webhook_call","url":"`+hook.URL+`"}]}`)
		var started, cancelled client.AgentRunResponse
		run(t, append(g, "runs", "start", agent, "--input", "x")...).ok(t, &started)
		select {
		case <-arrived:
		case <-time.After(20 * time.Second):
			t.Fatal("the run never called the webhook")
		}
		run(t, append(g, "runs", "cancel", started.RunID, "--wait")...).ok(t, &cancelled)
		if cancelled.Status != client.RunFailed || cancelled.LastError() != "Run cancelled" {
			t.Fatalf("cancel --wait = %+v", cancelled)
		}
		run(t, append(g, "runs", "cancel", started.RunID)...).exits(t, cli.ExitConflict, "cannot be cancelled")

		// A file a step stored, downloaded to a file, renamed, and to stdout.
		payload := bytes.Repeat([]byte("report "), 40_000)
		key := "runs/" + started.RunID + "/report.pdf"
		if _, err := ts.S.Blobs.Put(ctx, key, "application/pdf", bytes.NewReader(payload)); err != nil {
			t.Fatal(err)
		}
		if err := runs.NewRepo(ts.DB, nil).AddRunAttachment(ctx, runs.RunAttachment{StorageKey: key, RunID: started.RunID, AccountID: ts.AccountID,
			Name: "report.pdf", ContentType: "application/pdf", Size: int64(len(payload))}); err != nil {
			t.Fatal(err)
		}
		id := client.RunAttachmentID(key)
		dir := t.TempDir()
		dest := filepath.Join(dir, "out.pdf")
		run(t, append(g, "runs", "download", started.RunID, id, "--file", dest)...).ok(t, nil)
		if b, _ := os.ReadFile(dest); !bytes.Equal(b, payload) {
			t.Fatalf("downloaded %d bytes, want %d", len(b), len(payload))
		}
		// Without --file, the server's name (here the one asked for) is used.
		t.Chdir(dir)
		run(t, append(g, "runs", "download", started.RunID, id, "--name", "renamed.pdf")...).ok(t, nil)
		if b, _ := os.ReadFile(filepath.Join(dir, "renamed.pdf")); !bytes.Equal(b, payload) {
			t.Fatalf("--name: %d bytes", len(b))
		}
		r := run(t, append(g, "runs", "download", started.RunID, id, "--file", "-")...)
		if r.code != 0 || r.stdout != string(payload) {
			t.Fatalf("download to stdout: exit %d, %d bytes", r.code, len(r.stdout))
		}
		run(t, append(g, "runs", "download", started.RunID, client.RunAttachmentID("runs/nope"))...).exits(t, cli.ExitNotFound, "")
	})
}

func TestRunsHelp(t *testing.T) {
	t.Parallel()
	isolate(t)
	for _, verb := range []string{"start", "stream", "get", "list", "search", "cancel", "download"} {
		r := run(t, "runs", verb, "--help")
		r.ok(t, nil)
		if !strings.Contains(r.stdout, "Examples:") || !strings.Contains(r.stdout, "agentry runs "+verb) {
			t.Errorf("agentry runs %s --help has no example of itself:\n%s", verb, r.stdout)
		}
	}
	run(t, "runs", "get").exits(t, cli.ExitUsage, "accepts 1 arg")
	run(t, "runs", "download", "x").exits(t, cli.ExitUsage, "accepts 2 arg")
}
