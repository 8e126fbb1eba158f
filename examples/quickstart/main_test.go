package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

var update = flag.Bool("update", false, "rewrite the snippet of examples/README.md from main.go")

// TestQuickstart runs the example against a real server, on each database,
// with the built-in offline model: nothing leaves the machine.
func TestQuickstart(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c, err := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(ts.Key))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := quickstart(context.Background(), c, &out, "What is a river?"); err != nil {
			t.Fatal(err)
		}
		// The streamed tokens, a blank line, the run line, and the output,
		// which must be exactly what was streamed.
		m := regexp.MustCompile(`(?s)^(.+)\n\nrun ([0-9a-f-]{36}) completed \(\d+\.\d{4} credits\)\noutput: (.*)\n$`).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("unexpected output:\n%s", out.String())
		}
		streamed, runID, output := m[1], m[2], m[3]
		if strings.TrimSpace(streamed) == "" || streamed != output {
			t.Fatalf("streamed %q, output %q", streamed, output)
		}
		// The agent is a real one, made from the template, and the run is its only one.
		run, err := c.GetRun(context.Background(), runID, true)
		if err != nil || run.OutputText() != output || !run.Priority || len(run.Steps) != 2 || run.Steps[0].StepType != "prompt_call" {
			t.Fatalf("the run as the server has it: %+v, %v", run, err)
		}
		agents, err := c.ListAgents(context.Background(), client.AgentListOptions{})
		if err != nil || len(agents.Items) != 1 || agents.Items[0].Name != "Quickstart" {
			t.Fatalf("agents: %+v, %v", agents, err)
		}
		if p, err := c.ListRuns(context.Background(), agents.Items[0].ID, client.RunListOptions{}); err != nil || p.Total != 1 || p.Items[0].RunID != runID {
			t.Fatalf("runs of the agent: %+v, %v", p, err)
		}
	})
}

// TestReadmeShowsMain keeps examples/README.md honest: its Go block is
// main.go, byte for byte. `go test ./examples/quickstart -update` rewrites it.
func TestReadmeShowsMain(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	readmePath := filepath.Join("..", "README.md")
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	const open, end = "```go\n", "```\n"
	i := bytes.Index(readme, []byte(open))
	if i < 0 {
		t.Fatal("examples/README.md has no ```go block")
	}
	j := bytes.Index(readme[i+len(open):], []byte(end))
	if j < 0 {
		t.Fatal("the ```go block of examples/README.md is not closed")
	}
	snippet := readme[i+len(open) : i+len(open)+j]
	if bytes.Equal(snippet, src) {
		return
	}
	if *update {
		fixed := append(append(append([]byte{}, readme[:i+len(open)]...), src...), readme[i+len(open)+j:]...)
		if err := os.WriteFile(readmePath, fixed, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("the snippet of examples/README.md differs from examples/quickstart/main.go; run `go test ./examples/quickstart -update`")
}
