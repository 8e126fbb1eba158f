package agents

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

func TestAgentsRepoReads(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		acct, other := storetest.Account(t, db), storetest.Account(t, db)
		a, err := NewRepo(db).CreateAgent(ctx, NewAgent{Agent: Agent{AccountID: acct, Name: "kb user",
			Definition: json.RawMessage(`{"child_steps":[{"id":"s","knowledge_base_id":"kb_1"}]}`),
			Settings:   AgentSettings{EvaluationMode: "none", ModelUpgradeStrategy: "none"}},
			Trigger: Trigger{Type: "dynamic_input"}})
		if err != nil {
			t.Fatal(err)
		}
		b := storetest.JudgedAgent(t, db, other)

		s := &Service{db: db}
		for _, tc := range []struct {
			account, kb string
			want        bool
		}{{acct, "kb_1", true}, {acct, "kb_2", false}, {other, "kb_1", false}} {
			if got, err := s.KnowledgeBaseReferenced(ctx, tc.account, tc.kb); err != nil || got != tc.want {
				t.Errorf("KnowledgeBaseReferenced(%s) = %v, %v", tc.kb, got, err)
			}
		}

		// The sweep pages through every account's live agents in id order.
		var seen []AgentRef
		after := ""
		for {
			page, err := NewRepo(db).AgentsAfter(ctx, after, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			seen, after = append(seen, page...), page[0].ID
		}
		if len(seen) != 2 || seen[0].ID >= seen[1].ID || (seen[0] != AgentRef{AccountID: acct, ID: a.ID} && seen[0] != AgentRef{AccountID: other, ID: b}) {
			t.Fatalf("sweep: %+v", seen)
		}
		if err := deleteAgent(ctx, db, acct, a.ID); err != nil {
			t.Fatal(err)
		}
		if refs, _ := NewRepo(db).AgentsAfter(ctx, "", 10); len(refs) != 1 || refs[0].ID != b {
			t.Fatalf("a deleted agent is swept: %+v", refs)
		}
		if used, _ := s.KnowledgeBaseReferenced(ctx, acct, "kb_1"); used {
			t.Fatal("a deleted agent still references its knowledge base")
		}
	})
}

func TestAgentDelete(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		acct, other := storetest.Account(t, db), storetest.Account(t, db)
		mk := func(name string, calls ...string) string {
			a, err := NewRepo(db).CreateAgent(ctx, NewAgent{Agent: Agent{AccountID: acct, Name: name,
				Definition: json.RawMessage(`{"child_steps":[]}`), CallTargets: calls,
				Settings: AgentSettings{EvaluationMode: "none", ModelUpgradeStrategy: "none"}},
				Trigger: Trigger{Type: "dynamic_input"}})
			if err != nil {
				t.Fatal(err)
			}
			return a.ID
		}
		callee := mk("callee")
		caller := mk("caller", callee)
		if ok, err := NewRepo(db).AgentExists(ctx, acct, caller); err != nil || !ok {
			t.Fatalf("exists: %v %v", ok, err)
		}
		if ok, _ := NewRepo(db).AgentExists(ctx, other, caller); ok {
			t.Fatal("another account's agent exists")
		}
		if err := deleteAgent(ctx, db, other, caller); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("delete across accounts: %v", err)
		}

		// Soft delete: gone from lookups and lists, no longer a caller.
		if err := deleteAgent(ctx, db, acct, caller); err != nil {
			t.Fatal(err)
		}
		if err := deleteAgent(ctx, db, acct, caller); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		if ok, _ := NewRepo(db).AgentExists(ctx, acct, caller); ok {
			t.Fatal("deleted agent exists")
		}
		if _, err := NewRepo(db).Agent(ctx, acct, caller); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted agent read: %v", err)
		}
		if c, _ := NewRepo(db).AgentCallers(ctx, acct, callee); len(c) != 0 {
			t.Fatalf("deleted caller still listed: %+v", c)
		}
		if names, _ := NewRepo(db).AgentNames(ctx, acct); len(names) != 1 || names[0].ID != callee {
			t.Fatalf("names %+v", names)
		}
	})
}
