package cli_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
	"github.com/spf13/cobra"
)

// listCommands returns the command paths (without "agentry") of every
// list command: those named list, and the lists named for what they list.
func listCommands() []string {
	root := &cobra.Command{Use: "agentry"}
	cli.Register(root)
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		switch c.Name() {
		case "list", "conversations", "history", "entries", "keys":
			if c.Runnable() {
				out = append(out, strings.TrimPrefix(c.CommandPath(), "agentry "))
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	sort.Strings(out)
	return out
}

// createdID runs a create command and returns the id it printed.
func createdID(t *testing.T, args ...string) string {
	t.Helper()
	var v map[string]any
	run(t, args...).ok(t, &v)
	for _, k := range []string{"id", "source_connection_id", "solution_id"} {
		if id, ok := v[k].(string); ok && id != "" {
			return id
		}
	}
	t.Fatalf("%v printed no id: %v", args, v)
	return ""
}

// TestEveryListCommandPrintsATable: `-o table` prints a table (never
// JSON) for every list command of the tree. `evals results list -o
// table`, among others, used to print JSON.
func TestEveryListCommandPrintsATable(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		agent := createdID(t, append(g, "agents", "create", "--name", "QA", "--template", "simple_qa")...)
		crit := createdID(t, append(g, "evals", "criteria", "create", agent, "--step", "answer", "--expect", `{"contains": "Paris"}`)...)
		source := createdID(t, append(g, "sources", "create", "Handbook")...)
		solution := createdID(t, append(g, "solutions", "create", "--name", "Support")...)
		bank := createdID(t, append(g, "memory", "create", "Support turns")...)
		args := map[string][]string{
			"agents schedules list":   {agent},
			"agents versions list":    {agent},
			"agents regressions list": {agent},
			"evals criteria list":     {agent},
			"evals results list":      {crit},
			"exports list":            {source},
			"runs list":               {agent},
			"solutions conversations": {solution},
			"assistant history":       {agent, "agent_workflow"},
			"memory entries":          {bank},
			"memory keys":             {bank},
		}
		// Lists that hold something here show it.
		shows := map[string]string{"agents list": agent, "evals criteria list": crit, "sources list": source, "solutions list": solution}
		cmds := listCommands()
		if len(cmds) < 25 {
			t.Fatalf("only %d list commands found: %v", len(cmds), cmds)
		}
		for _, path := range cmds {
			argv := append(append(append([]string{}, g...), strings.Fields(path)...), args[path]...)
			r := run(t, append(argv, "-o", "table")...)
			if r.code != 0 {
				t.Errorf("%s -o table: exit %d: %s", path, r.code, r.stderr)
				continue
			}
			out := strings.TrimSpace(r.stdout)
			if out == "" || json.Valid([]byte(out)) {
				t.Errorf("%s -o table printed JSON or nothing:\n%s", path, r.stdout)
			}
			if want := shows[path]; want != "" && !strings.Contains(out, want) {
				t.Errorf("%s -o table does not show %s:\n%s", path, want, out)
			}
		}
	})
}
