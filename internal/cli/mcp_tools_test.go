package cli_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

func TestMCPToolsCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		r := ts.Do(t, "POST", "/agents", ts.Key, map[string]any{"name": "Ticket helper",
			"agent_definition": json.RawMessage(`{"child_steps":[{"id":"a","step_type":"text","text":"{{input}}"}]}`)})
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		var a struct{ ID string }
		r.JSON(t, &a)

		var got client.AgentMCPTool
		run(t, append(g, "mcp-tools", "expose", a.ID, "--name", "summarise_ticket")...).ok(t, &got)
		if !got.Enabled || got.ToolName == nil || *got.ToolName != "summarise_ticket" {
			t.Fatalf("expose: %+v", got)
		}
		tbl := run(t, append(g, "mcp-tools", "list", "-o", "table")...)
		tbl.ok(t, nil)
		if !strings.Contains(tbl.stdout, "summarise_ticket") || !strings.Contains(tbl.stdout, a.ID) {
			t.Fatalf("list:\n%s", tbl.stdout)
		}
		run(t, append(g, "mcp-tools", "hide", a.ID)...).ok(t, &got)
		run(t, append(g, "mcp-tools", "get", a.ID)...).ok(t, &got)
		if got.Enabled {
			t.Fatalf("after hide: %+v", got)
		}
		run(t, append(g, "mcp-tools", "expose", a.ID, "--name", "run_agent")...).exits(t, cli.ExitValidation, "tool_name")
	})
}
