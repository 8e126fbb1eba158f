package api

import (
	"context"
	"encoding/json"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/governance"
)

// Governance: the assistant's four operations, and the extension CRUD of
// policies with a check operation. Governance access is the account's
// owners and admins: others get 403 on every write and on the assistant.

// GovernanceAiAssistantRequest asks the assistant for a plan.
type GovernanceAiAssistantRequest struct {
	UserInput string `json:"user_input" minLength:"1" maxLength:"4000" doc:"Natural-language request for the governance AI assistant."`
}

// ProposedPolicyActionResponse is one proposed change.
type ProposedPolicyActionResponse struct {
	ActionType  string         `json:"action_type" doc:"Type of action: create, update, delete, enable, or disable."`
	Description string         `json:"description"`
	Params      map[string]any `json:"params"`
}

// GovernanceAiAssistantResponse is a proposed plan.
type GovernanceAiAssistantResponse struct {
	ConversationID  string                         `json:"conversation_id"`
	Note            string                         `json:"note"`
	ProposedActions []ProposedPolicyActionResponse `json:"proposed_actions"`
	Success         bool                           `json:"success"`
	ExamplePrompts  []map[string]string            `json:"example_prompts"`
	PromptCallID    *string                        `json:"prompt_call_id" doc:"Always null: the planner calls no model and uses no credits."`
}

// GovernanceConversationResponse is a past conversation.
type GovernanceConversationResponse struct {
	ID              string          `json:"id"`
	UserInput       string          `json:"user_input"`
	AIResponse      *string         `json:"ai_response"`
	ProposedActions json.RawMessage `json:"proposed_actions"`
	Accepted        *bool           `json:"accepted"`
	CreatedAt       string          `json:"created_at"`
}

// AppliedActionResponse is the result of one applied action.
type AppliedActionResponse struct {
	ActionType  string  `json:"action_type"`
	Description string  `json:"description"`
	Success     bool    `json:"success"`
	Error       *string `json:"error"`
	PolicyID    *string `json:"policy_id"`
}

// GovernanceAiAcceptResponse reports an accepted plan.
type GovernanceAiAcceptResponse struct {
	ConversationID string                  `json:"conversation_id"`
	ActionsApplied []AppliedActionResponse `json:"actions_applied"`
	Success        bool                    `json:"success"`
	Error          *string                 `json:"error"`
}

// GovernancePolicyResponse is a policy (extension).
type GovernancePolicyResponse struct {
	ID               string          `json:"id" format:"uuid"`
	AccountID        string          `json:"account_id" format:"uuid"`
	AgentID          *string         `json:"agent_id" doc:"The agent the policy governs; null for every agent of the account."`
	Name             string          `json:"name"`
	Description      *string         `json:"description"`
	PolicyType       *string         `json:"policy_type"`
	Enabled          bool            `json:"enabled"`
	Config           json.RawMessage `json:"config" doc:"action (flag or block), stages (input, output) and rules; see docs/governance.md."`
	KnowledgeBaseIDs []string        `json:"knowledge_base_ids"`
	CreatedAt        string          `json:"created_at"`
	UpdatedAt        string          `json:"updated_at"`
}

// GovernancePolicyRequest creates or changes a policy (extension).
type GovernancePolicyRequest struct {
	AgentID     *string        `json:"agent_id,omitempty" required:"false" nullable:"true" format:"uuid" doc:"Govern one agent; omit for every agent (create only)."`
	Name        *string        `json:"name,omitempty" required:"false" minLength:"1" maxLength:"200"`
	Description *string        `json:"description,omitempty" required:"false" nullable:"true" maxLength:"2000"`
	PolicyType  *string        `json:"policy_type,omitempty" required:"false" nullable:"true" maxLength:"100"`
	Enabled     *bool          `json:"enabled,omitempty" required:"false"`
	Config      map[string]any `json:"config,omitempty" required:"false" nullable:"true"`
}

// GovernanceCheckRequest checks text against the policies (extension).
type GovernanceCheckRequest struct {
	AgentID *string `json:"agent_id,omitempty" required:"false" nullable:"true" format:"uuid" doc:"Check against this agent's policies too; omit for account-wide ones only."`
	Stage   string  `json:"stage" enum:"input,output"`
	Text    string  `json:"text" maxLength:"1048576"`
}

// GovernanceCheckResponse is a verdict.
type GovernanceCheckResponse struct {
	Action     *string `json:"action" enum:"flag,block" doc:"null when no policy matched."`
	Rule       *string `json:"rule"`
	Reason     *string `json:"reason"`
	PolicyID   *string `json:"policy_id"`
	PolicyName *string `json:"policy_name"`
}

// Descriptions of the extension operations.
const (
	governancePoliciesDoc = "Governance policies of the account: account-wide (no agent_id) or for one agent. Each checks run input and step " +
		"output with rules (pii, secrets, blocked_terms, regex, llm) and flags or blocks what matches; see docs/governance.md. " +
		"Reading needs membership; writing needs the owner or admin role."
	governanceCheckDoc = "Checks text against the policies that govern an agent (or the account-wide ones) at a stage, as runs are checked, " +
		"and answers the verdict; nothing is recorded. A plain-language (llm) rule costs a metered model call."
)

type (
	assistantInput struct {
		Body GovernanceAiAssistantRequest
	}
	assistantOutput    struct{ Body GovernanceAiAssistantResponse }
	conversationsInput struct {
		Limit int `query:"limit" default:"20" minimum:"1" maximum:"100" doc:"Number of conversations."`
	}
	conversationInput struct {
		ConversationID string `path:"conversation_id" format:"uuid"`
	}
	acceptOutput  struct{ Body GovernanceAiAcceptResponse }
	policyIDInput struct {
		PolicyID string `path:"policy_id" format:"uuid"`
	}
	listPoliciesInput struct {
		AgentID string `query:"agent_id" required:"false" format:"uuid" doc:"Only this agent's policies."`
		Page    int    `query:"page" default:"1" minimum:"1" maximum:"1000000"`
		Limit   int    `query:"limit" default:"20" minimum:"1" maximum:"100"`
	}
	createPolicyInput struct {
		Body GovernancePolicyRequest
	}
	updatePolicyInput struct {
		PolicyID string `path:"policy_id" format:"uuid"`
		Body     GovernancePolicyRequest
	}
	policyOutput struct{ Body GovernancePolicyResponse }
	checkInput   struct {
		Body GovernanceCheckRequest
	}
	checkOutput struct{ Body GovernanceCheckResponse }
)

func (s *Server) governanceAssistant(ctx context.Context, in *assistantInput) (*assistantOutput, error) {
	p := principal(ctx)
	plan, err := s.deps.Governance.Propose(ctx, p.AccountID, p.UserID, in.Body.UserInput)
	if err != nil {
		return nil, err
	}
	out := GovernanceAiAssistantResponse{ConversationID: plan.Conversation.ID, Note: plan.Note, Success: len(plan.Actions) > 0,
		ProposedActions: []ProposedPolicyActionResponse{}, ExamplePrompts: governance.ExamplePrompts}
	for _, a := range plan.Actions {
		out.ProposedActions = append(out.ProposedActions, ProposedPolicyActionResponse{ActionType: a.Type, Description: a.Description, Params: a.Params})
	}
	return &assistantOutput{Body: out}, nil
}

func (s *Server) listGovernanceConversations(ctx context.Context, in *conversationsInput) (*evalgovListOutput, error) {
	cs, err := s.deps.Governance.Conversations(ctx, principal(ctx).AccountID, in.Limit)
	if err != nil {
		return nil, err
	}
	items := make([]GovernanceConversationResponse, len(cs))
	for i, c := range cs {
		items[i] = GovernanceConversationResponse{ID: c.ID, UserInput: c.UserInput, AIResponse: c.AIResponse,
			ProposedActions: c.ProposedActions, Accepted: c.Accepted, CreatedAt: evalgovTime(c.CreatedAt)}
	}
	return &evalgovListOutput{Body: List(ctx, items, PageOf(1, in.Limit, len(items)), evalgovBareArray[GovernanceConversationResponse])}, nil
}

func (s *Server) acceptGovernancePlan(ctx context.Context, in *conversationInput) (*acceptOutput, error) {
	applied, err := s.deps.Governance.Accept(ctx, principal(ctx).AccountID, in.ConversationID)
	if err != nil && applied == nil {
		return nil, fault.Name(err, "Conversation")
	}
	out := GovernanceAiAcceptResponse{ConversationID: in.ConversationID, Success: true, ActionsApplied: []AppliedActionResponse{}}
	for _, a := range applied {
		out.ActionsApplied = append(out.ActionsApplied, AppliedActionResponse{ActionType: a.Type, Description: a.Description,
			Success: a.Success, Error: a.Error, PolicyID: a.PolicyID})
		if !a.Success {
			out.Success = false
		}
	}
	if !out.Success {
		msg := "some actions failed; see actions_applied"
		out.Error = &msg
	}
	return &acceptOutput{Body: out}, nil
}

func (s *Server) declineGovernancePlan(ctx context.Context, in *conversationInput) (*evalgovNoContent, error) {
	err := s.deps.Governance.Decline(ctx, principal(ctx).AccountID, in.ConversationID)
	if err != nil {
		return nil, fault.Name(err, "Conversation")
	}
	return &evalgovNoContent{}, nil
}

func policyResponse(p governance.GovernancePolicy) GovernancePolicyResponse {
	out := GovernancePolicyResponse{ID: p.ID, AccountID: p.AccountID, Name: p.Name, Description: p.Description, PolicyType: p.PolicyType,
		Enabled: p.Enabled, Config: p.Config, KnowledgeBaseIDs: p.KnowledgeBaseIDs, CreatedAt: evalgovTime(p.CreatedAt), UpdatedAt: evalgovTime(p.UpdatedAt)}
	if p.AgentID != "" {
		out.AgentID = &p.AgentID
	}
	if len(out.Config) == 0 {
		out.Config = json.RawMessage("null")
	}
	if out.KnowledgeBaseIDs == nil {
		out.KnowledgeBaseIDs = []string{}
	}
	return out
}

func (in GovernancePolicyRequest) input() governance.PolicyInput {
	return governance.PolicyInput{AgentID: in.AgentID, Name: in.Name, Description: in.Description, PolicyType: in.PolicyType,
		Enabled: in.Enabled, Config: evalgovObject(in.Config)}
}

func (s *Server) listGovernancePolicies(ctx context.Context, in *listPoliciesInput) (*evalgovListOutput, error) {
	ps, total, err := s.deps.Governance.Policies(ctx, principal(ctx).AccountID, in.AgentID, in.Page, in.Limit)
	if err != nil {
		return nil, err
	}
	items := make([]GovernancePolicyResponse, len(ps))
	for i, p := range ps {
		items[i] = policyResponse(p)
	}
	// A new list: the canonical envelope at every version.
	envelope := func(items []GovernancePolicyResponse, p Pagination) any {
		return Envelope[GovernancePolicyResponse]{Data: items, Pagination: p}
	}
	return &evalgovListOutput{Body: List(ctx, items, PageOf(in.Page, in.Limit, total), envelope)}, nil
}

func (s *Server) createGovernancePolicy(ctx context.Context, in *createPolicyInput) (*policyOutput, error) {
	if in.Body.Name == nil {
		return nil, Invalid([]any{"body", "name"}, "name is required", "missing")
	}
	p, err := s.deps.Governance.CreatePolicy(ctx, principal(ctx).AccountID, in.Body.input())
	if err != nil && in.Body.AgentID != nil {
		err = fault.Referenced(err, "agent_id", "no agent "+*in.Body.AgentID+" in this account")
	}
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &policyOutput{Body: policyResponse(p)}, nil
}

func (s *Server) getGovernancePolicy(ctx context.Context, in *policyIDInput) (*policyOutput, error) {
	p, err := s.deps.Governance.Policy(ctx, principal(ctx).AccountID, in.PolicyID)
	if err != nil {
		return nil, fault.Name(err, "Policy")
	}
	return &policyOutput{Body: policyResponse(p)}, nil
}

func (s *Server) updateGovernancePolicy(ctx context.Context, in *updatePolicyInput) (*policyOutput, error) {
	if in.Body.AgentID != nil {
		return nil, Invalid([]any{"body", "agent_id"}, "a policy's agent cannot change; create a new policy", "value_error")
	}
	p, err := s.deps.Governance.UpdatePolicy(ctx, principal(ctx).AccountID, in.PolicyID, in.Body.input())
	if err != nil {
		return nil, fault.Name(err, "Policy")
	}
	return &policyOutput{Body: policyResponse(p)}, nil
}

func (s *Server) deleteGovernancePolicy(ctx context.Context, in *policyIDInput) (*evalgovNoContent, error) {
	if err := s.deps.Governance.DeletePolicy(ctx, principal(ctx).AccountID, in.PolicyID); err != nil {
		return nil, fault.Name(err, "Policy")
	}
	return &evalgovNoContent{}, nil
}

func (s *Server) checkGovernance(ctx context.Context, in *checkInput) (*checkOutput, error) {
	agentID := ""
	if in.Body.AgentID != nil && *in.Body.AgentID != "" {
		agentID = *in.Body.AgentID
		if _, err := s.agents().Get(ctx, principal(ctx).AccountID, agentID); err != nil {
			return nil, fault.Referenced(err, "agent_id", "no agent "+agentID+" in this account")
		}
	}
	v, err := s.deps.Governance.Check(ctx, principal(ctx).AccountID, agentID, in.Body.Stage, in.Body.Text)
	if err != nil {
		return nil, err
	}
	var out GovernanceCheckResponse
	if v.Action != "" {
		out = GovernanceCheckResponse{Action: &v.Action, Rule: &v.Rule, Reason: &v.Reason, PolicyID: &v.PolicyID, PolicyName: &v.PolicyName}
	}
	return &checkOutput{Body: out}, nil
}
