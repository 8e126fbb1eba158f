package definition

import (
	"context"
	"reflect"
	"testing"
)

func TestCheckDefinition(t *testing.T) {
	raw := `{"child_steps":[{"id":"r","name":"R","step_type":"retrieval","knowledge_base_id":"` + kbID + `","top_k":0,"top_k":500}]}`
	d, probs, err := CheckDefinition(context.Background(), []byte(raw), ValidateOptions{BasePath: "definition", Resolver: accountWith()})
	if err != nil || d == nil {
		t.Fatal(err)
	}
	if !hasProblem(probs, SeverityWarning, CodeDuplicateKey, "definition.child_steps[0].top_k") ||
		!hasProblem(probs, SeverityError, CodeOutOfRange, "definition.child_steps[0].top_k") ||
		!hasProblem(probs, SeverityError, CodeUnresolvedRef, "definition.child_steps[0].knowledge_base_id") {
		t.Fatalf("problems:%s", dump(probs))
	}
	for _, p := range probs {
		if p.Code == CodeUnresolvedRef {
			loc := append([]any{"body"}, p.Loc()...)
			if want := []any{"body", "definition", "child_steps", 0, "knowledge_base_id"}; !reflect.DeepEqual(loc, want) {
				t.Errorf("loc %v", loc)
			}
		}
	}
	d, probs, err = CheckDefinition(context.Background(), []byte(`{"child_steps": [}`), ValidateOptions{BasePath: "definition"})
	if err != nil || d != nil || len(probs) != 1 || probs[0].Code != CodeInvalidJSON || probs[0].Column != 18 {
		t.Fatalf("syntax: %v %v %+v", d, err, probs)
	}
	w := Problem{Severity: SeverityWarning, Code: CodeMissingName, Path: "definition.child_steps[0]", Message: "step has no name", Line: 3, Column: 5}.WarningMap()
	if w["code"] != "missing_name" || w["line"] != "3" || w["path"] != "definition.child_steps[0]" {
		t.Errorf("warning map %v", w)
	}
}
