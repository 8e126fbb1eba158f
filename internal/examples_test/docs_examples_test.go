package examplestest

import (
	"regexp"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/agents/definition"
)

// TestDocumentedOfflineAnswers runs the offline examples the README and
// docs/models.md print, reading both the input and the printed answer from
// the pages themselves, so the pages cannot drift from what the model says.
func TestDocumentedOfflineAnswers(t *testing.T) {
	readme := readDoc(t, "../../README.md")
	started := between(t, readme, "## Get started", "Run the tests:")
	input := submatch(t, started, `--input "([^"]+)"`, "the README's runs stream example")
	printed := submatch(t, started, `The offline model answers "([^"]+)"`, "the README's printed answer")

	models := readDoc(t, "../../docs/models.md")
	qa := regexp.MustCompile(`For "([^"]+)"\s+it answers "([^"]+)"`).FindStringSubmatch(models)
	if qa == nil {
		t.Fatal(`docs/models.md no longer has its 'For "…" it answers "…"' example; update this test with the page`)
	}
	noMaterial := submatch(t, models, `With no material at all it says\s+"([^"]+)"`, "docs/models.md's no-material answer")

	for _, ex := range []struct{ where, input, want string }{
		{"README Get started", input, printed},
		{"docs/models.md", qa[1], qa[2]},
		{"docs/models.md, no material", "What is the capital of France?", noMaterial},
	} {
		got := runTemplate(t, definition.TemplateSimpleQA, definition.TriggerDynamicInput, ex.input, "answer")
		if got != oneLine(ex.want) {
			t.Errorf("%s: the page prints %q for %q, the offline model answers %q", ex.where, oneLine(ex.want), ex.input, got)
		}
	}
}

func submatch(t *testing.T, text, pattern, what string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s not found (pattern %s): update this test with the page", what, pattern)
	}
	return m[1]
}

// oneLine undoes Markdown's line wrapping inside a quoted answer.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
