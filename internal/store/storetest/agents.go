package storetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/store"
)

// JudgedAgent creates an eval_and_retry agent of the account with one
// step, s, and returns its id: the store's tests and the evals area's
// (which judge its step) seed their runs with it. It writes the rows
// through the agents area's leaf package (agentrow) rather than its
// repository, whose own tests use it (package agents importing storetest
// importing agents would be a cycle).
func JudgedAgent(t testing.TB, db *store.DB, accountID string) string {
	t.Helper()
	ctx, id, now := context.Background(), store.NewID(), store.Now()
	a := agentrow.Agent{ID: id, AccountID: accountID, Name: "a",
		Definition: json.RawMessage(`{"child_steps":[{"id":"s","step_type":"text","text":"x"}]}`), ChangeID: store.NewID(),
		Settings: agentrow.Settings{EvaluationMode: "eval_and_retry", ModelUpgradeStrategy: "none"}}
	if err := agentrow.Insert(ctx, db.W, a, now); err != nil {
		t.Fatal(err)
	}
	if err := agentrow.InsertTrigger(ctx, db.W, store.NewID(), accountID, id, "dynamic_input", json.RawMessage(`{}`), now); err != nil {
		t.Fatal(err)
	}
	return id
}

// Account creates an account with a few opening credits and returns its
// id.
func Account(t testing.TB, db *store.DB) string {
	t.Helper()
	_, a, err := directory.CreateUser(context.Background(), db, directory.NewUser{Name: "u", OpeningCredits: 5})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}
