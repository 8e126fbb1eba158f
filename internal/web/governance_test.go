package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestGovernancePages: the policies, the runs they flagged and blocked
// (policy, rule, where, reason — never the matched text), the assistant's
// plan accepted from the page, the owner/admin role the API enforces on
// writes, and another account's policy as a 404.
func TestGovernancePages(t *testing.T) {
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		srv := start(t, d)
		ctx := context.Background()
		api := apiClient(t, srv, srv.Key)
		agent := srv.StoreAgent(t, srv.AccountID, "Mailer", showDef, "dynamic_input")
		name := "No personal data"
		pol, err := api.CreateGovernancePolicy(ctx, client.GovernancePolicyInput{Name: &name,
			Config: []byte(`{"action":"block","stages":["input"],"rules":[{"type":"pii","kinds":["email"]}]}`)})
		if err != nil {
			t.Fatal(err)
		}
		blocked, err := api.RunAndWait(ctx, agent, client.AgentRunRequest{Input: "please mail jane.doe@example.com the report"})
		if err != nil || blocked.Status != client.RunFailed {
			t.Fatal(blocked, err)
		}

		b := newBrowser(t, srv)
		b.signInWithKey(srv.Key)
		p := b.get("/console/governance")
		p.mustContain(t, "Governance", name, "block", "pii (email)", "Flagged and blocked runs",
			"/console/runs/"+blocked.RunID, "blocked", "run input", "the run input contains an e-mail address", "Policy assistant")
		if strings.Contains(p.Body, "jane.doe") {
			t.Fatal("the page shows the matched personal data")
		}
		b.get("/console/governance?action=flag").mustContain(t, "No run was flagged or blocked.")

		// Disable, then enable, through the API.
		p = b.post("/console/governance/policies/"+pol.ID+"/disable", nil)
		p.mustContain(t, "Policy disabled", "Enable")
		if got, _ := api.GetGovernancePolicy(ctx, pol.ID); got.Enabled {
			t.Fatal("the policy is still enabled")
		}
		b.post("/console/governance/policies/"+pol.ID+"/enable", nil).mustContain(t, "Policy enabled")

		// The assistant proposes a plan; accepting it applies it.
		p = b.post("/console/governance/assistant", url.Values{"user_input": {"Block card numbers in responses"}})
		p.mustContain(t, "Accept the plan", "create")
		accept := regexpFind(t, p.Body, `/console/governance/assistant/([^/"]+)/accept`)
		p = b.post("/console/governance/assistant/"+accept+"/accept", nil)
		p.mustContain(t, "Plan applied.", "card")
		ps, err := api.ListGovernancePolicies(ctx, "", 1, 100)
		if err != nil || ps.Total != 2 {
			t.Fatalf("policies after the plan: %+v %v", ps, err)
		}
		if p = b.post("/console/governance/assistant", url.Values{"user_input": {""}}); p.Status != http.StatusBadRequest {
			t.Fatalf("empty request: %d", p.Status)
		}

		// A member reads, but the API refuses its writes (shown on the page).
		member := newBrowser(t, srv)
		member.signInWithKey(srv.IssueKey(t, srv.AccountID, srv.UserID, store.RoleMember))
		member.get("/console/governance").mustContain(t, name)
		p = member.post("/console/governance/policies/"+pol.ID+"/disable", nil)
		if p.Status != http.StatusForbidden || !strings.Contains(p.Body, "owners and admins") {
			t.Fatalf("member disables: %d\n%s", p.Status, p.Body)
		}
		if p = member.post("/console/governance/assistant", url.Values{"user_input": {"Block secrets"}}); p.Status != http.StatusForbidden {
			t.Fatalf("member asks the assistant: %d", p.Status)
		}

		// Another account sees none of it, and cannot touch it.
		other := srv.NewTenant(t, "Other")
		ob := newBrowser(t, srv)
		ob.signInWithKey(other.Key)
		p = ob.get("/console/governance")
		if strings.Contains(p.Body, name) || strings.Contains(p.Body, blocked.RunID) {
			t.Fatal("another account sees the policy or the blocked run")
		}
		for _, action := range []string{"disable", "delete"} {
			if p := ob.post("/console/governance/policies/"+pol.ID+"/"+action, nil); p.Status != http.StatusNotFound {
				t.Errorf("%s as another account: %d", action, p.Status)
			}
		}
		if p := ob.post("/console/governance/assistant/"+accept+"/decline", nil); p.Status != http.StatusNotFound {
			t.Errorf("decline another account's plan: %d", p.Status)
		}
		if got, err := api.GetGovernancePolicy(ctx, pol.ID); err != nil || !got.Enabled {
			t.Fatalf("the policy changed: %+v %v", got, err)
		}
		// Deleting it as the owner.
		b.get("/console/governance")
		b.post("/console/governance/policies/"+pol.ID+"/delete", nil).mustContain(t, "Policy deleted.")
	})
}
