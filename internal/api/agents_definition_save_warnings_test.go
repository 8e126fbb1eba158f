package api_test

import (
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestSavingReportsUnknownModelsAndUnclosedPlaceholders: saving a workflow
// (PUT definition; GET shows them too) warns about a model the catalog does not know
// and a {{ never closed, both of which would only show at run time.
func TestSavingReportsUnknownModelsAndUnclosedPlaceholders(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		a := createAgent(t, s, s.Key, map[string]any{"name": "a", "agent_template": "simple_qa"})
		cur := getDefinition(t, s, s.Key, a.ID)
		next := map[string]any{"name": "a", "child_steps": []any{
			map[string]any{"id": "answer", "name": "Answer", "step_type": "prompt_call", "model": "openai_gpt_9000",
				"prompt_template": "Answer {{input", "child_steps": []any{
					map[string]any{"id": "out", "name": "Show", "step_type": "display_result"}}},
			map[string]any{"id": "known", "name": "Known", "step_type": "prompt_call", "model": "gpt-4o", "prompt_template": "{{input}}"},
		}}
		r := s.Do(t, "PUT", "/agents/"+a.ID+"/definition", s.Key, map[string]any{"expected_change_id": cur.ChangeID, "definition": next})
		wantStatus(t, r, http.StatusOK)
		var saved definitionBody
		r.JSON(t, &saved)
		codes := map[string]string{}
		for _, w := range saved.Warnings {
			codes[w["code"]] = w["path"]
		}
		if codes["unknown_model"] != "child_steps[0].model" || codes["unclosed_placeholder"] != "child_steps[0].prompt_template" || len(codes) != 2 {
			t.Fatalf("warnings: %s", r.Body)
		}
		// Reading the workflow back shows the same warnings.
		if got := getDefinition(t, s, s.Key, a.ID); len(got.Warnings) != 2 {
			t.Errorf("get: %+v", got.Warnings)
		}
	})
}
