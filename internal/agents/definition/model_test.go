package definition

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/agentry/agentry/internal/agents/definition/canonjson"
)

// canonical prints any JSON text canonically, for comparisons.
func canonical(t *testing.T, b []byte) string {
	t.Helper()
	v, _, err := canonjson.Parse(b)
	if err != nil {
		t.Fatalf("canonical: %v\n%s", err, b)
	}
	s, _ := canonjson.Print(v)
	return s
}

func TestDefinitionJSONRoundTrip(t *testing.T) {
	for _, js := range []string{
		refsDef,
		`{"name":"n","description":"d","tags":[],"child_steps":[],"future_field":{"x":[1.50]}}`,
		`{"child_steps":[{"id":"s","name":"S","step_type":"switch","discriminator":"{{input}}","cases":[{"match":["a",1,true],"steps":[],"label":"first"}],"else_steps":[],"child_steps":[]}]}`,
		`{"child_steps":[{"id":"f","name":"F","step_type":"for_each","body":[{"id":"t","step_type":"text","text":"x"}],"max_items":10}]}`,
	} {
		d := mustParse(t, js)
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := canonical(t, []byte(js)), canonical(t, out); a != b {
			t.Errorf("round trip changed the definition:\n%s\n---\n%s", a, b)
		}
		var again Definition
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("UnmarshalJSON: %v", err)
		}
	}
	var d Definition
	if err := json.Unmarshal([]byte(`{"child_steps":[{"id":1}]}`), &d); err == nil {
		t.Error("UnmarshalJSON must fail on shape errors")
	}
}

func TestReferenceExportDefinitionHasNoUnknownFields(t *testing.T) {
	// The fixture follows the field names the reference platform exports
	// (model_variant, simple_format, input_is_messages, max_output_*,
	// purpose, html_format…): all of them must be known.
	b, err := os.ReadFile("testdata/export_streaming.json")
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Agent struct {
			Definition json.RawMessage `json:"definition"`
		} `json:"agent"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	probs := check(t, string(env.Agent.Definition), ValidateOptions{Trigger: TriggerDynamicInput})
	if len(probs) != 0 {
		t.Errorf("problems:%s", dump(probs))
	}
}

func TestStepAccessors(t *testing.T) {
	d := mustParse(t, `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","prompt_template":"x","temperature":0.25,"max_tokens":512,"simple_format":true}]}`)
	s := d.Steps[0]
	if f, ok := s.Number("temperature"); !ok || f != 0.25 {
		t.Error("Number")
	}
	if n, ok := s.Int("max_tokens"); !ok || n != 512 {
		t.Error("Int")
	}
	if _, ok := s.Int("temperature"); ok {
		t.Error("Int of a fraction")
	}
	if b, ok := s.Bool("simple_format"); !ok || !b {
		t.Error("Bool")
	}
	var cfg struct {
		Prompt    string  `json:"prompt_template"`
		Temp      float64 `json:"temperature"`
		MaxTokens int     `json:"max_tokens"`
	}
	if err := s.DecodeConfig(&cfg); err != nil || cfg.MaxTokens != 512 || cfg.Prompt != "x" {
		t.Errorf("DecodeConfig: %+v %v", cfg, err)
	}
	if d.Find("p") != s || d.Find("zz") != nil || d.StepCount() != 1 {
		t.Error("Find/StepCount")
	}
}
