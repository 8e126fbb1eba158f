package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/playground/playgroundtest"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// acmeModels is a family over the built-in catalog, dated from today:
// acme_old retires in 20 days (successor acme_new).
func acmeModels() []byte {
	return []byte(fmt.Sprintf(`models:
  - {id: acme_old, api_name: acme-old, name: Acme Old, provider: acme, family: acme, family_generation: 1, kind: chat,
     max_context_tokens: 100000, max_output_tokens: 8000, supports_tool_use: true, pricing: {input: 100, output: 200},
     released_at: %s, deprecated_at: %s, sunset_at: %s, successor_id: acme_new}
  - {id: acme_new, api_name: acme-new, name: Acme New, provider: acme, family: acme, family_generation: 2, kind: chat,
     max_context_tokens: 100000, max_output_tokens: 8000, supports_tool_use: true, pricing: {input: 100, output: 200},
     released_at: %s}
`, dateIn(-500), dateIn(-100), dateIn(20), dateIn(-200)))
}

// alertedAgent stores an agent on model and raises its alerts, as the
// agents area does on save.
func alertedAgent(t *testing.T, s *testserver.Server, accountID, model string) string {
	t.Helper()
	def := fmt.Sprintf(`{"child_steps":[{"id":"ask","step_type":"prompt_call","model":%q,"prompt_template":"{{input}}"}]}`, model)
	agentID := s.StoreAgent(t, accountID, "agent on "+model, def, "dynamic_input")
	if _, err := s.S.ModelAlerts.CheckAgent(context.Background(), accountID, agentID); err != nil {
		t.Fatal(err)
	}
	return agentID
}

func alertList(t *testing.T, s *testserver.Server, key, query string) api.ModelAlertListResponse {
	t.Helper()
	r := s.Do(t, "GET", "/models/alerts"+query, key, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /models/alerts%s: %d %s", query, r.Status, r.Body)
	}
	var l api.ModelAlertListResponse
	r.JSON(t, &l)
	return l
}

func unread(t *testing.T, s *testserver.Server, key string) int {
	t.Helper()
	var c api.UnreadCountResponse
	r := s.Do(t, "GET", "/models/alerts/unread-count", key, nil)
	r.JSON(t, &c)
	if r.Status != http.StatusOK {
		t.Fatalf("unread-count: %d", r.Status)
	}
	return c.Count
}

func TestModelAlertsAPI(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		_, withAcme := playgroundtest.Start(t, acmeModels())
		s := testserver.Start(t, d, withAcme)
		other := s.NewTenant(t, "other")
		a1 := alertedAgent(t, s, s.AccountID, "acme_old")
		alertedAgent(t, s, s.AccountID, "acme_old")
		alertedAgent(t, s, s.AccountID, "acme-old") // by API name
		alertedAgent(t, s, s.AccountID, "acme_new") // current: no alert
		alertedAgent(t, s, other.AccountID, "acme_old")

		l := alertList(t, s, s.Key, "")
		if l.Total != 3 || len(l.Alerts) != 3 {
			t.Fatalf("list: %+v", l)
		}
		first := l.Alerts[0]
		if first.AccountID != s.AccountID || first.AgentID == nil || first.PromptModelID != "acme_old" || first.ModelName != "Acme Old" ||
			first.AlertType != "model_sunset" || first.ReadAt != nil || first.SuccessorModelName == nil || *first.SuccessorModelName != "Acme New" {
			t.Errorf("alert: %+v", first)
		}
		if l := alertList(t, s, s.Key, "?limit=2"); len(l.Alerts) != 2 || l.Total != 3 {
			t.Errorf("limit: %d of %d", len(l.Alerts), l.Total)
		}
		if l := alertList(t, s, s.Key, "?limit=2&offset=2"); len(l.Alerts) != 1 || l.Alerts[0].ID == first.ID {
			t.Errorf("offset: %+v", l.Alerts)
		}
		if l := alertList(t, s, s.Key, "?agent_id="+a1); l.Total != 1 || *l.Alerts[0].AgentID != a1 {
			t.Errorf("agent filter: %+v", l)
		}
		if l := alertList(t, s, s.Key, "?agent_id=not-an-agent"); l.Total != 0 {
			t.Errorf("unknown agent filter: %+v", l)
		}
		// The other account sees its own alert only.
		if l := alertList(t, s, other.Key, ""); l.Total != 1 || l.Alerts[0].AccountID != other.AccountID {
			t.Errorf("other account: %+v", l)
		}

		// The strict version: envelope, and page is not a parameter here.
		r := s.Do(t, "GET", "/models/alerts?limit=2&offset=2", s.Key, nil, "Service-Version: 2026-07-27")
		var env api.Envelope[api.ModelAlertResponse]
		r.JSON(t, &env)
		if r.Status != 200 || len(env.Data) != 1 || env.Pagination.Page != 2 || env.Pagination.Total != 3 || !env.Pagination.HasPrev || env.Pagination.HasNext {
			t.Errorf("strict: %d %s", r.Status, r.Body)
		}
		if r := s.Do(t, "GET", "/models/alerts?page=1", s.Key, nil, "Service-Version: 2026-07-27"); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("page at the strict version: %d", r.Status)
		}
		if r := s.Do(t, "GET", "/models/alerts?page=1", s.Key, nil); r.Status != http.StatusOK {
			t.Errorf("page before the strict version is ignored: %d", r.Status)
		}
		for _, q := range []string{"?limit=0", "?limit=101", "?offset=-1", "?unread_only=perhaps"} {
			if r := s.Do(t, "GET", "/models/alerts"+q, s.Key, nil); r.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s: %d", q, r.Status)
			}
		}

		// Reading.
		if n := unread(t, s, s.Key); n != 3 {
			t.Fatalf("unread = %d", n)
		}
		otherAlert := alertList(t, s, other.Key, "").Alerts[0].ID
		for _, c := range []struct {
			key, id string
			want    int
		}{
			{s.Key, otherAlert, http.StatusNotFound},
			{s.Key, "0190a3b4-0000-7000-8000-000000000000", http.StatusNotFound},
			{s.Key, "not-a-uuid", http.StatusUnprocessableEntity},
			{s.Key, first.ID, http.StatusNoContent},
			{s.Key, first.ID, http.StatusNoContent}, // again: still read, no error
		} {
			r := s.Do(t, "PATCH", "/models/alerts/"+c.id+"/read", c.key, nil)
			if r.Status != c.want || (c.want == http.StatusNoContent && len(r.Body) != 0) {
				t.Errorf("PATCH %s: %d %s, want %d", c.id, r.Status, r.Body, c.want)
			}
		}
		if n := unread(t, s, other.Key); n != 1 {
			t.Errorf("the other account's alert changed: unread %d", n)
		}
		l = alertList(t, s, s.Key, "?unread_only=true")
		if l.Total != 2 {
			t.Errorf("unread only: %+v", l)
		}
		for _, a := range l.Alerts {
			if a.ID == first.ID {
				t.Error("a read alert is listed as unread")
			}
		}
		if l := alertList(t, s, s.Key, "?agent_id="+*first.AgentID); l.Alerts[0].ReadAt == nil {
			t.Error("read_at not set")
		}
		if r := s.Do(t, "POST", "/models/alerts/mark-all-read", s.Key, nil); r.Status != http.StatusNoContent {
			t.Fatalf("mark all: %d %s", r.Status, r.Body)
		}
		if n := unread(t, s, s.Key); n != 0 {
			t.Errorf("unread after mark all = %d", n)
		}
		if n := unread(t, s, other.Key); n != 1 {
			t.Errorf("mark all reached another account: %d", n)
		}
		if l := alertList(t, s, s.Key, ""); l.Total != 3 {
			t.Errorf("read alerts are still listed: %d", l.Total)
		}
	})
}
