package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// Governance: the assistant that plans policy changes, and policies and
// checks (Agentry extensions). Writes and the assistant need the owner or
// admin role.

// GovernancePlan is a proposed plan.
type GovernancePlan struct {
	ConversationID  string `json:"conversation_id"`
	Note            string `json:"note"`
	Success         bool   `json:"success"`
	ProposedActions []struct {
		ActionType  string         `json:"action_type"`
		Description string         `json:"description"`
		Params      map[string]any `json:"params"`
	} `json:"proposed_actions"`
	ExamplePrompts []map[string]string `json:"example_prompts"`
}

// GovernanceConversation is a past exchange with the assistant.
type GovernanceConversation struct {
	ID              string          `json:"id"`
	UserInput       string          `json:"user_input"`
	AIResponse      *string         `json:"ai_response"`
	ProposedActions json.RawMessage `json:"proposed_actions"`
	Accepted        *bool           `json:"accepted"`
	CreatedAt       string          `json:"created_at"`
}

// GovernanceAcceptResult reports an accepted plan, action by action.
type GovernanceAcceptResult struct {
	ConversationID string  `json:"conversation_id"`
	Success        bool    `json:"success"`
	Error          *string `json:"error"`
	ActionsApplied []struct {
		ActionType  string  `json:"action_type"`
		Description string  `json:"description"`
		Success     bool    `json:"success"`
		Error       *string `json:"error"`
		PolicyID    *string `json:"policy_id"`
	} `json:"actions_applied"`
}

// GovernancePolicy is a policy (extension).
type GovernancePolicy struct {
	ID               string          `json:"id"`
	AccountID        string          `json:"account_id"`
	AgentID          *string         `json:"agent_id"`
	Name             string          `json:"name"`
	Description      *string         `json:"description"`
	PolicyType       *string         `json:"policy_type"`
	Enabled          bool            `json:"enabled"`
	Config           json.RawMessage `json:"config"`
	KnowledgeBaseIDs []string        `json:"knowledge_base_ids"`
	CreatedAt        string          `json:"created_at"`
	UpdatedAt        string          `json:"updated_at"`
}

// GovernancePolicyInput creates a policy or changes the fields that are set.
type GovernancePolicyInput struct {
	AgentID     *string         `json:"agent_id,omitempty"`
	Name        *string         `json:"name,omitempty"`
	Description *string         `json:"description,omitempty"`
	PolicyType  *string         `json:"policy_type,omitempty"`
	Enabled     *bool           `json:"enabled,omitempty"`
	Config      json.RawMessage `json:"config,omitempty"`
}

// GovernanceVerdict is a check's outcome; Action is nil when nothing matched.
type GovernanceVerdict struct {
	Action     *string `json:"action"`
	Rule       *string `json:"rule"`
	Reason     *string `json:"reason"`
	PolicyID   *string `json:"policy_id"`
	PolicyName *string `json:"policy_name"`
}

// GovernanceAssistant asks for a plan of policy changes.
func (c *Client) GovernanceAssistant(ctx context.Context, request string, opts ...CallOption) (*GovernancePlan, error) {
	var out GovernancePlan
	return &out, c.Do(ctx, http.MethodPost, "/governance/ai-assistant", map[string]string{"user_input": request}, &out, opts...)
}

// ListGovernanceConversations returns the latest conversations (limit 1–100).
func (c *Client) ListGovernanceConversations(ctx context.Context, limit int, opts ...CallOption) ([]GovernanceConversation, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(min(limit, 100)))
	}
	p, err := ListPage[GovernanceConversation](ctx, c, "/governance/ai-assistant/conversations", ListQuery{Params: q, Paging: OnePage}, opts...)
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// AcceptGovernancePlan applies a plan's actions in order.
func (c *Client) AcceptGovernancePlan(ctx context.Context, conversationID string, opts ...CallOption) (*GovernanceAcceptResult, error) {
	var out GovernanceAcceptResult
	return &out, c.Do(ctx, http.MethodPost, pathf("/governance/ai-assistant/%s/accept", conversationID), nil, &out, opts...)
}

// DeclineGovernancePlan declines a plan; nothing changes.
func (c *Client) DeclineGovernancePlan(ctx context.Context, conversationID string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodPost, pathf("/governance/ai-assistant/%s/decline", conversationID), nil, nil, opts...)
}

// ListGovernancePolicies returns a page of policies (one agent's when agentID is set).
func (c *Client) ListGovernancePolicies(ctx context.Context, agentID string, page, limit int, opts ...CallOption) (*Page[GovernancePolicy], error) {
	q := ListQuery{Params: url.Values{}, Paging: PageNumbers, Page: page, Limit: min(limit, 100)}
	if agentID != "" {
		q.Params.Set("agent_id", agentID)
	}
	return ListPage[GovernancePolicy](ctx, c, "/governance/policies", q, opts...)
}

// CreateGovernancePolicy creates a policy.
func (c *Client) CreateGovernancePolicy(ctx context.Context, in GovernancePolicyInput, opts ...CallOption) (*GovernancePolicy, error) {
	var out GovernancePolicy
	return &out, c.Do(ctx, http.MethodPost, "/governance/policies", in, &out, opts...)
}

// GetGovernancePolicy returns a policy.
func (c *Client) GetGovernancePolicy(ctx context.Context, policyID string, opts ...CallOption) (*GovernancePolicy, error) {
	var out GovernancePolicy
	return &out, c.Do(ctx, http.MethodGet, pathf("/governance/policies/%s", policyID), nil, &out, opts...)
}

// UpdateGovernancePolicy changes the fields of in that are set.
func (c *Client) UpdateGovernancePolicy(ctx context.Context, policyID string, in GovernancePolicyInput, opts ...CallOption) (*GovernancePolicy, error) {
	var out GovernancePolicy
	return &out, c.Do(ctx, http.MethodPatch, pathf("/governance/policies/%s", policyID), in, &out, opts...)
}

// DeleteGovernancePolicy deletes a policy.
func (c *Client) DeleteGovernancePolicy(ctx context.Context, policyID string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/governance/policies/%s", policyID), nil, nil, opts...)
}

// CheckGovernance checks text at a stage ("input" or "output") against the
// policies of an agent ("" for account-wide ones only).
func (c *Client) CheckGovernance(ctx context.Context, agentID, stage, text string, opts ...CallOption) (*GovernanceVerdict, error) {
	body := map[string]any{"stage": stage, "text": text}
	if agentID != "" {
		body["agent_id"] = agentID
	}
	var out GovernanceVerdict
	return &out, c.Do(ctx, http.MethodPost, "/governance/check", body, &out, opts...)
}
