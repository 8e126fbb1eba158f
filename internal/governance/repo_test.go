package governance

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/agents"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// newAccount makes an account with one agent.
func newAccount(t *testing.T, db *store.DB) (accountID, agentID string) {
	t.Helper()
	ctx := context.Background()
	_, a, err := directory.CreateUser(ctx, db, directory.NewUser{Name: "u"})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID, newAgent(t, db, a.ID)
}

func newAgent(t *testing.T, db *store.DB, accountID string) string {
	t.Helper()
	ag, err := agents.NewRepo(db).CreateAgent(context.Background(), agents.NewAgent{Agent: agents.Agent{AccountID: accountID, Name: "a",
		Definition: json.RawMessage(`{"child_steps":[{"id":"s","step_type":"text","text":"x"}]}`),
		Settings:   agents.AgentSettings{EvaluationMode: "eval_and_retry", ModelUpgradeStrategy: "none"}},
		Trigger: agents.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)}})
	if err != nil {
		t.Fatal(err)
	}
	return ag.ID
}

// Policies are bounded per scope (the account's own, and each agent's);
// an agent-scoped one needs an agent of the account; every write bumps the
// oversight revision of the agents the policy governs, and only theirs.
func TestPolicies(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		r := repo{db}
		acct, agent := newAccount(t, db)
		other := newAgent(t, db, acct)
		foreign, foreignAgent := newAccount(t, db)
		rev := func(agentID string) int64 {
			a, err := agents.NewRepo(db).Agent(ctx, acct, agentID)
			if err != nil {
				t.Fatal(err)
			}
			return int64(a.OversightRev)
		}
		create := func(agentID string) (GovernancePolicy, error) {
			return r.createPolicy(ctx, GovernancePolicy{AccountID: acct, AgentID: agentID, Name: "p", Enabled: true,
				Config: json.RawMessage(`{"a":1}`), KnowledgeBaseIDs: []string{}})
		}

		agentRev, otherRev := rev(agent), rev(other)
		own, err := create(agent)
		if err != nil {
			t.Fatal(err)
		}
		if rev(agent) != agentRev+1 || rev(other) != otherRev {
			t.Errorf("an agent's policy bumped %d→%d and the other agent %d→%d", agentRev, rev(agent), otherRev, rev(other))
		}
		agentRev, otherRev = rev(agent), rev(other)
		wide, err := create("")
		if err != nil {
			t.Fatal(err)
		}
		if rev(agent) != agentRev+1 || rev(other) != otherRev+1 {
			t.Errorf("an account-wide policy bumped %d→%d and %d→%d", agentRev, rev(agent), otherRev, rev(other))
		}
		if got, err := r.policyByID(ctx, acct, own.ID); err != nil || got.AgentID != agent || string(got.Config) != `{"a":1}` ||
			got.KnowledgeBaseIDs == nil || !got.CreatedAt.Equal(own.CreatedAt) {
			t.Errorf("read back: %+v %v", got, err)
		}
		if _, err := r.policyByID(ctx, foreign, own.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another account reads the policy: %v", err)
		}
		if _, err := r.createPolicy(ctx, GovernancePolicy{AccountID: acct, AgentID: foreignAgent, Name: "p"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a policy for another account's agent: %v", err)
		}

		agentRev, otherRev = rev(agent), rev(other)
		own.Enabled = false
		if _, err := r.updatePolicy(ctx, own); err != nil {
			t.Fatal(err)
		}
		if got, _ := r.policyByID(ctx, acct, own.ID); got.Enabled {
			t.Error("the update was not stored")
		}
		if rev(agent) != agentRev+1 || rev(other) != otherRev {
			t.Errorf("updating an agent's policy bumped %d→%d and %d→%d", agentRev, rev(agent), otherRev, rev(other))
		}
		if _, err := r.updatePolicy(ctx, GovernancePolicy{ID: own.ID, AccountID: foreign, Name: "x"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another account updates the policy: %v", err)
		}
		if err := r.deletePolicy(ctx, foreign, wide.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another account deletes the policy: %v", err)
		}
		agentRev, otherRev = rev(agent), rev(other)
		if err := r.deletePolicy(ctx, acct, wide.ID); err != nil {
			t.Fatal(err)
		}
		if rev(agent) != agentRev+1 || rev(other) != otherRev+1 {
			t.Errorf("deleting an account-wide policy bumped %d→%d and %d→%d", agentRev, rev(agent), otherRev, rev(other))
		}
		if ps, err := r.applicablePolicies(ctx, acct, agent); err != nil || len(ps) != 0 {
			t.Errorf("applicable after disabling and deleting: %+v %v", ps, err)
		}

		// The limits, per scope.
		for _, scope := range []string{"", agent} {
			have, _, err := r.policies(ctx, acct, scope, 0, MaxPoliciesPerScope)
			if err != nil {
				t.Fatal(err)
			}
			n := len(have)
			if scope == "" {
				n = 0 // the account-wide one was deleted; the agent's own are not account-wide
			}
			for range MaxPoliciesPerScope - n {
				if _, err := create(scope); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := create(scope); !errors.Is(err, errTooManyPolicies) {
				t.Errorf("scope %q past the limit: %v", scope, err)
			}
		}
		if _, err := create(other); err != nil {
			t.Errorf("another agent of the account: %v", err)
		}
		if _, total, err := r.policies(ctx, acct, "", 0, 1); err != nil || total != 2*MaxPoliciesPerScope+1 {
			t.Errorf("%d policies, %v", total, err)
		}
		if list, total, err := r.policies(ctx, acct, agent, 0, 1); err != nil || total != MaxPoliciesPerScope || len(list) != 1 {
			t.Errorf("the agent's: %d of %d, %v", len(list), total, err)
		}
		if _, total, _ := r.policies(ctx, foreign, "", 0, 1); total != 0 {
			t.Errorf("another account lists %d", total)
		}
	})
}

// An import's policies are stored in the agent's transaction and read
// back whole by an export.
func TestAgentPolicies(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		r := repo{db}
		acct, _ := newAccount(t, db)
		foreign, _ := newAccount(t, db)
		typ := "pii"
		in := []GovernancePolicy{
			{Name: "one", PolicyType: &typ, Enabled: true, Config: json.RawMessage(`{"a":1}`), Extra: json.RawMessage(`{"note":"kept"}`)},
			{Name: "two", KnowledgeBaseIDs: []string{"kb"}},
		}
		ag, err := agents.NewRepo(db).CreateAgent(ctx, agents.NewAgent{Agent: agents.Agent{AccountID: acct, Name: "imported",
			Definition: json.RawMessage(`{"child_steps":[]}`), Settings: agents.AgentSettings{EvaluationMode: "eval_and_retry", ModelUpgradeStrategy: "none"}},
			Trigger: agents.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)},
			Also: []func(context.Context, *sql.Tx, string) error{func(ctx context.Context, tx *sql.Tx, agentID string) error {
				return r.createForAgent(ctx, tx, acct, agentID, in)
			}}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.agentPolicies(ctx, acct, ag.ID)
		if err != nil || len(got) != 2 || got[0].Name != "one" || *got[0].PolicyType != "pii" || !got[0].Enabled ||
			string(got[0].Config) != `{"a":1}` || string(got[0].Extra) != `{"note":"kept"}` || got[0].KnowledgeBaseIDs == nil ||
			got[1].Name != "two" || got[1].Enabled || got[1].Config != nil || len(got[1].KnowledgeBaseIDs) != 1 || got[1].AgentID != ag.ID {
			t.Fatalf("read back: %+v %v", got, err)
		}
		if list, err := r.agentPolicies(ctx, foreign, ag.ID); err != nil || len(list) != 0 {
			t.Errorf("another account reads %d, %v", len(list), err)
		}
	})
}

// A plan is decided once; another account neither reads nor decides it.
func TestConversations(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		r := repo{db}
		acct, _ := newAccount(t, db)
		foreign, _ := newAccount(t, db)
		note := "Proposed 1 change(s)."
		c, err := r.createConversation(ctx, GovernanceConversation{AccountID: acct, UserInput: "block pii", AIResponse: &note,
			ProposedActions: json.RawMessage(`{"actions":[]}`)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.createConversation(ctx, GovernanceConversation{AccountID: store.NewID(), UserInput: "x",
			ProposedActions: json.RawMessage(`{}`)}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a conversation of a missing account: %v", err)
		}
		if err := r.decideConversation(ctx, foreign, c.ID, true); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another account decides: %v", err)
		}
		if err := r.decideConversation(ctx, acct, c.ID, true); err != nil {
			t.Fatal(err)
		}
		if err := r.decideConversation(ctx, acct, c.ID, false); !errors.Is(err, store.ErrConflict) {
			t.Errorf("deciding twice: %v", err)
		}
		if err := r.setConversationResults(ctx, acct, c.ID, json.RawMessage(`[{"success":true}]`)); err != nil {
			t.Fatal(err)
		}
		got, err := r.conversationByID(ctx, acct, c.ID)
		if err != nil || got.Accepted == nil || !*got.Accepted || got.DecidedAt == nil || *got.AIResponse != note ||
			string(got.Results) != `[{"success":true}]` || string(got.ProposedActions) != `{"actions":[]}` {
			t.Fatalf("read back: %+v %v", got, err)
		}
		if _, err := r.conversationByID(ctx, foreign, c.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another account reads it: %v", err)
		}
		if list, err := r.conversations(ctx, acct, 10); err != nil || len(list) != 1 || list[0].ID != c.ID {
			t.Errorf("list: %+v %v", list, err)
		}
		if list, err := r.conversations(ctx, foreign, 10); err != nil || len(list) != 0 {
			t.Errorf("another account lists %d, %v", len(list), err)
		}
	})
}

// A run's verdicts name each policy once, in the order it first acted,
// with no name once the policy is deleted; the list filters and pages.
func TestViolations(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		r := repo{db}
		acct, agent := newAccount(t, db)
		foreign, _ := newAccount(t, db)
		p1, err := r.createPolicy(ctx, GovernancePolicy{AccountID: acct, Name: "first", Enabled: true, KnowledgeBaseIDs: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		p2, err := r.createPolicy(ctx, GovernancePolicy{AccountID: acct, Name: "second", Enabled: true, KnowledgeBaseIDs: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		run := store.NewID()
		for _, v := range []GovernanceViolation{
			{PolicyID: p2.ID, Action: "flag"}, {PolicyID: p1.ID, Action: "flag"}, {PolicyID: p2.ID, Action: "flag"},
			{PolicyID: p1.ID, Action: "block"}, {Action: "block"}, // no policy: not a verdict
		} {
			v.AccountID, v.AgentID, v.RunID, v.Stage, v.Rule, v.Reason = acct, agent, run, "output", "pii:email", "an e-mail address"
			if err := r.recordViolation(ctx, v); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.recordViolation(ctx, GovernanceViolation{AccountID: acct, RunID: store.NewID(), Stage: "input", Action: "flag",
			PolicyID: p1.ID, Rule: "r", Reason: "another run"}); err != nil {
			t.Fatal(err)
		}
		if err := r.deletePolicy(ctx, acct, p2.ID); err != nil {
			t.Fatal(err)
		}
		blocked, flagged, err := r.runVerdicts(ctx, acct, run)
		if err != nil || len(blocked) != 1 || blocked[0] != (PolicyRef{p1.ID, "first"}) ||
			len(flagged) != 2 || flagged[0] != (PolicyRef{p2.ID, ""}) || flagged[1] != (PolicyRef{p1.ID, "first"}) {
			t.Errorf("verdicts: %+v %+v %v", blocked, flagged, err)
		}
		if b, f, err := r.runVerdicts(ctx, foreign, run); err != nil || len(b)+len(f) != 0 {
			t.Errorf("another account reads verdicts: %+v %+v %v", b, f, err)
		}
		for _, c := range []struct {
			run, action string
			want        int
		}{{"", "", 6}, {run, "", 5}, {run, "block", 2}, {"", "flag", 4}} {
			if n, err := r.violationCount(ctx, acct, c.run, c.action); err != nil || n != c.want {
				t.Errorf("count(%q, %q) = %d, %v; want %d", c.run, c.action, n, err, c.want)
			}
		}
		page, total, err := r.violations(ctx, acct, GovernanceViolationFilter{RunID: run, Action: "flag"}, 0, 2)
		if err != nil || total != 3 || len(page) != 2 || page[0].RunID == nil || *page[0].RunID != run || page[0].AgentID == nil {
			t.Fatalf("filtered page: %d of %d %+v %v", len(page), total, page, err)
		}
		byPolicy, total, err := r.violations(ctx, acct, GovernanceViolationFilter{PolicyID: p2.ID}, 0, 10)
		if err != nil || total != 2 || byPolicy[0].PolicyName != "" {
			t.Errorf("a deleted policy's: %d %+v %v", total, byPolicy, err)
		}
		if _, total, _ := r.violations(ctx, foreign, GovernanceViolationFilter{}, 0, 10); total != 0 {
			t.Errorf("another account lists %d", total)
		}
	})
}
