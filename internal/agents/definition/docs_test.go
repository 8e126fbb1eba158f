package definition

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

const (
	docsFile   = "../../../docs/agent-definitions.md"
	beginMark  = "<!-- BEGIN GENERATED step reference: go test ./internal/agents/definition -run TestDocsUpToDate -update -->"
	endMark    = "<!-- END GENERATED step reference -->"
	exampleTag = "<!-- example"
)

// TestDocsUpToDate keeps the step reference of docs/agent-definitions.md
// equal to the spec tables.
func TestDocsUpToDate(t *testing.T) {
	b, err := os.ReadFile(docsFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, beginMark), strings.Index(doc, endMark)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the generated-section markers", docsFile)
	}
	fresh := doc[:i+len(beginMark)] + "\n\n" + stepReferenceMarkdown() + "\n" + doc[j:]
	if *update && fresh != doc {
		if err := os.WriteFile(docsFile, []byte(fresh), 0o644); err != nil {
			t.Fatal(err)
		}
		doc = fresh
	}
	if fresh != doc {
		t.Fatalf("the step reference in %s is stale: run go test -run TestDocsUpToDate -update", docsFile)
	}
}

// TestDocsExamplesValidate imports every JSON example of the page that is a
// definition or an export, with the trigger its marker names.
func TestDocsExamplesValidate(t *testing.T) {
	b, err := os.ReadFile(docsFile)
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)(<!-- example([^>]*)-->\\s*)?```json\\n(.*?)```")
	n := 0
	for _, m := range block.FindAllStringSubmatch(string(b), -1) {
		body := m[3]
		if !strings.Contains(body, `"child_steps"`) || m[1] == "" {
			continue // fragments illustrate one step or one rule
		}
		n++
		opts := ImportOptions{Resolver: acceptAll, Mode: ModePreview}
		if tr := regexp.MustCompile(`trigger=(\w+)`).FindStringSubmatch(m[2]); tr != nil {
			opts.Trigger = TriggerType(tr[1])
		}
		im, err := Import(context.Background(), []byte(body), opts)
		if err != nil {
			t.Errorf("example %d does not import: %v\n%s", n, err, body)
			continue
		}
		if strings.Contains(m[2], "clean") && len(im.Warnings) > 0 {
			t.Errorf("example %d should have no warnings:%s", n, dump(im.Warnings))
		}
	}
	if n < 5 {
		t.Errorf("only %d runnable examples found", n)
	}
}

func stepReferenceMarkdown() string {
	var b strings.Builder
	b.WriteString("### Fields of every step\n\n")
	fieldTable(&b, CommonFields)
	group := ""
	for _, s := range specList {
		if s.Group != group {
			group = s.Group
			fmt.Fprintf(&b, "\n### %s\n", group)
		}
		fmt.Fprintf(&b, "\n#### `%s`\n\n%s %s\n", s.Type, s.Summary, s.Doc)
		var notes []string
		if s.Leaf {
			notes = append(notes, "cannot have `child_steps`")
		}
		if s.ContentOnly {
			notes = append(notes, "needs a `new_content` trigger")
		}
		for _, k := range s.Subtrees {
			notes = append(notes, "owns the sub-tree `"+k+"`")
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, "\n*Structure:* %s.\n", strings.Join(notes, "; "))
		}
		if len(s.Fields) > 0 {
			b.WriteString("\n")
			fieldTable(&b, s.Fields)
		}
	}
	return b.String()
}

func fieldTable(b *strings.Builder, fields []Field) {
	b.WriteString("| field | type | required | default | description |\n|---|---|---|---|---|\n")
	for _, f := range fields {
		req := ""
		if f.Required {
			req = "yes"
		}
		def := ""
		if f.Default != nil {
			def = "`" + strings.ReplaceAll(fmt.Sprintf("%v", mdDefault(f.Default)), "\n", `\n`) + "`"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", f.Name, kindText(f), req, def, strings.ReplaceAll(f.Doc, "|", `\|`))
	}
}

func mdDefault(v any) any {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return v
}

func kindText(f Field) string {
	var s string
	switch f.Kind {
	case KindString:
		s = "string"
	case KindTemplate:
		s = "template"
	case KindInteger, KindNumber:
		s = string(f.Kind)
		switch {
		case f.Min != nil && f.Max != nil:
			s += fmt.Sprintf(" %v–%v", *f.Min, *f.Max)
		case f.Min != nil:
			s += fmt.Sprintf(" ≥ %v", *f.Min)
		}
	case KindBoolean:
		s = "boolean"
	case KindObject:
		s = "object"
	case KindAny:
		s = "any JSON"
	case KindStringList:
		s = "list of strings"
	case KindStringOrList:
		s = "string or list of strings"
	case KindStepID:
		s = "step id"
	case KindRef:
		s = strings.ReplaceAll(string(f.Ref), "_", " ") + " id"
	case KindRefList:
		s = "list of " + strings.ReplaceAll(string(f.Ref), "_", " ") + " ids"
	case KindConditions:
		s = "[conditions](#conditions)"
	case KindRegexRules:
		s = "list of rules"
	case KindTools:
		s = "list of tools"
	case KindSteps:
		s = "list of steps"
	case KindCases:
		s = "list of cases"
	}
	if len(f.Enum) > 0 {
		s += ": `" + strings.Join(f.Enum, "`, `") + "`"
	}
	return s
}
