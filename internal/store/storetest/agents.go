package storetest

import (
	"context"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/store"
)

// JudgedAgent creates an eval_and_retry agent of the account with one
// step, s, and returns its id: the store's tests and the evals area's
// (which judge its step) seed their runs with it. It writes the rows
// itself rather than through the agents area's repository, whose own
// tests use it (package agents importing storetest importing agents
// would be a cycle).
func JudgedAgent(t testing.TB, db *store.DB, accountID string) string {
	t.Helper()
	ctx, id, now := context.Background(), store.NewID(), store.Now()
	if _, err := db.W.ExecContext(ctx, `INSERT INTO agents (id, account_id, name, schema_version, definition, change_id,
		definition_saved_at, evaluation_mode, max_retries, retry_on_failure, prompt_model_auto_upgrade_strategy,
		prompt_model_auto_rollback_enabled, created_at, updated_at)
		VALUES ($1, $2, 'a', '', $3, $4, $5, 'eval_and_retry', 0, false, 'none', false, $5, $5)`,
		id, accountID, `{"child_steps":[{"id":"s","step_type":"text","text":"x"}]}`, store.NewID(), now); err != nil {
		t.Fatal(err)
	}
	if _, err := db.W.ExecContext(ctx, `INSERT INTO agent_triggers (id, account_id, agent_id, trigger_type, config, created_at, updated_at)
		VALUES ($1, $2, $3, 'dynamic_input', '{}', $4, $4)`, store.NewID(), accountID, id, now); err != nil {
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
