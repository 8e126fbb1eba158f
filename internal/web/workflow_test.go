package web_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

var (
	editorText = regexp.MustCompile(`(?s)<textarea id="definition"[^>]*>(.*?)</textarea>`)
	changeID   = regexp.MustCompile(`name="change_id" value="([^"]*)"`)
)

// editor reads the workflow page's text and change id.
func editor(t *testing.T, p page) (string, string) {
	t.Helper()
	m, c := editorText.FindStringSubmatch(p.Body), changeID.FindStringSubmatch(p.Body)
	if m == nil || c == nil {
		t.Fatalf("no editor on %s:\n%s", p.URL, p.Body)
	}
	return html.UnescapeString(m[1]), c[1]
}

// lineOf is the 1-based line of the first occurrence of s in text.
func lineOf(text, s string) int {
	i := strings.Index(text, s)
	if i < 0 {
		return -1
	}
	return strings.Count(text[:i], "\n") + 1
}

func TestWorkflowEditor(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		id := b.createAgent("Triage", "blank")

		p := b.get("/console/agents/" + id + "/workflow")
		text, change := editor(t, p)
		p.mustContain(t, `<svg`, `class="node kind-trigger"`)

		// A syntax error is positioned in the text as typed, and nothing is saved.
		broken := "{\n  \"name\": \"Triage\",\n  \"child_steps\": [\n    {\"id\": \"a\",, }\n  ]\n}"
		p = b.post("/console/agents/"+id+"/workflow", url.Values{"definition": {broken}, "change_id": {change}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("syntax error: %d", p.Status)
		}
		p.mustContain(t, `data-line="4" data-column="16"`, "Invalid JSON")
		if got, _ := editor(t, p); got != broken {
			t.Fatalf("the editor lost the text as typed:\n%s", got)
		}

		// The API's validation errors are shown at their line and column.
		bad := `{"name": "Triage", "child_steps": [
		  {"id": "loop", "name": "Loop", "step_type": "retry", "target_step_id": "nowhere", "max_retries": 11},
		  {"id": "x", "name": "X", "step_type": "teleport"}]}`
		p = b.post("/console/agents/"+id+"/workflow", url.Values{"definition": {bad}, "change_id": {change}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("invalid definition: %d\n%s", p.Status, p.Body)
		}
		shown, _ := editor(t, p)
		line := lineOf(shown, `"max_retries": 11`)
		if line < 0 || !strings.Contains(p.Body, `data-line="`+strconv.Itoa(line)+`"`) || !strings.Contains(p.Body, "child_steps[0].max_retries") {
			t.Fatalf("max_retries error not at line %d of\n%s\n%s", line, shown, p.Body)
		}
		if tl := lineOf(shown, `"step_type": "teleport"`); !strings.Contains(p.Body, `data-line="`+strconv.Itoa(tl)+`"`) {
			t.Fatalf("teleport error not at line %d", tl)
		}

		// A valid save goes through, with its graph: branches, a loop, a join.
		good := `{"name": "Triage", "child_steps": [
		  {"id": "check", "name": "Check", "step_type": "if_else",
		   "conditions": [{"operator": "contains", "value": "urgent"}],
		   "then_steps": [{"id": "hot", "name": "Hot", "step_type": "text", "text": "urgent"}],
		   "else_steps": [{"id": "cold", "name": "Cold", "step_type": "text", "text": "later"}],
		   "child_steps": [{"id": "out", "name": "Show", "step_type": "display_result"}]}]}`
		p = b.post("/console/agents/"+id+"/workflow", url.Values{"definition": {good}, "change_id": {change}})
		if p.Status != http.StatusOK {
			t.Fatalf("save: %d\n%s", p.Status, p.Body)
		}
		p.mustContain(t, "Saved", ">then</text>", ">else</text>", `class="node kind-branch"`, "edge dashed")
		var def struct {
			Definition struct {
				ChildSteps []struct{ ID string } `json:"child_steps"`
			} `json:"definition"`
		}
		srv.Do(t, "GET", "/agents/"+id+"/definition", srv.Key, nil).JSON(t, &def)
		if len(def.Definition.ChildSteps) != 1 || def.Definition.ChildSteps[0].ID != "check" {
			t.Fatalf("saved definition: %+v", def)
		}

		// Saving from the stale change id is a conflict that says who
		// changed it; the text typed is kept.
		p = b.post("/console/agents/"+id+"/workflow", url.Values{"definition": {text}, "change_id": {change}})
		if p.Status != http.StatusConflict {
			t.Fatalf("stale save: %d", p.Status)
		}
		p.mustContain(t, "Not saved", "saved by owner at")
		if got, _ := editor(t, p); got != text {
			t.Fatal("the conflict lost the text typed")
		}
	})
}
