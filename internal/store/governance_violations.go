package store

import (
	"context"
	"database/sql"
	"time"
)

// GovernanceViolationRecord is a recorded flag or block as listed: where
// it happened, which policy and rule, and why. The matched text was never
// stored, so it cannot be listed.
type GovernanceViolationRecord struct {
	ID                          string
	AgentID, RunID, StepID      *string
	PolicyID                    *string
	PolicyName                  string // "" when the policy was deleted since
	Stage, Action, Rule, Reason string
	OccurredAt                  time.Time
}

// GovernanceViolationFilter narrows the list; empty fields select all.
type GovernanceViolationFilter struct {
	Action, AgentID, RunID, PolicyID string
}

// GovernanceViolations lists a page of the account's recorded flags and
// blocks, newest first, with their total.
func (db *DB) GovernanceViolations(ctx context.Context, accountID string, f GovernanceViolationFilter, offset, limit int) ([]GovernanceViolationRecord, int, error) {
	where := ` WHERE v.account_id = $1`
	args := []any{accountID}
	for _, c := range []struct{ col, val string }{{"v.action", f.Action}, {"v.agent_id", f.AgentID}, {"v.run_id", f.RunID}, {"v.policy_id", f.PolicyID}} {
		if c.val != "" {
			args = append(args, c.val)
			where += ` AND ` + c.col + ` = $` + itoa(len(args))
		}
	}
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM governance_violations v`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	args = append(args, limit, offset)
	rows, err := db.R.QueryContext(ctx, `SELECT v.id, v.agent_id, v.run_id, v.step_id, v.policy_id, COALESCE(p.name, ''),
		v.stage, v.action, v.rule, v.reason, v.occurred_at FROM governance_violations v
		LEFT JOIN governance_policies p ON p.id = v.policy_id AND p.account_id = v.account_id`+where+
		` ORDER BY v.occurred_at DESC, v.id DESC LIMIT $`+itoa(len(args)-1)+` OFFSET $`+itoa(len(args)), args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []GovernanceViolationRecord{}
	for rows.Next() {
		var (
			r                        GovernanceViolationRecord
			agent, run, step, policy sql.NullString
		)
		if err := rows.Scan(&r.ID, &agent, &run, &step, &policy, &r.PolicyName, &r.Stage, &r.Action, &r.Rule, &r.Reason, &r.OccurredAt); err != nil {
			return nil, 0, err
		}
		r.AgentID, r.RunID, r.StepID, r.PolicyID = nullStr(agent), nullStr(run), nullStr(step), nullStr(policy)
		r.OccurredAt = r.OccurredAt.UTC()
		out = append(out, r)
	}
	return out, total, rows.Err()
}
