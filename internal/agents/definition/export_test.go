package definition

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// directory describes the entities of one account by id.
type directory map[string]Entity

func (d directory) Describe(_ context.Context, _ RefKind, id string) (Entity, bool, error) {
	e, ok := d[id]
	return e, ok, nil
}

func (d directory) Exists(_ context.Context, _ RefKind, id string) (bool, error) {
	_, ok := d[id]
	return ok, nil
}

func str(s string) *string { return &s }

// fixtureDirectory is the source account of export_full.json.
var fixtureDirectory = directory{
	fullKB:     {Name: "Policy library", Description: str("All current policies")},
	fullTrigKB: {Name: "Policy uploads"},
	fullAgent:  {Name: "Compliance escalation", Description: str("Opens a ticket")},
	fullUser:   {Name: "Dana Ops"},
}

// exportInputOf turns an imported payload back into what the export
// handler would load after the import was saved.
func exportInputOf(t *testing.T, im *Imported) ExportInput {
	t.Helper()
	e := im.Export
	at, err := time.Parse(time.RFC3339Nano, e.ExportedAt)
	if err != nil {
		t.Fatalf("exported_at: %v", err)
	}
	return ExportInput{Agent: e.Agent, Trigger: e.Trigger, AlertConfigs: e.AlertConfigs, EvaluationCriteria: e.EvaluationCriteria,
		GovernancePolicies: e.GovernancePolicies, Solutions: e.Solutions, ExportedAt: at, SoftwareVersion: e.SoftwareVersion}
}

func TestBuildExportReproducesFixture(t *testing.T) {
	raw := readFixture(t, "export_full.json")
	im := mustImport(t, raw, ImportOptions{Resolver: fixtureDirectory})
	in := exportInputOf(t, im)
	e, err := BuildExport(context.Background(), in, fixtureDirectory)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(e)
	// Our clock writes "Z" where the fixture has "+00:00"; same instant.
	got := strings.Replace(canonical(t, out), `"2026-07-05T06:00:00Z"`, `"2026-07-05T06:00:00+00:00"`, 1)
	if want := canonical(t, raw); got != want {
		t.Errorf("export differs from the payload it came from:\n%s\n---\n%s", got, want)
	}
}

func TestBuildExportManifest(t *testing.T) {
	d, _, err := NewFromTemplate(TemplateSimpleQA, "Q", TemplateParams{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := BuildExport(context.Background(), ExportInput{Agent: AgentSnapshot{Name: "Q", Definition: d}, ExportedAt: time.Unix(0, 0)}, directory{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(e)
	for _, want := range []string{`"dependencies":null`, `"export_version":"2"`, `"schema_version":"v1"`, `"trigger":null`, `"alert_configs":null`, `"exported_at":"1970-01-01T00:00:00Z"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("export lacks %s: %s", want, b)
		}
	}
	// An entity deleted since keeps its id in the manifest, with no name.
	d2 := mustParse(t, `{"child_steps":[{"id":"c","name":"C","step_type":"call_agent","agent_id":"gone"}]}`)
	e, _ = BuildExport(context.Background(), ExportInput{Agent: AgentSnapshot{Name: "Q", Definition: d2}}, directory{})
	b, _ = json.Marshal(e.Dependencies)
	if string(b) != `{"knowledge_bases":[],"memory_banks":[],"source_connections":[],"agents":[{"id":"gone","name":"","description":null}],"users":[]}` {
		t.Errorf("manifest %s", b)
	}
	if _, err := BuildExport(context.Background(), ExportInput{}, directory{}); err == nil {
		t.Error("export without definition must fail")
	}
}

// TestRoundTripWithRemap is the import/export property: an export from one
// account, imported into another with every entity remapped, re-exports to
// the original text with the ids substituted. It runs over generated
// definitions covering every sub-tree kind and reference kind.
func TestRoundTripWithRemap(t *testing.T) {
	src, dst := newGenAccount("0190aaaa"), newGenAccount("0190bbbb")
	srcDir, dstDir := directory{}, directory{}
	remap := map[string]string{}
	for i, id := range src.all() {
		desc := fmt.Sprintf("entity %d", i)
		srcDir[id] = Entity{Name: fmt.Sprintf("Entity %d", i), Description: &desc}
		dstDir[dst.all()[i]] = srcDir[id]
		remap[id] = dst.all()[i]
	}
	triggers := []TriggerType{TriggerDynamicInput, TriggerSchedule, TriggerNewContent}
	for seed := uint64(0); seed < 150; seed++ {
		trig := triggers[seed%uint64(len(triggers))]
		def := generateDefinition(seed, src, trig)
		kb := src.kbs[0]
		in := ExportInput{
			Agent:           AgentSnapshot{Name: "gen", Description: str("generated"), SchemaVersion: "v1", Definition: def, EvaluationMode: str("eval_and_retry"), PromptModelAutoRollbackTriggers: []string{}},
			Trigger:         &TriggerSnapshot{TriggerType: trig, KnowledgeBaseID: &kb, Schedules: []any{map[string]any{"cron_expression": "0 9 * * *"}}},
			AlertConfigs:    []any{map[string]any{"alert_type": "agent_run_failed", "recipient_user_ids": []any{src.users[1]}}},
			ExportedAt:      time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC),
			SoftwareVersion: "test",
		}
		orig, err := BuildExport(context.Background(), in, srcDir)
		if err != nil {
			t.Fatal(err)
		}
		payload, _ := json.Marshal(orig)
		im, err := Import(context.Background(), payload, ImportOptions{Resolver: dstDir, EntityRemap: remap})
		if err != nil {
			t.Fatalf("seed %d: import: %v\n%s", seed, err, payload)
		}
		if len(im.Substitutions) == 0 {
			t.Fatalf("seed %d: the trigger's knowledge base at least must be remapped", seed)
		}
		again, err := BuildExport(context.Background(), exportInputOf(t, im), dstDir)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(again)
		want := canonical(t, payload)
		for from, to := range remap {
			want = strings.ReplaceAll(want, from, to)
		}
		if got := canonical(t, out); got != want {
			t.Fatalf("seed %d: round trip differs:\n%s\n---\n%s", seed, got, want)
		}
	}
}
