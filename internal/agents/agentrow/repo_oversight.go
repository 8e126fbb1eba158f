package agentrow

import (
	"context"
	"database/sql"
)

// Overseers (evaluations, governance) keep what they load for an agent's
// runs while agents.oversight_rev stays the same, so every write that
// changes what oversees an agent bumps it in the same transaction: the
// agent's own update (the agents repository), and (through BumpOversight)
// its criteria (the evals area) and the policies over it (governance).
// An account-wide policy bumps every agent of the account.

// BumpOversight bumps, in tx, the revision of an account's live agent, or
// of all its live agents when agentID is "": the governance area calls it
// with every write of a policy, for the policy's agent or, account-wide,
// for all of them; the evals area with every write of a criterion.
func BumpOversight(ctx context.Context, tx *sql.Tx, accountID, agentID string) error {
	_, err := tx.ExecContext(ctx, `UPDATE agents SET oversight_rev = oversight_rev + 1
		WHERE account_id = $1 AND deleted_at IS NULL AND ($2 = '' OR id = $2)`, accountID, agentID)
	return err
}
