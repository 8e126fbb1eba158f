package cli_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestRunsAccountCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		agent := ts.StoreAgent(t, ts.AccountID, "shown", `{"child_steps":[{"id":"show","step_type":"display_result","template":"hi {{input}}"}]}`, "dynamic_input")
		c, err := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(ts.Key))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, in := range []string{"a", "b", "c"} {
			r, err := c.RunAndWait(context.Background(), agent, client.AgentRunRequest{Input: in})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.RunID)
		}

		var list []client.RunListItem
		r := run(t, append(g, "runs", "all", "--limit", "2", "--since", "1h")...)
		r.ok(t, &list)
		if len(list) != 2 || list[0].RunID != ids[2] || !strings.Contains(r.stderr, "--cursor "+ids[1]) {
			t.Fatalf("page: %+v, stderr %q", list, r.stderr)
		}
		run(t, append(g, "runs", "all", "--cursor", ids[1])...).ok(t, &list)
		if len(list) != 1 || list[0].RunID != ids[0] {
			t.Fatalf("next page: %+v", list)
		}
		run(t, append(g, "runs", "all", "--all", "--limit", "1", "--agent-id", agent, "--status", "completed")...).ok(t, &list)
		if len(list) != 3 {
			t.Fatalf("--all: %+v", list)
		}
		run(t, append(g, "runs", "all", "--until", "1h")...).ok(t, &list)
		if len(list) != 0 {
			t.Fatalf("--until 1h ago: %+v", list)
		}
		run(t, append(g, "runs", "all", "--since", "last tuesday")...).exits(t, cli.ExitUsage, "--since")

		var sum client.RunsSummary
		run(t, append(g, "runs", "summary", "--hours", "3")...).ok(t, &sum)
		if sum.Total != 3 || sum.ByStatus["completed"] != 3 || len(sum.Buckets) != 3 {
			t.Fatalf("summary: %+v", sum)
		}
		table := run(t, append(g, "runs", "summary", "-o", "table")...)
		if table.code != 0 || !strings.Contains(table.stdout, "Failure rate") || !strings.Contains(table.stdout, "0.0%") {
			t.Fatalf("summary table: %q %q", table.stdout, table.stderr)
		}

		var det client.RunDetails
		run(t, append(g, "runs", "details", ids[0])...).ok(t, &det)
		if det.RunID != ids[0] || det.AgentID != agent {
			t.Fatalf("details: %+v", det)
		}
		other := ts.NewTenant(t, "other")
		run(t, "--base-url", ts.URL, "--api-key", other.Key, "runs", "details", ids[0]).exits(t, cli.ExitNotFound, "")
	})
}
