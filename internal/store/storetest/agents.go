package storetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
)

// JudgedAgent creates an eval_and_retry agent of the account with one
// step, s, and returns its id: the store's tests and the evals area's
// (which judge its step) seed their runs with it.
func JudgedAgent(t testing.TB, db *store.DB, accountID string) string {
	t.Helper()
	a, err := db.CreateAgent(context.Background(), store.NewAgent{Agent: store.Agent{AccountID: accountID, Name: "a",
		Definition: json.RawMessage(`{"child_steps":[{"id":"s","step_type":"text","text":"x"}]}`),
		Settings:   store.AgentSettings{EvaluationMode: "eval_and_retry", ModelUpgradeStrategy: "none"}},
		Trigger: store.Trigger{Type: "dynamic_input", Config: json.RawMessage(`{}`)}})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
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
