package cli_test

import (
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestAgentsSchedulesCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		var agent client.Agent
		run(t, append(g, "agents", "create", "--name", "Weekly", "--template", "scheduled_report")...).ok(t, &agent)

		var sc client.Schedule
		run(t, append(g, "agents", "schedules", "add", agent.ID, "--cron", "0 9 * * 1-5", "--timezone", "Europe/Paris", "--input", "numbers")...).ok(t, &sc)
		if sc.NextFireAt == nil || sc.Timezone != "Europe/Paris" || sc.Input == nil || *sc.Input != "numbers" {
			t.Fatalf("add: %+v", sc)
		}
		tbl := run(t, append(g, "agents", "schedules", "list", agent.ID, "-o", "table")...)
		tbl.ok(t, nil)
		if !strings.Contains(tbl.stdout, "0 9 * * 1-5") || !strings.Contains(tbl.stdout, "Europe/Paris") || !strings.Contains(tbl.stdout, "CET") && !strings.Contains(tbl.stdout, "CEST") {
			t.Errorf("list table:\n%s", tbl.stdout)
		}
		run(t, append(g, "agents", "schedules", "update", agent.ID, sc.ID, "--enabled=false")...).ok(t, &sc)
		if sc.Enabled || sc.NextFireAt != nil {
			t.Errorf("update: %+v", sc)
		}
		var list []client.Schedule
		run(t, append(g, "agents", "schedules", "list", agent.ID)...).ok(t, &list)
		if len(list) != 1 || list[0].Enabled {
			t.Errorf("list: %+v", list)
		}
		run(t, append(g, "agents", "schedules", "add", agent.ID, "--cron", "61 * * * *")...).exits(t, cli.ExitValidation, "cron_expression")
		run(t, append(g, "agents", "schedules", "add", agent.ID)...).exits(t, cli.ExitUsage, "--cron")
		run(t, append(g, "agents", "schedules", "update", agent.ID, sc.ID)...).exits(t, cli.ExitUsage, "nothing to change")
		run(t, append(g, "agents", "schedules", "remove", agent.ID, sc.ID)...).ok(t, nil)
		run(t, append(g, "agents", "schedules", "remove", agent.ID, sc.ID)...).exits(t, cli.ExitNotFound, "not found")
		run(t, append(g, "agents", "schedules", "list", agent.ID)...).ok(t, &list)
		if len(list) != 0 {
			t.Errorf("after remove: %+v", list)
		}
		// Under the strict version the list is the envelope; the client reads both.
		run(t, append(g, "--api-version", client.LatestVersion, "agents", "schedules", "list", agent.ID)...).ok(t, &list)
	})
}

func TestAgentsTemplatesCommand(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		var list []client.AgentTemplate
		run(t, append(g, "agents", "templates")...).ok(t, &list)
		avail := map[string]bool{}
		for _, tm := range list {
			avail[tm.Name] = tm.Available
		}
		if !avail["simple_qa"] || !avail["retrieval_example"] {
			t.Errorf("templates: %+v", list)
		}
		tbl := run(t, append(g, "agents", "templates", "-o", "table")...)
		if !strings.Contains(tbl.stdout, "retrieval_example") || strings.Contains(tbl.stdout, "needs retrieval") {
			t.Errorf("table:\n%s", tbl.stdout)
		}
	})
}
