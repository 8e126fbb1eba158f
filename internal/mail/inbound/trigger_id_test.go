package inbound_test

import (
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// agentTriggers is the triggers list of an agent answer.
type agentTriggers struct {
	ID       string `json:"id"`
	Triggers []struct {
		ID             string   `json:"id"`
		TriggerType    string   `json:"trigger_type"`
		EmailAddresses []string `json:"email_addresses"`
		EmailAlias     *string  `json:"email_alias"`
	} `json:"triggers"`
}

func createMailAgent(t *testing.T, ts *testserver.Server, name string) agentTriggers {
	t.Helper()
	r := ts.Do(t, http.MethodPost, "/agents", ts.Key, map[string]any{"name": name, "trigger_type": "email_received"})
	if r.Status != http.StatusOK && r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var a agentTriggers
	r.JSON(t, &a)
	return a
}

// TestTriggerIDThroughTheAPI: the id email-config takes is in the agent's
// answers and its export, so a user configures the mailbox through the
// API alone; and a deleted agent's alias is free for a new agent.
func TestTriggerIDThroughTheAPI(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ts := testserver.Start(t, d)
		created := createMailAgent(t, ts, "mailbox")

		r := ts.Do(t, http.MethodGet, "/agents/"+created.ID, ts.Key, nil)
		var got agentTriggers
		r.JSON(t, &got)
		if len(got.Triggers) != 1 || got.Triggers[0].ID == "" || got.Triggers[0].TriggerType != "email_received" {
			t.Fatalf("GET /agents/{id} triggers: %s", r.Body)
		}
		trigger := got.Triggers[0].ID
		if a := got.Triggers[0].EmailAddresses; len(a) != 1 || a[0] != created.ID+"@agent.localhost" {
			t.Errorf("addresses before an alias: %v", a)
		}

		var list struct{ Data []agentTriggers }
		ts.Do(t, http.MethodGet, "/agents", ts.Key, nil).JSON(t, &list)
		if len(list.Data) != 1 || len(list.Data[0].Triggers) != 1 || list.Data[0].Triggers[0].ID != trigger {
			t.Errorf("GET /agents triggers: %+v", list.Data)
		}

		var export struct {
			Trigger struct {
				ID          string `json:"id"`
				TriggerType string `json:"trigger_type"`
			} `json:"trigger"`
		}
		ts.Do(t, http.MethodGet, "/agents/"+created.ID+"/export", ts.Key, nil).JSON(t, &export)
		if export.Trigger.ID != trigger || export.Trigger.TriggerType != "email_received" {
			t.Errorf("export trigger: %+v", export.Trigger)
		}

		cfg := ts.Do(t, http.MethodPut, "/agents/"+created.ID+"/triggers/"+trigger+"/email-config", ts.Key, map[string]any{"alias": "support"})
		if cfg.Status != http.StatusOK {
			t.Fatalf("email-config with the listed trigger id: %d %s", cfg.Status, cfg.Body)
		}
		ts.Do(t, http.MethodGet, "/agents/"+created.ID, ts.Key, nil).JSON(t, &got)
		alias := "support." + ts.AccountID + "@agent.localhost"
		if tr := got.Triggers[0]; tr.EmailAlias == nil || *tr.EmailAlias != "support" || len(tr.EmailAddresses) != 2 || tr.EmailAddresses[1] != alias {
			t.Errorf("after the alias: %+v", tr)
		}

		// The export's id is informative: importing it makes a new trigger
		// with an id of its own, and no warning.
		exported := ts.Do(t, http.MethodGet, "/agents/"+created.ID+"/export", ts.Key, nil)
		var payload map[string]any
		exported.JSON(t, &payload)
		imp := ts.Do(t, http.MethodPost, "/agents", ts.Key, map[string]any{"name": "copy", "agent_definition": payload})
		var copied agentTriggers
		imp.JSON(t, &copied)
		if imp.Status >= 300 || len(copied.Triggers) != 1 || copied.Triggers[0].ID == trigger {
			t.Fatalf("import: %d %s", imp.Status, imp.Body)
		}

		// Deleting the agent frees its alias.
		if r := ts.Do(t, http.MethodDelete, "/agents/"+created.ID, ts.Key, nil); r.Status >= 300 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		next := createMailAgent(t, ts, "new mailbox")
		r = ts.Do(t, http.MethodPut, "/agents/"+next.ID+"/triggers/"+next.Triggers[0].ID+"/email-config", ts.Key, map[string]any{"alias": "Support"})
		if r.Status != http.StatusOK {
			t.Fatalf("the deleted agent's alias for a new agent: %d %s", r.Status, r.Body)
		}
	})
}
