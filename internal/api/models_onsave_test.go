package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestSavingAgentChecksModels saves a workflow that uses a deprecated model
// and expects the lifecycle alert at once, before any scheduled sweep.
func TestSavingAgentChecksModels(t *testing.T) {
	t.Parallel()
	day := func(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format(time.DateOnly) }
	override := []byte(fmt.Sprintf(`models:
  - {id: acme_old, api_name: acme-old, name: Acme Old, provider: acme, family: acme, family_generation: 1, kind: chat,
     max_context_tokens: 100000, max_output_tokens: 8000, supports_tool_use: true, pricing: {input: 100, output: 200},
     released_at: %s, deprecated_at: %s, sunset_at: %s, successor_id: acme_new}
  - {id: acme_new, api_name: acme-new, name: Acme New, provider: acme, family: acme, family_generation: 2, kind: chat,
     max_context_tokens: 100000, max_output_tokens: 8000, supports_tool_use: true, pricing: {input: 100, output: 200},
     released_at: %s}
`, day(-400), day(-30), day(20), day(-100)))
	_, opt := playgroundtest.Start(t, override)
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, opt)
		count := func() int {
			r := s.Do(t, "GET", "/models/alerts/unread-count", s.Key, nil)
			var body struct {
				Count       int `json:"count"`
				UnreadCount int `json:"unread_count"`
			}
			r.JSON(t, &body)
			return body.Count + body.UnreadCount
		}
		if n := count(); n != 0 {
			t.Fatalf("%d alerts before any agent", n)
		}
		r := s.Do(t, "POST", "/agents", s.Key, map[string]any{"name": "uses old", "agent_definition": map[string]any{
			"child_steps": []any{map[string]any{"id": "ask", "step_type": "prompt_call", "model": "acme_old", "prompt_template": "{{input}}"}}}})
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		if n := count(); n == 0 {
			t.Error("saving an agent on a deprecated model raised no alert")
		}
	})
}
