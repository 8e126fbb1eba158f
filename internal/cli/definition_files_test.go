package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/cli"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestDefinitionFileMistakes: a mistake in a workflow file is reported the
// same way, with the same exit code, by definition put and agents import;
// malformed JSON names its line and column.
func TestDefinitionFileMistakes(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		var a client.Agent
		run(t, append(g, "agents", "create", "--name", "files", "--template", "simple_qa")...).ok(t, &a)
		var cur client.AgentDefinition
		run(t, append(g, "agents", "definition", "get", a.ID)...).ok(t, &cur)
		dir := t.TempDir()
		for _, tc := range []struct {
			name, body, stderrHas string
			code                  int
		}{
			{"malformed JSON", "{\n  \"name\": \"x\",\n  \"child_steps\": [\n    {\"id\": \"a\",}\n  ]\n}\n", "line 4, column 16", cli.ExitValidation},
			{"unknown step type", `{"name": "x", "child_steps": [{"id": "a", "name": "A", "step_type": "teleport"}]}`, "teleport", cli.ExitValidation},
			{"not an object", `[1, 2]`, "", cli.ExitValidation},
		} {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			os.WriteFile(file, []byte(tc.body), 0o600)
			put := run(t, append(g, "agents", "definition", "put", a.ID, "--file", file, "--change-id", cur.ChangeID)...)
			imp := run(t, append(g, "agents", "import", "--file", file, "--name", "copy")...)
			if put.code != tc.code || imp.code != tc.code {
				t.Errorf("%s: definition put exits %d, agents import %d; want %d for both\nput: %s\nimport: %s", tc.name, put.code, imp.code, tc.code, put.stderr, imp.stderr)
			}
			if !strings.Contains(put.stderr, tc.stderrHas) || !strings.Contains(imp.stderr, tc.stderrHas) {
				t.Errorf("%s: want %q in both\nput: %s\nimport: %s", tc.name, tc.stderrHas, put.stderr, imp.stderr)
			}
		}
	})
}
