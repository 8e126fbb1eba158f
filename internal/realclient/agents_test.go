package realclient_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestAgentsOnRealServer runs every agents operation through the client.
func TestAgentsOnRealServer(t *testing.T) {
	isolate(t)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		c, err := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(ts.Key))
		if err != nil {
			t.Fatal(err)
		}
		callee, err := c.CreateAgent(ctx, client.CreateAgentRequest{Name: "Escalation desk"})
		if err != nil || callee.ImportWarnings != nil || *callee.TriggerType != client.TriggerDynamicInput {
			t.Fatalf("create: %+v %v", callee, err)
		}
		a, err := c.CreateAgent(ctx, client.CreateAgentRequest{Name: "Front desk", AgentTemplate: client.TemplateSummarizer})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if _, err := c.CreateAgent(ctx, client.CreateAgentRequest{Name: "filler " + string(rune('a'+i))}); err != nil {
				t.Fatal(err)
			}
		}
		// Pages, and the iterator across them, at both versions.
		p, err := c.ListAgents(ctx, client.AgentListOptions{Page: 1, Limit: 2})
		if err != nil || len(p.Items) != 2 || p.Total != 5 || !p.HasNext {
			t.Fatalf("page: %+v %v", p, err)
		}
		for _, v := range []string{client.Version20260701, client.LatestVersion} {
			n := 0
			for ag, err := range c.Agents(ctx, client.AgentListOptions{Limit: 2}, client.WithRequestVersion(v)) {
				if err != nil {
					t.Fatal(err)
				}
				if ag.ID == "" {
					t.Fatal("empty agent")
				}
				n++
			}
			if n != 5 {
				t.Fatalf("%s: iterated %d agents", v, n)
			}
		}

		// Settings, with a clear flag.
		tier, retries := "thorough", 4
		u, err := c.UpdateAgent(ctx, a.ID, client.UpdateAgentRequest{DefaultEvaluationTier: &tier, MaxRetries: &retries})
		if err != nil || *u.DefaultEvaluationTier != "thorough" || u.MaxRetries != 4 {
			t.Fatalf("update: %+v %v", u, err)
		}
		if u, err = c.UpdateAgent(ctx, a.ID, client.UpdateAgentRequest{SetDefaultEvaluationTier: true}); err != nil || u.DefaultEvaluationTier != nil {
			t.Fatalf("clear: %+v %v", u, err)
		}
		var ve *client.ValidationError
		if _, err := c.UpdateAgent(ctx, a.ID, client.UpdateAgentRequest{}); !errors.As(err, &ve) {
			t.Fatalf("empty update: %v", err)
		}

		// The definition, with optimistic locking.
		def, err := c.GetAgentDefinition(ctx, a.ID)
		if err != nil || def.ChangeID == "" {
			t.Fatal(def, err)
		}
		var tree map[string]any
		json.Unmarshal(def.Definition, &tree)
		tree["child_steps"] = append(tree["child_steps"].([]any), map[string]any{"id": "esc", "name": "Escalate", "step_type": "call_agent", "agent_id": callee.ID})
		raw, _ := json.Marshal(tree)
		saved, err := c.UpdateAgentDefinition(ctx, a.ID, def.ChangeID, raw)
		if err != nil || saved.ChangeID == def.ChangeID {
			t.Fatalf("put definition: %v", err)
		}
		if _, err := c.UpdateAgentDefinition(ctx, a.ID, def.ChangeID, raw); !errors.Is(err, client.ErrConflict) {
			t.Fatalf("stale change id: %v", err)
		}
		callers, err := c.AgentCallers(ctx, callee.ID)
		if err != nil || len(callers) != 1 || callers[0].ID != a.ID {
			t.Fatalf("callers: %+v %v", callers, err)
		}
		if callers, err = c.AgentCallers(ctx, callee.ID, client.WithRequestVersion(client.LatestVersion)); err != nil || len(callers) != 1 {
			t.Fatalf("callers in the envelope: %+v %v", callers, err)
		}
		if _, err := c.DisableAgent(ctx, callee.ID); !errors.Is(err, client.ErrConflict) {
			t.Fatalf("disable with a caller: %v", err)
		}
		if off, err := c.DisableAgent(ctx, a.ID); err != nil || !off.Disabled {
			t.Fatalf("disable: %+v %v", off, err)
		}
		if on, err := c.EnableAgent(ctx, a.ID); err != nil || on.Disabled {
			t.Fatalf("enable: %+v %v", on, err)
		}
		refs, err := c.AgentAttachmentReferences(ctx, a.ID)
		if err != nil || !refs.RequiresUploads || refs.Agent.Kinds[0] != "implicit" {
			t.Fatalf("attachment references: %+v %v", refs, err)
		}

		// Export to a file, preview and import into another account.
		dir := t.TempDir()
		file := filepath.Join(dir, "front.agent.json")
		if err := c.ExportAgentFile(ctx, a.ID, file); err != nil {
			t.Fatal(err)
		}
		d2, err := c.ExportAgent(ctx, a.ID)
		if err != nil || d2.FileName != "front-desk.agent.json" {
			t.Fatalf("export download: %+v %v", d2, err)
		}
		d2.Close()
		other := ts.NewTenant(t, "other")
		oc, _ := client.New(client.WithBaseURL(ts.URL), client.WithAPIKey(other.Key))
		theirCallee, _ := oc.CreateAgent(ctx, client.CreateAgentRequest{Name: "Escalation Desk"})
		f, _ := os.Open(file)
		prev, err := oc.PreviewImport(ctx, f)
		f.Close()
		if err != nil || !prev.OK || len(prev.UnresolvedRefs) != 1 || prev.UnresolvedRefs[0].Alternatives[0].ID != theirCallee.ID {
			t.Fatalf("preview: %+v %v", prev, err)
		}
		f, _ = os.Open(file)
		imported, err := oc.ImportAgent(ctx, client.CreateAgentRequest{Name: "Front desk",
			EntityRemap: map[string]string{callee.ID: theirCallee.ID}}, f)
		f.Close()
		if err != nil || imported.ImportWarnings == nil || imported.MaxRetries != 4 {
			t.Fatalf("import: %+v %v", imported, err)
		}
		// Without the remap, the import fails with positions.
		f, _ = os.Open(file)
		_, err = oc.ImportAgent(ctx, client.CreateAgentRequest{Name: "x"}, f)
		f.Close()
		var ie *client.ImportError
		if !errors.As(err, &ie) || len(ie.Errors) == 0 || ie.Errors[0].Line < 1 || !strings.Contains(ie.Excerpt(ie.Errors[0], 1), "^") {
			t.Fatalf("unresolved import: %v", err)
		}
		if _, err := oc.ImportAgent(ctx, client.CreateAgentRequest{Name: "x"}, strings.NewReader("not json")); err == nil {
			t.Fatal("a non-JSON payload was sent")
		}

		// Uploads.
		up, err := c.UploadAgentInput(ctx, a.ID, client.Upload{FileName: "notes.txt", Content: bytes.NewReader([]byte("hello"))})
		if err != nil || up.Status != client.UploadProcessing || up.FileSize != 5 {
			t.Fatalf("upload: %+v %v", up, err)
		}
		done, err := c.WaitInputUpload(ctx, a.ID, up.ID, 50*time.Millisecond, 20*time.Second)
		if err != nil || done.Status != client.UploadReady || done.ContentType != "text/plain" {
			t.Fatalf("wait: %+v %v", done, err)
		}
		if _, err := c.GetInputUpload(ctx, a.ID, store.NewID()); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("unknown upload: %v", err)
		}

		if err := c.DeleteAgent(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetAgent(ctx, a.ID); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("deleted agent: %v", err)
		}
	})
}
