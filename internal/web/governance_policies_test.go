package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestGovernancePolicyForms: a policy created for one agent and for every
// agent, then changed, from the console, each read back through the API;
// the API's refusals (a bad rule, no stage) shown next to the form with
// the input kept; a member's change refused with the API's 403 on the
// page; a config's other settings kept by an edit; another account's
// policy as a 404.
func TestGovernancePolicyForms(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		agent := srv.StoreAgent(t, srv.AccountID, "Mailer", showDef, "dynamic_input")

		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		b.get("/console/governance").mustContain(t, `href="/console/governance/policies/new"`)
		p := b.get("/console/governance/policies/new")
		p.mustContain(t, "New governance policy", `<option value="`+agent+`">only Mailer</option>`, `name="rules"`, "Create the policy")

		form := func(name, scope, action, rules string, stages ...string) url.Values {
			return url.Values{"name": {name}, "description": {"no personal data"}, "agent_id": {scope}, "action": {action},
				"rules": {rules}, "stages": stages, "enabled": {"on"}}
		}
		// Refusals keep the input.
		p = b.post("/console/governance/policies", form("PII", agent, "block", `[{"type": "pii", "kinds": ["shoe_size"]}]`, "input"))
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, `class="problems"`, "shoe_size", `value="PII"`, `<option value="`+agent+`" selected>`, `value="block" selected`)
		p = b.post("/console/governance/policies", form("PII", "", "block", `[{"type": "pii"}]`))
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, "stages must name input, output or both")
		p = b.post("/console/governance/policies", form("PII", "", "block", `[{"type": `, "input"))
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, "The rules are not valid JSON.")
		if ps, err := api.ListGovernancePolicies(ctx, "", 1, 100); err != nil || ps.Total != 0 {
			t.Fatalf("a refused policy was saved: %+v %v", ps, err)
		}

		// Created for one agent: its page opens.
		p = b.post("/console/governance/policies", form("PII", agent, "block", `[{"type": "pii", "kinds": ["email"]}]`, "input"))
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "Policy created", "Governs one agent", "/console/agents/"+agent)
		id := regexpFind(t, p.Body, `/console/governance/policies/([0-9a-f-]{36})/delete`)
		pol, err := api.GetGovernancePolicy(ctx, id)
		if err != nil || strOf(pol.AgentID) != agent || pol.Name != "PII" || !pol.Enabled {
			t.Fatalf("created: %+v %v", pol, err)
		}
		var cfg struct {
			Action string
			Stages []string
			Rules  []map[string]any
		}
		if err := json.Unmarshal(pol.Config, &cfg); err != nil || cfg.Action != "block" || strings.Join(cfg.Stages, ",") != "input" ||
			len(cfg.Rules) != 1 || cfg.Rules[0]["type"] != "pii" {
			t.Fatalf("config: %s %v", pol.Config, err)
		}
		// It acts: a run with an e-mail address in its input is blocked.
		if r, err := api.RunAndWait(ctx, agent, client.AgentRunRequest{Input: "mail ada@example.com"}); err != nil || r.Status != client.RunFailed {
			t.Fatalf("the policy did not block: %+v %v", r, err)
		}
		b.get("/console/governance").mustContain(t, "/console/governance/policies/"+id)

		// Changed: action, stages, rules; a refusal keeps the input.
		edit := "/console/governance/policies/" + id
		p = b.post(edit, form("PII and secrets", "", "flag", `[{"type": "regex", "patterns": ["("]}]`, "output"))
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, "does not compile", `value="PII and secrets"`, `value="flag" selected`)
		p = b.post(edit, form("PII and secrets", "", "flag", `[{"type": "pii"}, {"type": "secrets"}]`, "input", "output"))
		wantStatus(t, p, http.StatusOK)
		p.mustContain(t, "Policy saved.", "PII and secrets", "Governs one agent")
		pol, _ = api.GetGovernancePolicy(ctx, id)
		if err := json.Unmarshal(pol.Config, &cfg); err != nil || pol.Name != "PII and secrets" || cfg.Action != "flag" ||
			len(cfg.Stages) != 2 || len(cfg.Rules) != 2 || strOf(pol.AgentID) != agent {
			t.Fatalf("changed: %+v %s", pol, pol.Config)
		}

		// An account-wide policy whose config holds more than the form shows
		// keeps it through an edit.
		name := "Secrets"
		typ := "secrets"
		wide, err := api.CreateGovernancePolicy(ctx, client.GovernancePolicyInput{Name: &name, PolicyType: &typ,
			Config: []byte(`{"action": "block", "note": "from an import"}`)})
		if err != nil {
			t.Fatal(err)
		}
		p = b.get("/console/governance/policies/" + wide.ID)
		p.mustContain(t, "Governs every agent", "type <code>secrets</code>", "from an import", `value="block" selected`)
		b.post("/console/governance/policies/"+wide.ID, form("Secrets", "", "flag", "", "output")).mustContain(t, "Policy saved.")
		if got, _ := api.GetGovernancePolicy(ctx, wide.ID); !strings.Contains(string(got.Config), "from an import") ||
			!strings.Contains(string(got.Config), `"flag"`) {
			t.Fatalf("edited config: %s", got.Config)
		}

		// A member reads the form; the API refuses the change, on the page.
		member := newBrowser(t, srv)
		member.signInWithKey(srv.IssueKey(t, srv.AccountID, srv.UserID, store.RoleMember))
		member.get(edit).mustContain(t, "PII and secrets")
		p = member.post(edit, form("Renamed by a member", "", "flag", `[{"type": "pii"}]`, "input"))
		wantStatus(t, p, http.StatusForbidden)
		p.mustContain(t, "owners and admins", `value="Renamed by a member"`)
		p = member.post("/console/governance/policies", form("Member's", "", "flag", `[{"type": "pii"}]`, "input"))
		wantStatus(t, p, http.StatusForbidden)
		p.mustContain(t, "owners and admins", `value="Member&#39;s"`)

		// Another account: 404s, nothing changes.
		other := srv.NewTenant(t, "Other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		ob.get("/console/governance")
		wantStatus(t, ob.get(edit), http.StatusNotFound)
		wantStatus(t, ob.post(edit, form("Theirs", "", "flag", `[{"type": "pii"}]`, "input")), http.StatusNotFound)
		// Their agent is not a scope this account can choose.
		p = ob.post("/console/governance/policies", form("Theirs", agent, "flag", `[{"type": "pii"}]`, "input"))
		wantStatus(t, p, http.StatusUnprocessableEntity)
		p.mustContain(t, "agent_id")
		if got, err := api.GetGovernancePolicy(ctx, id); err != nil || got.Name != "PII and secrets" {
			t.Fatalf("another account changed it: %+v %v", got, err)
		}
		if ps, _ := api.ListGovernancePolicies(ctx, "", 1, 100); ps.Total != 2 {
			t.Fatalf("policies: %d", ps.Total)
		}
	})
}
