package definition

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

func TestEveryTemplateValidatesForEveryTrigger(t *testing.T) {
	params := TemplateParams{KnowledgeBaseID: kbID, Model: "openai_gpt_4_1", NotifyEmail: "ops@acme.test", WebhookURL: "https://hooks.acme.test/agentry"}
	names := map[TemplateName]bool{}
	for _, info := range TemplateInfos() {
		names[info.Name] = true
		if !contains(triggerStrings(info.Triggers), string(info.DefaultTrigger)) {
			t.Errorf("%s: default trigger %s not supported", info.Name, info.DefaultTrigger)
		}
		for _, trig := range info.Triggers {
			p := params
			p.Trigger = trig
			d, used, err := NewFromTemplate(info.Name, "My agent", p)
			if err != nil {
				t.Fatalf("%s/%s: %v", info.Name, trig, err)
			}
			if used != trig || d.Name != "My agent" || len(d.Steps) == 0 {
				t.Errorf("%s/%s: trigger %s, %d steps", info.Name, trig, used, len(d.Steps))
			}
			rep, err := Validate(context.Background(), d, ValidateOptions{Trigger: trig, Resolver: accountWith(kbID)})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Problems) != 0 {
				t.Errorf("%s/%s:%s", info.Name, trig, dump(rep.Problems))
			}
			// A template also survives the trip through an export payload.
			b, _ := json.Marshal(Export{ExportVersion: "2", Agent: AgentSnapshot{Name: "My agent", Definition: d}, Trigger: &TriggerSnapshot{TriggerType: trig, Schedules: []any{map[string]any{}}, Input: str("{{input}}")}})
			if _, err := Import(context.Background(), b, ImportOptions{Resolver: accountWith(kbID)}); err != nil {
				t.Errorf("%s/%s: import: %v", info.Name, trig, err)
			}
		}
	}
	for _, n := range []TemplateName{TemplateBlank, TemplateRetrievalExample, TemplateSimpleQA, TemplateSummarizer, TemplateJSONExtractor, TemplateContentChangeNotifier, TemplateScheduledReport, TemplateWebhookPipeline} {
		if !names[n] {
			t.Errorf("template %s missing", n)
		}
	}
}

func TestTemplateDefaultsAndErrors(t *testing.T) {
	d, trig, err := NewFromTemplate(TemplateContentChangeNotifier, "n", TemplateParams{})
	if err != nil || trig != TriggerNewContent {
		t.Fatalf("default trigger: %v %v", trig, err)
	}
	if d.Find("notify") != nil {
		t.Error("no e-mail step without a recipient")
	}
	// Without parameters the templates still validate; what is missing is
	// reported as warnings.
	d, _, _ = NewFromTemplate(TemplateWebhookPipeline, "w", TemplateParams{})
	probs := check(t, mustMarshal(t, d), ValidateOptions{Trigger: TriggerDynamicInput})
	if probs.HasErrors() || !hasProblem(probs, SeverityWarning, CodePlaceholder, "") || !hasProblem(probs, SeverityWarning, CodeMissingModel, "") {
		t.Errorf("webhook template without params:%s", dump(probs))
	}
	d, _, _ = NewFromTemplate(TemplateSimpleQA, "q", TemplateParams{Trigger: TriggerEmailReceived})
	if d.Find("answer-show") == nil || d.Find("answer-stream") != nil {
		t.Error("non-interactive triggers show the answer instead of streaming it")
	}
	if _, _, err := NewFromTemplate(TemplateRetrievalExample, "r", TemplateParams{}); !errors.Is(err, ErrTemplateKnowledgeBase) {
		t.Errorf("retrieval_example without kb: %v", err)
	}
	if _, _, err := NewFromTemplate(TemplateSimpleQA, "q", TemplateParams{Trigger: TriggerNewContent}); !errors.Is(err, ErrTemplateTrigger) {
		t.Errorf("unsupported trigger: %v", err)
	}
	if _, _, err := NewFromTemplate("tutorial", "q", TemplateParams{}); !errors.Is(err, ErrUnknownTemplate) {
		t.Errorf("unknown template: %v", err)
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
