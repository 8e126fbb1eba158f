package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestAlertConfigSourceMustBeTheAccounts: source_connection_id is checked
// as agent_id is — a non-UUID, a missing id and another account's source
// are the same 422 naming the field (they used to be stored as given).
func TestAlertConfigSourceMustBeTheAccounts(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		other := s.NewTenant(t, "other")
		foreign := mustID(t, s.Do(t, "POST", "/sources", other.Key, map[string]any{"name": "theirs", "source_type": "custom_index"}))
		own := mustID(t, s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "mine", "source_type": "custom_index"}))
		for _, id := range []string{"not-a-uuid", "01234567-89ab-7def-8123-456789abcdef", foreign, "a\u0000b"} {
			r := s.Do(t, "POST", "/alerts/configs", s.Key, map[string]any{"alert_type": "pull_failed", "source_connection_id": id})
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `"source_connection_id"`) {
				t.Errorf("%q: %d %s", id, r.Status, r.Body)
			}
			if strings.Contains(string(r.Body), "theirs") {
				t.Errorf("the answer names the other account's source: %s", r.Body)
			}
		}
		for _, id := range []string{"a\u0000b", "x y"} {
			r := s.Do(t, "POST", "/alerts/configs", s.Key, map[string]any{"alert_type": "run_failed", "agent_id": id})
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `"agent_id"`) {
				t.Errorf("agent_id %q: %d %s", id, r.Status, r.Body)
			}
		}
		wantStatus(t, s.Do(t, "POST", "/alerts/configs", s.Key, map[string]any{"alert_type": "pull_failed", "source_connection_id": own}), http.StatusCreated)
	})
}
