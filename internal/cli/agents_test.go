package cli_test

import (
	"encoding/json"
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

// TestAgentsCommands runs every `agentry agents` command against the real
// server on each database.
func TestAgentsCommands(t *testing.T) {
	t.Parallel()
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		g := []string{"--base-url", ts.URL, "--api-key", ts.Key}
		dir := t.TempDir()

		var callee, a client.Agent
		run(t, append(g, "agents", "create", "--name", "Escalation desk")...).ok(t, &callee)
		run(t, append(g, "agents", "create", "--name", "Front desk", "--template", "simple_qa", "--trigger", "template_input", "--description", "front")...).ok(t, &a)
		if a.Name != "Front desk" || *a.TriggerType != "template_input" || *a.Description != "front" {
			t.Fatalf("create: %+v", a)
		}
		var list []client.Agent
		run(t, append(g, "agents", "list", "--all")...).ok(t, &list)
		if len(list) != 2 {
			t.Fatalf("list --all: %+v", list)
		}
		run(t, append(g, "agents", "list", "--limit", "1")...).ok(t, &list)
		if len(list) != 1 || list[0].ID != a.ID {
			t.Fatalf("list --limit 1: %+v", list)
		}
		tbl := run(t, append(g, "agents", "list", "-o", "table")...)
		if !strings.Contains(tbl.stdout, "Front desk") || !strings.Contains(tbl.stdout, "TRIGGER") {
			t.Fatalf("table:\n%s", tbl.stdout)
		}
		var got client.Agent
		run(t, append(g, "agents", "get", a.ID)...).ok(t, &got)
		if got.ID != a.ID {
			t.Fatalf("get: %+v", got)
		}
		run(t, append(g, "agents", "update", a.ID, "--max-retries", "6", "--tier", "fast", "--rollback-triggers", "agent_eval_fail,governance_flag")...).ok(t, &got)
		if got.MaxRetries != 6 || *got.DefaultEvaluationTier != "fast" || len(got.PromptModelAutoRollbackTriggers) != 2 {
			t.Fatalf("update: %+v", got)
		}
		run(t, append(g, "agents", "update", a.ID, "--clear-tier")...).ok(t, &got)
		if got.DefaultEvaluationTier != nil || got.MaxRetries != 6 {
			t.Fatalf("clear tier: %+v", got)
		}

		// definition get → edit → put, with the lock.
		defFile := filepath.Join(dir, "def.json")
		r := run(t, append(g, "agents", "definition", "get", a.ID)...)
		r.ok(t, nil)
		var def client.AgentDefinition
		json.Unmarshal([]byte(r.stdout), &def)
		var tree map[string]any
		json.Unmarshal(def.Definition, &tree)
		tree["child_steps"] = append(tree["child_steps"].([]any), map[string]any{"id": "esc", "name": "Escalate", "step_type": "call_agent", "agent_id": callee.ID})
		def.Definition, _ = json.Marshal(tree)
		b, _ := json.Marshal(def)
		os.WriteFile(defFile, b, 0o600)
		var saved client.AgentDefinition
		run(t, append(g, "agents", "definition", "put", a.ID, "--file", defFile)...).ok(t, &saved)
		if saved.ChangeID == def.ChangeID {
			t.Fatal("definition put kept the change id")
		}
		run(t, append(g, "agents", "definition", "put", a.ID, "--file", defFile)...).exits(t, cli.ExitConflict, "modified since you read it")
		os.WriteFile(defFile, def.Definition, 0o600)
		run(t, append(g, "agents", "definition", "put", a.ID, "--file", defFile)...).exits(t, cli.ExitUsage, "--change-id")

		var callers []client.AgentCaller
		run(t, append(g, "agents", "callers", callee.ID)...).ok(t, &callers)
		if len(callers) != 1 || callers[0].ID != a.ID {
			t.Fatalf("callers: %+v", callers)
		}
		run(t, append(g, "agents", "disable", callee.ID)...).exits(t, cli.ExitConflict, "disable them first")
		run(t, append(g, "agents", "disable", a.ID)...).ok(t, &got)
		if !got.Disabled {
			t.Fatal("disable")
		}
		run(t, append(g, "agents", "enable", a.ID)...).ok(t, &got)
		if got.Disabled {
			t.Fatal("enable")
		}
		var refs client.AttachmentReferences
		run(t, append(g, "agents", "attachment-references", a.ID)...).ok(t, &refs)
		if !refs.RequiresUploads {
			t.Fatalf("attachment references: %+v", refs)
		}

		// export → preview-import → import into another account.
		exp := filepath.Join(dir, "front.json")
		run(t, append(g, "agents", "export", a.ID, "--file", exp)...).ok(t, nil)
		other := ts.NewTenant(t, "other")
		og := []string{"--base-url", ts.URL, "--api-key", other.Key}
		var theirs client.Agent
		run(t, append(og, "agents", "create", "--name", "escalation desk")...).ok(t, &theirs)
		var prev client.ImportPreview
		run(t, append(og, "agents", "preview-import", "--file", exp)...).ok(t, &prev)
		if len(prev.UnresolvedRefs) != 1 || prev.UnresolvedRefs[0].Alternatives[0].ID != theirs.ID {
			t.Fatalf("preview: %+v", prev)
		}
		tbl = run(t, append(og, "agents", "preview-import", "--file", exp, "-o", "table")...)
		if !strings.Contains(tbl.stdout, "BEST MATCH") || !strings.Contains(tbl.stdout, theirs.ID) {
			t.Fatalf("preview table:\n%s", tbl.stdout)
		}
		bad := run(t, append(og, "agents", "import", "--file", exp, "--name", "copy")...)
		bad.exits(t, cli.ExitValidation, "^") // the excerpt points at the problem
		var imported client.Agent
		run(t, append(og, "agents", "import", "--file", exp, "--name", "copy", "--remap", callee.ID+"="+theirs.ID)...).ok(t, &imported)
		if imported.MaxRetries != 6 || *imported.TriggerType != "template_input" {
			t.Fatalf("import: %+v", imported)
		}
		run(t, append(og, "agents", "import", "--file", exp, "--name", "x", "--remap", "nonsense")...).exits(t, cli.ExitUsage, "SOURCE_ID=TARGET_ID")

		// Upload with --wait, then its status.
		txt := filepath.Join(dir, "notes.txt")
		os.WriteFile(txt, []byte("hello"), 0o600)
		var up client.InputUpload
		run(t, append(g, "agents", "upload-input", a.ID, "--file", txt, "--wait", "--interval", "50ms")...).ok(t, &up)
		if up.Status != client.UploadReady || up.Filename != "notes.txt" {
			t.Fatalf("upload: %+v", up)
		}
		run(t, append(g, "agents", "upload-status", a.ID, up.ID)...).ok(t, &up)
		run(t, append(g, "agents", "upload-status", a.ID, store.NewID())...).exits(t, cli.ExitNotFound, "Upload not found")

		run(t, append(g, "agents", "delete", a.ID)...).ok(t, nil)
		run(t, append(g, "agents", "get", a.ID)...).exits(t, cli.ExitNotFound, "not found")
		run(t, append(g, "agents", "create")...).exits(t, cli.ExitUsage, "--name")
	})
}
