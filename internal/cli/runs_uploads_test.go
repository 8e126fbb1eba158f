package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestRunsWithUploadsAndLongValues(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d, func(c *server.Config) { c.MaxBodyBytes = 64 << 10 })
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		agent := runsAgent(t, ts, `{"child_steps":[{"id":"read","step_type":"text","text":"{{agent.attachments}} / {{input}}"}]}`)
		dir := t.TempDir()
		notes := filepath.Join(dir, "notes.txt")
		os.WriteFile(notes, []byte("the uploaded notes"), 0o600)
		more := filepath.Join(dir, "more.txt")
		os.WriteFile(more, []byte("more notes"), 0o600)
		var up1, up2 client.InputUpload
		run(t, append(g, "agents", "upload-input", agent, "--file", notes, "--wait", "--interval", "50ms")...).ok(t, &up1)
		run(t, append(g, "agents", "upload-input", agent, "--file", more, "--wait", "--interval", "50ms")...).ok(t, &up2)

		// Both commands take the uploads, repeatable.
		var done client.AgentRunResponse
		run(t, append(g, "runs", "start", agent, "--input-upload-id", up1.ID, "--input-upload-id", up2.ID, "--wait", "--interval", "50ms")...).ok(t, &done)
		if done.Status != client.RunCompleted || !strings.Contains(done.OutputText(), "the uploaded notes") || !strings.Contains(done.OutputText(), "more notes") {
			t.Fatalf("start with uploads: %+v %q", done.Status, done.OutputText())
		}
		r := run(t, append(g, "runs", "stream", agent, "--input-upload-id", up1.ID)...)
		r.ok(t, nil)
		if !strings.Contains(r.stdout, "the uploaded notes") {
			t.Errorf("stream with an upload: %q", r.stdout)
		}

		// A failed extraction exits non-zero under --wait, after showing why.
		broken := filepath.Join(dir, "broken.json")
		os.WriteFile(broken, []byte(`{"a": `), 0o600)
		r = run(t, append(g, "agents", "upload-input", agent, "--file", broken, "--wait", "--interval", "50ms")...)
		if r.code != cli.ExitError || !strings.Contains(r.stderr, "failed") || !strings.Contains(r.stdout, `"status": "failed"`) {
			t.Errorf("failed upload: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}

		// An input over the body limit: a 413 that points at upload-input.
		big := filepath.Join(dir, "big.txt")
		os.WriteFile(big, []byte(strings.Repeat("word ", 20<<10)), 0o600)
		r = run(t, append(g, "runs", "start", agent, "--input-file", big)...)
		if r.code != cli.ExitError || !strings.Contains(r.stderr, "agents upload-input") || !strings.Contains(r.stderr, "--input-upload-id") {
			t.Errorf("413: exit %d, stderr %q", r.code, r.stderr)
		}

		// Table output shortens a long output as it does the input.
		long := strings.Repeat("lorem ipsum ", 100)
		var lr client.AgentRunResponse
		run(t, append(g, "runs", "start", agent, "--input", long, "--wait", "--interval", "50ms")...).ok(t, &lr)
		tbl := run(t, append(g, "runs", "get", lr.RunID, "-o", "table")...)
		tbl.ok(t, nil)
		if strings.Contains(tbl.stdout, strings.TrimSpace(long)) || !strings.Contains(tbl.stdout, "…") || !strings.Contains(tbl.stdout, "-o json") {
			t.Errorf("long output in a table:\n%s", tbl.stdout)
		}
	})
}
