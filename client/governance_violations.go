package client

import (
	"context"
	"net/url"
)

// GovernanceViolation is a flag or block a policy recorded (extension):
// where it matched and why, never the matched text.
type GovernanceViolation struct {
	ID         string  `json:"id"`
	AgentID    *string `json:"agent_id"`
	RunID      *string `json:"run_id"`
	StepID     *string `json:"step_id"` // nil: the run's input
	PolicyID   *string `json:"policy_id"`
	PolicyName *string `json:"policy_name"` // nil when the policy was deleted
	Stage      string  `json:"stage"`       // input or output
	Action     string  `json:"action"`      // flag or block
	Rule       string  `json:"rule"`
	Reason     string  `json:"reason"`
	OccurredAt string  `json:"occurred_at"`
}

// GovernanceViolationListOptions filter and page GET /governance/violations.
type GovernanceViolationListOptions struct {
	Action, AgentID, RunID, PolicyID string
	Page, Limit                      int // Limit 1–100
}

// ListGovernanceViolations returns a page of the account's recorded flags
// and blocks, newest first.
func (c *Client) ListGovernanceViolations(ctx context.Context, o GovernanceViolationListOptions, opts ...CallOption) (*Page[GovernanceViolation], error) {
	q := ListQuery{Params: url.Values{}, Paging: PageNumbers, Page: o.Page, Limit: min(o.Limit, 100)}
	for k, v := range map[string]string{"action": o.Action, "agent_id": o.AgentID, "run_id": o.RunID, "policy_id": o.PolicyID} {
		if v != "" {
			q.Params.Set(k, v)
		}
	}
	return ListPage[GovernanceViolation](ctx, c, "/governance/violations", q, opts...)
}
