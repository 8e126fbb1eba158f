package examplestest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/engine"
)

// runTemplate builds a template's definition for trigger and runs it on
// input with the built-in offline model, returning the output of step.
func runTemplate(t *testing.T, name definition.TemplateName, trigger definition.TriggerType, input, step string) string {
	t.Helper()
	def, _, err := definition.NewFromTemplate(name, "t", definition.TemplateParams{Trigger: trigger})
	if err != nil {
		t.Fatal(err)
	}
	j := &recorder{}
	r := &engine.Run{ID: "run", AccountID: "account", AgentID: "agent", Input: input, Metadata: map[string]any{}}
	if _, err := engine.New(engine.Config{}).Execute(context.Background(), def, r, j, &host{}); err != nil {
		t.Fatalf("%s on %q: %v", name, input, err)
	}
	out, ok := j.output(step)
	if !ok {
		t.Fatalf("%s: step %s has no output", name, step)
	}
	return out
}

// The report the docs use as the example for the summarising templates.
const acmeReport = `Acme Corp reported revenue of $5.2 million for Q3 2025, up 12% from a year earlier. ` +
	`CEO Jane Doe said on March 3, 2026 that the company will open an office in Berlin. ` +
	`The board, chaired by Omar Haddad, approved the plan. Globex Ltd remains the main competitor. ` +
	`Hiring for the Berlin office is still pending approval.`

// instructionLeaks lists the templates' own steering text: none of it may
// ever come back as an answer.
var instructionLeaks = []string{"You summarise", "You extract", "You are a helpful", "You write short",
	"Summarise the following", "From the text below", "Write this period", "Reply with", "Answer clearly", "Use null"}

func assertNoLeak(t *testing.T, template, out string) {
	t.Helper()
	for _, leak := range instructionLeaks {
		if strings.Contains(out, leak) {
			t.Errorf("%s answered with its instructions (%q): %s", template, leak, out)
		}
	}
}

// TestOfflineTemplatesAnswerFromMaterial runs the summarizer,
// json_extractor, simple_qa and scheduled_report templates on the docs'
// examples with the offline model.
func TestOfflineTemplatesAnswerFromMaterial(t *testing.T) {
	dyn := definition.TriggerDynamicInput
	t.Run("summarizer", func(t *testing.T) {
		out := runTemplate(t, definition.TemplateSummarizer, dyn, acmeReport, "summarize")
		assertNoLeak(t, "summarizer", out)
		if !strings.HasPrefix(out, "Acme Corp reported revenue of $5.2 million") || !strings.Contains(out, "Key points:\n- ") {
			t.Errorf("summary: %s", out)
		}
	})
	t.Run("json_extractor", func(t *testing.T) {
		out := runTemplate(t, definition.TemplateJSONExtractor, dyn, acmeReport, "extract")
		assertNoLeak(t, "json_extractor", out)
		var v struct {
			Title         string   `json:"title"`
			People        []string `json:"people"`
			Organizations []string `json:"organizations"`
			Dates         []string `json:"dates"`
			Summary       string   `json:"summary"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("not JSON: %s", out)
		}
		if strings.Join(v.People, ",") != "Jane Doe,Omar Haddad" || strings.Join(v.Organizations, ",") != "Acme Corp,Globex Ltd" ||
			!contains(v.Dates, "2026-03-03") || !strings.HasPrefix(v.Title, "Acme Corp reported revenue") ||
			!strings.HasPrefix(v.Summary, "Acme Corp reported revenue") || strings.Count(v.Summary, ". ") > 0 {
			t.Errorf("extracted %s", out)
		}
		// Nothing to extract: nulls and empty lists, not the instructions.
		out = runTemplate(t, definition.TemplateJSONExtractor, dyn, "ok", "extract")
		assertNoLeak(t, "json_extractor", out)
		if out != `{"dates":[],"organizations":[],"people":[],"summary":"ok","title":"ok"}` {
			t.Errorf("extracted from almost nothing: %s", out)
		}
	})
	t.Run("simple_qa", func(t *testing.T) {
		for input, want := range map[string]string{
			"Who is the CEO? Jane is CEO.": "Jane is CEO.",
			// README's "Get started" example.
			"What is Agentry? Agentry is a self-hostable agent platform. It runs on a laptop.": "Agentry is a self-hostable agent platform.",
			"How much revenue did Acme report? " + acmeReport:                                  "Acme Corp reported revenue of $5.2 million for Q3 2025, up 12% from a year earlier.",
		} {
			if out := runTemplate(t, definition.TemplateSimpleQA, dyn, input, "answer"); out != want {
				t.Errorf("%q answered %q, want %q", input, out, want)
			}
		}
		// No material: it says so, and does not echo the question.
		q := "What is the capital of France?"
		out := runTemplate(t, definition.TemplateSimpleQA, dyn, q, "answer")
		if strings.Contains(out, "capital") || !strings.Contains(out, "nothing to answer from") {
			t.Errorf("no material: %q", out)
		}
	})
	t.Run("scheduled_report", func(t *testing.T) {
		out := runTemplate(t, definition.TemplateScheduledReport, definition.TriggerSchedule, "", "report")
		assertNoLeak(t, "scheduled_report", out)
		if !strings.HasPrefix(out, "Nothing to report") {
			t.Errorf("report without material: %q", out)
		}
		out = runTemplate(t, definition.TemplateScheduledReport, dyn, acmeReport, "report")
		assertNoLeak(t, "scheduled_report", out)
		if !strings.HasPrefix(out, "Summary: Acme Corp reported revenue") || !strings.Contains(out, "Highlights:") ||
			!strings.Contains(out, "Open questions:\n- Hiring for the Berlin office is still pending approval.") {
			t.Errorf("report: %s", out)
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
