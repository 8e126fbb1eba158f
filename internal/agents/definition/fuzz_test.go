package definition

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/agents/definition/canonjson"
)

// Fuzz targets for every parser of untrusted input here: the import payload,
// the definition validator and template placeholders. Their seeds (the
// templates, the fixtures and known-awkward inputs) run as ordinary tests;
// `go test -fuzz FuzzImport` explores further.

func addSeeds(f *testing.F) {
	for _, info := range TemplateInfos() {
		for _, trig := range info.Triggers {
			d, _, err := NewFromTemplate(info.Name, "seed", TemplateParams{Trigger: trig, KnowledgeBaseID: kbID, NotifyEmail: "a@acme.test"})
			if err != nil {
				f.Fatal(err)
			}
			b, _ := json.Marshal(d)
			f.Add(b)
			e, _ := json.Marshal(Export{ExportVersion: "2", Agent: AgentSnapshot{Definition: d}, Trigger: &TriggerSnapshot{TriggerType: trig}})
			f.Add(e)
		}
	}
	for _, name := range []string{"export_streaming.json", "export_full.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	for _, s := range []string{
		refsDef, ``, `{}`, `[]`, `null`, `{"child_steps":null}`, `{"steps":[{"id":"a"}]}`,
		`{"child_steps":[{"id":"a","step_type":"for_each","body":"x","cases":7}]}`,
		`{"child_steps":[{"id":"s","step_type":"switch","cases":[null,{"match":[[]],"steps":[1]}]}]}`,
		`{"agent":{"definition":{"child_steps":[{"id":"r","step_type":"retry","target_step_id":"r","max_retries":1e400}]}},"trigger":{"trigger_type":"schedule","knowledge_base_id":"{{x}}"}}`,
		`{"child_steps":[{"id":"g","step_type":"gate","conditions":{"rules":[{"rules":[{"rules":[{"rules":[{"rules":[{"rules":[{"rules":[{"rules":[{"rules":[{"operator":"is_empty"}]}]}]}]}]}]}]}]}]}}]}`,
		`{"child_steps":[{"id":"p","step_type":"prompt_call","prompt_template":"{{attachments[\"a]\"]}} {{attachments[[]]}} {{step..output}}","tools":[{"type":null}]}]}`,
		"{\"child_steps\":[{\"id\":\"\xff\",\"step_type\":\"text\",\"text\":\"\\u0000\"}]}",
		`{"export_version":2,"agent":[],"trigger":"x","dependencies":{"agents":[1,{"id":3}]}}`,
	} {
		f.Add([]byte(s))
	}
}

func FuzzImport(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mode := range []ImportMode{ModePreview, ModeCreate, ModeUpdate} {
			im, err := Import(context.Background(), data, ImportOptions{Mode: mode, Resolver: accountWith(kbID), AgentID: agentID,
				EntityRemap: map[string]string{agentID: "other", kbID: kb2ID}})
			if err != nil {
				ie, ok := AsImportError(err)
				if !ok {
					t.Fatalf("non-import error %v", err)
				}
				assertPositioned(t, ie)
				continue
			}
			for _, w := range im.Warnings {
				if w.Line < 1 || w.Column < 1 {
					t.Fatalf("warning without position: %+v", w)
				}
			}
			_ = im.Preview()
			_ = im.Definition.AttachmentContract().Unmet([]string{"a.csv", "report.pdf"})
			_ = im.Definition.CallTargets()
			out, err := json.Marshal(im.Export)
			if err != nil {
				t.Fatalf("accepted payload does not marshal: %v", err)
			}
			// What was accepted and re-exported is accepted again.
			if _, err := Import(context.Background(), out, ImportOptions{Mode: mode, Trigger: im.Trigger, Resolver: acceptAll}); err != nil {
				t.Fatalf("re-import of an accepted payload fails: %v\n%s", err, out)
			}
		}
	})
}

func assertPositioned(t *testing.T, ie *ImportError) {
	t.Helper()
	if ie.Code != ImportErrorCode || len(ie.Errors) == 0 {
		t.Fatalf("empty import error %+v", ie)
	}
	lines := strings.Split(ie.Source, "\n")
	for _, e := range ie.Errors {
		if e.Line < 1 || e.Column < 1 || e.Line > len(lines) || e.Column > len([]rune(lines[e.Line-1]))+1 {
			t.Fatalf("error outside the source: %+v (%d lines)", e, len(lines))
		}
		if _, err := canonjson.Split(e.Path); err != nil {
			t.Fatalf("malformed path %q", e.Path)
		}
	}
}

func FuzzValidate(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, probs, err := ParseDefinition(data)
		if err != nil {
			return // syntax errors are FuzzImport's and canonjson's concern
		}
		v, _, _ := canonjson.Parse(data)
		source, positions := canonjson.Print(v)
		lines := strings.Split(source, "\n")
		for _, trig := range append(TriggerTypes(), "") {
			rep, err := Validate(context.Background(), d, ValidateOptions{Trigger: trig, AgentID: agentID, Resolver: acceptAll})
			if err != nil {
				t.Fatalf("validate error: %v", err)
			}
			all := append(append(Problems{}, probs...), rep.Problems...)
			all.Position(positions)
			for _, p := range all {
				if p.Line < 1 || p.Line > len(lines) || p.Column < 1 {
					t.Fatalf("problem outside the source: %+v", p)
				}
				if _, err := canonjson.Split(p.Path); err != nil {
					t.Fatalf("malformed path %q", p.Path)
				}
			}
		}
		if !probs.HasErrors() {
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			_, again, err := ParseDefinition(b)
			if err != nil || again.HasErrors() {
				t.Fatalf("a definition without shape errors re-reads with errors: %v %v\n%s", err, again.Errors(), b)
			}
		}
	})
}

func FuzzPlaceholders(f *testing.F) {
	for _, s := range []string{"{{input}}", `{{attachments["a.pdf"]}}{{attachments[*.csv]}}`, "{{attachments[[!a-z]*]}}", "{{step.x.output}}", "{{attachments['\\'']}}", "{{{{}}}}"} {
		f.Add(s, "a.csv")
	}
	f.Fuzz(func(t *testing.T, tpl, name string) {
		for _, ph := range ParsePlaceholders(tpl) {
			if ph.Kind == PlaceholderAttachment && ph.Invalid == "" {
				sel := ph.Selector
				if sel.Kind == SelectorIndex && (sel.Index < 0 || sel.Index > maxIndex) {
					t.Fatalf("index out of bounds: %+v", sel)
				}
				if sel.Kind != SelectorIndex && sel.Value == "" {
					t.Fatalf("empty selector value: %+v", ph)
				}
				if sel.Kind == SelectorPattern {
					_ = MatchGlob(sel.Value, name)
				}
				if sel.Kind == SelectorName && !MatchGlob(sel.Value, sel.Value) && !strings.ContainsAny(sel.Value, "*?[") {
					t.Fatalf("a name without glob characters must match itself: %q", sel.Value)
				}
			}
		}
		d := &Definition{Steps: []*Step{{ID: "p", Name: "P", Type: StepPromptCall, Config: map[string]any{"prompt_template": tpl}}}}
		c := d.AttachmentContract()
		_ = c.Unmet([]string{name})
		_ = MatchGlob(tpl, name)
	})
}
