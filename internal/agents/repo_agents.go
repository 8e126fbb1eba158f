package agents

import (
	"context"
	"database/sql"

	"github.com/agentry/agentry/internal/store"
)

// The agents' SQL that has left the store so far (issue 31's vertical
// slices): what reads or writes the agents table without an agent row
// (a knowledge base's use, deletion). The agent's own row, its
// writes and its calls are still the store's (internal/store/agents*.go),
// until they move here too.

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
