package api

import (
	"context"

	"github.com/agentry/agentry/internal/governance"
)

// GET /governance/violations (an extension): the flags and blocks the
// account's policies recorded, newest first. Each names the policy, the
// rule, the stage and step where it matched and the reason; the matched
// text itself was never stored, so no listing can show it.

const governanceViolationsDoc = "The flags and blocks the account's governance policies recorded, newest first: the run, the stage " +
	"(input or output) and step where a rule matched, the policy, the rule and the reason. The matched text is never stored " +
	"or shown. Filters: action, agent_id, run_id, policy_id. Reading needs membership."

// GovernanceViolationResponse is one recorded flag or block.
type GovernanceViolationResponse struct {
	ID         string  `json:"id" format:"uuid"`
	AgentID    *string `json:"agent_id"`
	RunID      *string `json:"run_id"`
	StepID     *string `json:"step_id" doc:"The step whose output matched; null for the run's input."`
	PolicyID   *string `json:"policy_id"`
	PolicyName *string `json:"policy_name" doc:"null when the policy was deleted since."`
	Stage      string  `json:"stage" enum:"input,output"`
	Action     string  `json:"action" enum:"flag,block"`
	Rule       string  `json:"rule" doc:"The rule that matched, with the kind of data where it has one (pii:email, secrets:…, blocked_terms, regex, llm)."`
	Reason     string  `json:"reason" doc:"Why it matched; never quotes the matched text."`
	OccurredAt string  `json:"occurred_at"`
}

type listViolationsInput struct {
	Action   string `query:"action" required:"false" enum:"flag,block" doc:"Only flags or only blocks."`
	AgentID  string `query:"agent_id" required:"false" format:"uuid" doc:"Only this agent's runs."`
	RunID    string `query:"run_id" required:"false" format:"uuid" doc:"Only this run."`
	PolicyID string `query:"policy_id" required:"false" format:"uuid" doc:"Only this policy's."`
	Page     int    `query:"page" default:"1" minimum:"1" maximum:"1000000"`
	Limit    int    `query:"limit" default:"20" minimum:"1" maximum:"100"`
}

func (s *Server) listGovernanceViolations(ctx context.Context, in *listViolationsInput) (*evalgovListOutput, error) {
	f := governance.GovernanceViolationFilter{Action: in.Action, AgentID: in.AgentID, RunID: in.RunID, PolicyID: in.PolicyID}
	vs, total, err := s.deps.Governance.ListViolations(ctx, principal(ctx).AccountID, f, in.Page, in.Limit)
	if err != nil {
		return nil, err
	}
	items := make([]GovernanceViolationResponse, len(vs))
	for i, v := range vs {
		items[i] = GovernanceViolationResponse{ID: v.ID, AgentID: v.AgentID, RunID: v.RunID, StepID: v.StepID, PolicyID: v.PolicyID,
			Stage: v.Stage, Action: v.Action, Rule: v.Rule, Reason: v.Reason, OccurredAt: evalgovTime(v.OccurredAt)}
		if v.PolicyName != "" {
			name := v.PolicyName
			items[i].PolicyName = &name
		}
	}
	envelope := func(items []GovernanceViolationResponse, p Pagination) any {
		return Envelope[GovernanceViolationResponse]{Data: items, Pagination: p}
	}
	return &evalgovListOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), envelope)}, nil
}
