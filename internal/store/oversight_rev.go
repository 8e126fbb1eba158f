package store

import "context"

// Overseers (evaluations, governance) keep what they load for an agent's
// runs while agents.oversight_rev stays the same, so every write that
// changes what oversees an agent bumps it in the same transaction: the
// agent's own update (updateAgent), its criteria, and the policies over it.
// An account-wide policy bumps every agent of the account.

// bumpForCriterion bumps the revision of the agent a criterion judges.
func bumpForCriterion(ctx context.Context, x execer, accountID, criterionID string) error {
	_, err := x.ExecContext(ctx, `UPDATE agents SET oversight_rev = oversight_rev + 1
		WHERE account_id = $1 AND id = (SELECT agent_id FROM evaluation_criteria WHERE id = $2 AND account_id = $1)`,
		accountID, criterionID)
	return err
}

// bumpForPolicy bumps the revision of the agents a policy governs: its
// agent, or all of the account's when it is account-wide.
func bumpForPolicy(ctx context.Context, x execer, accountID, policyID string) error {
	_, err := x.ExecContext(ctx, `UPDATE agents SET oversight_rev = oversight_rev + 1
		WHERE account_id = $1 AND deleted_at IS NULL AND EXISTS (SELECT 1 FROM governance_policies p
			WHERE p.id = $2 AND p.account_id = $1 AND (p.agent_id IS NULL OR p.agent_id = agents.id))`,
		accountID, policyID)
	return err
}
