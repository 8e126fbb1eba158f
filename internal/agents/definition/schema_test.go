package definition

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// update rewrites the generated documentation files:
//
//	go test ./internal/agents/definition/ -run 'TestSchemaFileUpToDate|TestDocsUpToDate' -update
var update = flag.Bool("update", false, "rewrite docs/agent-definition.schema.json and the generated part of docs/agent-definitions.md")

const schemaFile = "../../../docs/agent-definition.schema.json"

func TestSchemaFileUpToDate(t *testing.T) {
	want := JSONSchema()
	if *update {
		if err := os.WriteFile(schemaFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go test -run TestSchemaFileUpToDate -update", schemaFile)
	}
}

func compiledSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(JSONSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("agent-definition.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("agent-definition.schema.json")
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return s
}

func schemaErr(s *jsonschema.Schema, payload []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(payload))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

func TestSchemaAcceptsValidPayloads(t *testing.T) {
	s := compiledSchema(t)
	payloads := map[string][]byte{
		"export_streaming": readFixture(t, "export_streaming.json"),
		"export_full":      readFixture(t, "export_full.json"),
		"refs":             []byte(refsDef),
	}
	for _, info := range TemplateInfos() {
		for _, trig := range info.Triggers {
			d, _, err := NewFromTemplate(info.Name, "x", TemplateParams{Trigger: trig, KnowledgeBaseID: kbID, NotifyEmail: "a@acme.test"})
			if err != nil {
				t.Fatal(err)
			}
			payloads[fmt.Sprintf("template %s/%s", info.Name, trig)] = []byte(mustMarshal(t, d))
		}
	}
	acct := newGenAccount("0190cccc")
	for seed := uint64(0); seed < 40; seed++ {
		d := generateDefinition(seed, acct, TriggerDynamicInput)
		e, err := BuildExport(context.Background(), ExportInput{Agent: AgentSnapshot{Name: "g", Definition: d}, Trigger: &TriggerSnapshot{TriggerType: TriggerDynamicInput}}, directory{})
		if err != nil {
			t.Fatal(err)
		}
		payloads[fmt.Sprintf("generated %d", seed)] = []byte(mustMarshal(t, e))
	}
	for name, p := range payloads {
		if err := schemaErr(s, p); err != nil {
			t.Errorf("%s: schema rejects a valid payload: %v", name, err)
		}
	}
}

// Shapes the schema can express must be refused by both it and the
// validator.
func TestSchemaAndValidatorAgree(t *testing.T) {
	s := compiledSchema(t)
	bad := map[string]string{
		"unknown type":       `{"child_steps":[{"id":"a","step_type":"prompt"}]}`,
		"missing id":         `{"child_steps":[{"step_type":"text","text":"x"}]}`,
		"retry range":        `{"child_steps":[{"id":"a","step_type":"text","text":"x","child_steps":[{"id":"r","step_type":"retry","target_step_id":"a","max_retries":11}]}]}`,
		"leaf children":      `{"child_steps":[{"id":"d","step_type":"display_result","child_steps":[{"id":"t","step_type":"text","text":"x"}]}]}`,
		"misplaced subtree":  `{"child_steps":[{"id":"p","step_type":"text","text":"x","then_steps":[]}]}`,
		"missing kb":         `{"child_steps":[{"id":"r","step_type":"retrieval"}]}`,
		"bad enum":           `{"child_steps":[{"id":"w","step_type":"webhook_call","url":"https://h.acme.test","method":"DELETE"}]}`,
		"bad type":           `{"child_steps":[{"id":"p","step_type":"prompt_call","prompt_template":"x","max_tokens":"many"}]}`,
		"no cases":           `{"child_steps":[{"id":"s","step_type":"switch","cases":[]}]}`,
		"case without match": `{"child_steps":[{"id":"s","step_type":"switch","cases":[{"steps":[]}]}]}`,
		"bad operator":       `{"child_steps":[{"id":"g","step_type":"gate","conditions":[{"operator":"near"}]}]}`,
		"bad json_path":      `{"child_steps":[{"id":"g","step_type":"gate","conditions":[{"operator":"exists","json_path":"score"}]}]}`,
		"bad agent enum":     `{"agent":{"evaluation_mode":"never","definition":{"child_steps":[]}}}`,
		"bad trigger":        `{"agent":{"definition":{"child_steps":[]}},"trigger":{"trigger_type":"cron"}}`,
		"no definition":      `{"agent":{"name":"x"}}`,
	}
	for name, p := range bad {
		if err := schemaErr(s, []byte(p)); err == nil {
			t.Errorf("%s: schema accepts it", name)
		}
		if _, err := Import(context.Background(), []byte(p), ImportOptions{}); err == nil {
			t.Errorf("%s: validator accepts it", name)
		}
	}
}

func TestSchemaIsDeterministic(t *testing.T) {
	a, b := JSONSchema(), JSONSchema()
	if !bytes.Equal(a, b) || !json.Valid(a) {
		t.Fatal("schema output must be stable JSON")
	}
}
