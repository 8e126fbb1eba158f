package api_test

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestDefinitionWarningsSameOnGetAndPut: the warnings of one definition,
// paths included, are the same whether PUT answers them or GET does (PUT
// used to put them under "definition." and GET not).
func TestDefinitionWarningsSameOnGetAndPut(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		a := createAgent(t, s, s.Key, map[string]any{"name": "warned"})
		cur := getDefinition(t, s, s.Key, a.ID)
		// Two steps without a model: two warnings, with paths into the steps.
		def := map[string]any{"name": "warned", "child_steps": []any{
			map[string]any{"id": "one", "name": "One", "step_type": "prompt_call", "prompt_template": "{{input}}"},
			map[string]any{"id": "two", "name": "Two", "step_type": "prompt_call", "prompt_template": "{{input}}"},
		}}
		r := s.Do(t, http.MethodPut, "/agents/"+a.ID+"/definition", s.Key, map[string]any{"expected_change_id": cur.ChangeID, "definition": def})
		wantStatus(t, r, http.StatusOK)
		var put definitionBody
		r.JSON(t, &put)
		got := getDefinition(t, s, s.Key, a.ID)
		if len(put.Warnings) < 2 {
			t.Fatalf("PUT warnings: %v, want one per step without a model", put.Warnings)
		}
		if !reflect.DeepEqual(put.Warnings, got.Warnings) {
			t.Errorf("warnings differ:\nPUT %v\nGET %v", put.Warnings, got.Warnings)
		}
		for _, w := range got.Warnings {
			if w["path"] == "" {
				t.Errorf("warning without a path: %v", w)
			}
		}
	})
}
