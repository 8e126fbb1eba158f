package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestRunsReviewCommands(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		agent := ts.StoreAgent(t, ts.AccountID, "reviewed", `{"child_steps":[{"id":"review","step_type":"human_in_the_loop","instructions":"Publish {{input}}?",
			"allow_edit":true,"child_steps":[{"id":"show","step_type":"display_result","template":"published: {{input}}"}]}]}`, "dynamic_input")
		c, err := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(ts.Key))
		if err != nil {
			t.Fatal(err)
		}
		parked := func() string {
			r, err := c.StartRun(context.Background(), agent, client.AgentRunRequest{Input: "draft"})
			if err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				got, err := c.GetRun(context.Background(), r.RunID, false)
				if err != nil || got.Status == client.RunWaitingHuman {
					return r.RunID
				}
				if time.Now().After(deadline) {
					t.Fatalf("run %s", got.Status)
				}
			}
		}
		first, second := parked(), parked()

		var list []client.RunReview
		run(t, append(g, "runs", "review", "list")...).ok(t, &list)
		if len(list) != 2 || list[0].RunID != first || list[0].Instructions != "Publish draft?" {
			t.Fatalf("list: %+v", list)
		}
		run(t, append(g, "runs", "review", "list", "--run", second)...).ok(t, &list)
		if len(list) != 1 || list[0].RunID != second {
			t.Fatalf("list --run: %+v", list)
		}

		file := filepath.Join(dir, "edit.md")
		if err := os.WriteFile(file, []byte("from a file"), 0o600); err != nil {
			t.Fatal(err)
		}
		var rv client.RunReview
		run(t, append(g, "runs", "review", "approve", first, "--comment", "fine", "--edited-file", file)...).ok(t, &rv)
		if rv.Status != client.ReviewApproved || rv.Comment == nil || *rv.Comment != "fine" {
			t.Fatalf("approve: %+v", rv)
		}
		done, err := c.PollRun(context.Background(), first, 20*time.Millisecond, 20*time.Second)
		if err != nil || done.OutputText() != "published: from a file" {
			t.Fatalf("resumed: %+v %v", done, err)
		}
		run(t, append(g, "runs", "review", "reject", first)...).exits(t, cli.ExitConflict, "already been decided")
		run(t, append(g, "runs", "review", "approve", first, "--edited", "a", "--edited-file", file)...).exits(t, cli.ExitUsage, "not both")
		run(t, append(g, "runs", "review", "reject", second, "--step", "review", "--comment", "no")...).ok(t, &rv)
		if rv.Status != client.ReviewRejected {
			t.Fatalf("reject: %+v", rv)
		}
		run(t, append(g, "runs", "review", "list")...).ok(t, &list)
		if len(list) != 0 {
			t.Fatalf("after deciding both: %+v", list)
		}
	})
}
