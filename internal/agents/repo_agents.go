package agents

import (
	"context"
	"database/sql"

	"github.com/agentry/agentry/internal/store"
)

// The agents' SQL that has left the store so far (issue 31's vertical
// slices): what reads or writes the agents table without an agent row
// (the sweep's references, existence, deletion). The agent's own row, its
// writes and its calls are still the store's (internal/store/agents*.go),
// until they move here too.

// AgentRef names an agent of an account.
type AgentRef struct{ AccountID, ID string }

// AgentsAfter lists live agents of every account in id order, after the
// id given ("" for the start), at most limit. Only the model lifecycle
// sweep, a background job over all accounts, may call it; every request
// path reads agents through the account-scoped methods.
func AgentsAfter(ctx context.Context, db *store.DB, afterID string, limit int) ([]AgentRef, error) {
	return store.All(ctx, db.R, func(row store.Scanner) (r AgentRef, err error) {
		return r, row.Scan(&r.AccountID, &r.ID)
	}, `SELECT account_id, id FROM agents WHERE deleted_at IS NULL AND id > $1 ORDER BY id LIMIT $2`, afterID, limit)
}

// KnowledgeBaseReferenced reports whether a live agent definition of the
// account names the knowledge base (its id appears in the definition).
// The knowledge area asks it before deleting a knowledge base (the server
// passes it as knowledge.Config.AgentsUsingKB).
func (s *Service) KnowledgeBaseReferenced(ctx context.Context, accountID, id string) (bool, error) {
	var n int
	err := s.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE account_id = $1 AND deleted_at IS NULL AND definition LIKE $2`,
		accountID, "%"+id+"%").Scan(&n)
	return n > 0, err
}

// Exists reports whether the account has a live agent with this id: the
// areas that take an agent id (evaluations, regressions, governance, the
// MCP exposure) check it before they store anything under it.
func Exists(ctx context.Context, db *store.DB, accountID, id string) (bool, error) {
	var n int
	err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, id, accountID).Scan(&n)
	return n > 0, err
}

// deleteAgent soft-deletes a live agent. Its rows stay for the runs and
// history that name it; every lookup skips it from now on.
func deleteAgent(ctx context.Context, db *store.DB, accountID, id string) error {
	now := store.Now()
	return db.Tx(ctx, func(tx *sql.Tx) error {
		if err := store.Affected(ctx, tx, `UPDATE agents SET deleted_at = $1, updated_at = $1
			WHERE id = $2 AND account_id = $3 AND deleted_at IS NULL`, now, id, accountID); err != nil {
			return err
		}
		// A deleted agent calls nobody: it must not block pausing its callees.
		// (Nor does it receive mail: mail/inbound gives its alias to the
		// next agent that asks for it.)
		_, err := tx.ExecContext(ctx, `DELETE FROM agent_calls WHERE caller_id = $1`, id)
		return err
	})
}
