package cli_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestAgentsRegressCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		agent := ts.StoreAgent(t, ts.AccountID, "r", `{"child_steps":[{"id":"greet","step_type":"text","text":"one {{input}}"}]}`, "dynamic_input")
		for i := range 3 {
			var r client.AgentRunResponse
			run(t, append(g, "runs", "start", agent, "--input", fmt.Sprintf("q%d", i), "--wait")...).ok(t, &r)
		}
		var def client.AgentDefinition
		run(t, append(g, "agents", "definition", "get", agent)...).ok(t, &def)

		run(t, append(g, "agents", "regress", agent)...).exits(t, cli.ExitUsage, "--last")
		run(t, append(g, "agents", "regress", agent, "--last", "101")...).exits(t, cli.ExitValidation, "last_runs")

		var reg client.Regression
		run(t, append(g, "agents", "regress", agent, "--last", "3", "--wait", "--interval", "100ms")...).ok(t, &reg)
		if reg.Status != "completed" || reg.Progress.Finished != 3 || reg.Report.Unchanged != 3 || reg.ChangeID != def.ChangeID {
			t.Fatalf("regress --wait: %+v", reg)
		}
		tbl := run(t, append(g, "agents", "regressions", "get", agent, reg.RegressionID, "-o", "table")...)
		if !strings.Contains(tbl.stdout, "3 unchanged, 0 changed") || !strings.Contains(tbl.stdout, "100.0% -> 100.0%") {
			t.Errorf("get table:\n%s", tbl.stdout)
		}
		var list []client.Regression
		run(t, append(g, "agents", "regressions", "list", agent)...).ok(t, &list)
		if len(list) != 1 || list[0].RegressionID != reg.RegressionID {
			t.Errorf("list: %+v", list)
		}
		run(t, append(g, "agents", "regressions", "cancel", agent, reg.RegressionID)...).exits(t, cli.ExitConflict, "")
	})
}
