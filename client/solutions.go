package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

// Solutions group an account's agents, knowledge bases and sources; their
// planning assistants turn a goal in plain language into a plan of actions
// to accept or decline. The agent assistant writes an agent's workflow or
// one step's configuration. Account and documentation search are here too.

// SolutionAgent is an agent of a solution.
type SolutionAgent struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	KnowledgeBaseIDs []string `json:"knowledge_base_ids"`
}

// SolutionKnowledgeBase is a knowledge base of a solution.
type SolutionKnowledgeBase struct {
	ID                  string   `json:"id"`
	Name                string   `json:"name"`
	SourceConnectionIDs []string `json:"source_connection_ids"`
}

// SolutionSource is a source of a solution.
type SolutionSource struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Solution is a solution with its linked resources.
type Solution struct {
	ID                string                  `json:"id"`
	Name              string                  `json:"name"`
	Description       string                  `json:"description"`
	Agents            []SolutionAgent         `json:"agents"`
	KnowledgeBases    []SolutionKnowledgeBase `json:"knowledge_bases"`
	SourceConnections []SolutionSource        `json:"source_connections"`
	CreatedAt         string                  `json:"created_at"`
	UpdatedAt         string                  `json:"updated_at"`
}

// SolutionSummary is a solution in a list.
type SolutionSummary struct {
	ID                    string `json:"id"`
	Name                  string `json:"name"`
	Description           string `json:"description"`
	AgentCount            int    `json:"agent_count"`
	KnowledgeBaseCount    int    `json:"knowledge_base_count"`
	SourceConnectionCount int    `json:"source_connection_count"`
	MemoryBankCount       int    `json:"memory_bank_count"`
	CreatedAt             string `json:"created_at"`
	UpdatedAt             string `json:"updated_at"`
}

// SolutionListOptions page, sort and filter GET /solutions.
type SolutionListOptions struct {
	Page, Limit int    // limit 1–100
	Sort        string // created_at (default), updated_at, name
	Order       string // desc (default) or asc
	Search      string // part of the name, any case
}

func (o SolutionListOptions) query() ListQuery {
	p := url.Values{}
	if o.Sort != "" {
		p.Set("sort", o.Sort)
	}
	if o.Order != "" {
		p.Set("order", o.Order)
	}
	if o.Search != "" {
		p.Set("search", o.Search)
	}
	return ListQuery{Params: p, Paging: PageNumbers, Page: o.Page, Limit: min(o.Limit, 100)}
}

// ListSolutions returns one page of the account's solutions.
func (c *Client) ListSolutions(ctx context.Context, o SolutionListOptions, opts ...CallOption) (*Page[SolutionSummary], error) {
	return ListPage[SolutionSummary](ctx, c, "/solutions", o.query(), opts...)
}

// Solutions iterates over all of the account's solutions.
func (c *Client) Solutions(ctx context.Context, o SolutionListOptions, opts ...CallOption) iter.Seq2[SolutionSummary, error] {
	if o.Limit == 0 {
		o.Limit = 100
	}
	return ListAll[SolutionSummary](ctx, c, "/solutions", o.query(), opts...)
}

// CreateSolution creates a solution.
func (c *Client) CreateSolution(ctx context.Context, name, description string, opts ...CallOption) (*Solution, error) {
	var out Solution
	return &out, c.Do(ctx, http.MethodPost, "/solutions", map[string]string{"name": name, "description": description}, &out, opts...)
}

// GetSolution returns a solution with its links.
func (c *Client) GetSolution(ctx context.Context, id string, opts ...CallOption) (*Solution, error) {
	var out Solution
	return &out, c.Do(ctx, http.MethodGet, pathf("/solutions/%s", id), nil, &out, opts...)
}

// UpdateSolutionRequest changes the fields set.
type UpdateSolutionRequest struct {
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
}

// UpdateSolution changes a solution's name or description.
func (c *Client) UpdateSolution(ctx context.Context, id string, req UpdateSolutionRequest, opts ...CallOption) (*Solution, error) {
	var out Solution
	return &out, c.Do(ctx, http.MethodPatch, pathf("/solutions/%s", id), req, &out, opts...)
}

// DeleteSolution deletes a solution and its links; the resources remain.
func (c *Client) DeleteSolution(ctx context.Context, id string, opts ...CallOption) error {
	return c.Do(ctx, http.MethodDelete, pathf("/solutions/%s", id), nil, nil, opts...)
}

// Kinds of resources a solution links.
const (
	SolutionAgents            = "agents"
	SolutionKnowledgeBases    = "knowledge-bases"
	SolutionSourceConnections = "source-connections"
)

// LinkSolutionResources links resources of a kind (SolutionAgents,
// SolutionKnowledgeBases, SolutionSourceConnections); already linked ones
// are ignored.
func (c *Client) LinkSolutionResources(ctx context.Context, solutionID, kind string, ids []string, opts ...CallOption) (*Solution, error) {
	var out Solution
	return &out, c.Do(ctx, http.MethodPost, pathf("/solutions/%s/", solutionID)+kind, map[string]any{"ids": ids}, &out, opts...)
}

// UnlinkSolutionResources removes links; ids not linked are ignored.
func (c *Client) UnlinkSolutionResources(ctx context.Context, solutionID, kind string, ids []string, opts ...CallOption) (*Solution, error) {
	var out Solution
	return &out, c.Do(ctx, http.MethodDelete, pathf("/solutions/%s/", solutionID)+kind, map[string]any{"ids": ids}, &out, opts...)
}

// SolutionConversation is a turn of a solution's assistant history.
type SolutionConversation struct {
	ID           string         `json:"id"`
	UserInput    string         `json:"user_input"`
	AIResponse   *string        `json:"ai_response"`
	ActionsTaken map[string]any `json:"actions_taken"`
	Accepted     *bool          `json:"accepted"`
	CreatedAt    string         `json:"created_at"`
}

// SolutionConversations lists a solution's turns, oldest first.
func (c *Client) SolutionConversations(ctx context.Context, solutionID string, opts ...CallOption) ([]SolutionConversation, error) {
	// A bare array, or {data, pagination} from 2026-07-27.
	var raw json.RawMessage
	if err := c.Do(ctx, http.MethodGet, pathf("/solutions/%s/conversations", solutionID), nil, &raw, opts...); err != nil {
		return nil, err
	}
	p, err := decodePage[SolutionConversation](raw, "")
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// AddConversationTurnRequest records a turn by hand.
type AddConversationTurnRequest struct {
	UserInput    string         `json:"user_input"`
	AIResponse   *string        `json:"ai_response,omitempty"`
	ActionsTaken map[string]any `json:"actions_taken,omitempty"`
}

// AddSolutionConversation records a turn.
func (c *Client) AddSolutionConversation(ctx context.Context, solutionID string, req AddConversationTurnRequest, opts ...CallOption) (*SolutionConversation, error) {
	var out SolutionConversation
	return &out, c.Do(ctx, http.MethodPost, pathf("/solutions/%s/conversations", solutionID), req, &out, opts...)
}

// MarkSolutionConversation records whether a turn was accepted.
func (c *Client) MarkSolutionConversation(ctx context.Context, solutionID, conversationID string, accepted bool, opts ...CallOption) error {
	return c.Do(ctx, http.MethodPatch, pathf("/solutions/%s/conversations/%s", solutionID, conversationID), map[string]bool{"accepted": accepted}, nil, opts...)
}

// Assistant kinds of the planning assistants.
const (
	AssistantSolution      = "solution"
	AssistantKnowledgeBase = "knowledge-base"
	AssistantSource        = "source"
)

// PlanAction is one proposed action. Params holds `body`, the request
// body of the API operation the action stands for, and `id`, the resource
// an update or delete acts on; "$action_N" stands for the id of the
// resource action N creates.
type PlanAction struct {
	ActionType    string         `json:"action_type"`
	Description   string         `json:"description"`
	IsDestructive bool           `json:"is_destructive"`
	Params        map[string]any `json:"params"`
	Preview       map[string]any `json:"preview"`
}

// Plan is an assistant's proposal.
type Plan struct {
	ConversationID             string              `json:"conversation_id"`
	Note                       string              `json:"note"`
	Success                    bool                `json:"success"`
	ProposedActions            []PlanAction        `json:"proposed_actions"`
	RequiresDeleteConfirmation bool                `json:"requires_delete_confirmation"`
	ExamplePrompts             []map[string]string `json:"example_prompts"`
}

// PlanRequest asks an assistant for a plan.
type PlanRequest struct {
	UserInput    string  `json:"user_input"`
	HistorySince *string `json:"history_since,omitempty"`
}

// Plan asks a planning assistant (AssistantSolution, AssistantKnowledgeBase,
// AssistantSource) for a plan: inside a solution, or standalone when
// solutionID is "".
func (c *Client) Plan(ctx context.Context, solutionID, assistant string, req PlanRequest, opts ...CallOption) (*Plan, error) {
	p := "/ai-assistant/" + assistant
	if solutionID != "" {
		kind := assistant
		if kind == AssistantSolution {
			kind = "generate"
		}
		p = pathf("/solutions/%s/ai-assistant/", solutionID) + kind
	}
	var out Plan
	return &out, c.Do(ctx, http.MethodPost, p, req, &out, opts...)
}

// AcceptPlanRequest accepts a plan.
type AcceptPlanRequest struct {
	ConfirmDeletions    bool    `json:"confirm_deletions,omitempty"`
	SolutionName        *string `json:"solution_name,omitempty"`        // standalone: make a solution
	SolutionDescription *string `json:"solution_description,omitempty"` // standalone
}

// PlanResult reports an accepted plan, action by action.
type PlanResult struct {
	ConversationID  string  `json:"conversation_id"`
	SolutionID      *string `json:"solution_id"`
	Success         bool    `json:"success"`
	Error           *string `json:"error"`
	ExecutedActions []struct {
		ActionType         string  `json:"action_type"`
		Description        string  `json:"description"`
		Success            bool    `json:"success"`
		Error              *string `json:"error"`
		ResourceID         *string `json:"resource_id"`
		ResourceType       *string `json:"resource_type"`
		NeedsClarification bool    `json:"needs_clarification"`
	} `json:"executed_actions"`
}

// AcceptPlan executes a plan (solutionID "" for a standalone plan).
func (c *Client) AcceptPlan(ctx context.Context, solutionID, conversationID string, req AcceptPlanRequest, opts ...CallOption) (*PlanResult, error) {
	p := pathf("/ai-assistant/%s/accept", conversationID)
	if solutionID != "" {
		p = pathf("/solutions/%s/ai-assistant/%s/accept", solutionID, conversationID)
	}
	var out PlanResult
	return &out, c.Do(ctx, http.MethodPost, p, req, &out, opts...)
}

// DeclinePlan declines a plan; nothing changes.
func (c *Client) DeclinePlan(ctx context.Context, solutionID, conversationID string, opts ...CallOption) error {
	p := pathf("/ai-assistant/%s/decline", conversationID)
	if solutionID != "" {
		p = pathf("/solutions/%s/ai-assistant/%s/decline", solutionID, conversationID)
	}
	return c.Do(ctx, http.MethodPost, p, nil, nil, opts...)
}

// AssistantFeedback is thumbs up or down on an assistant's answer.
type AssistantFeedback struct {
	Feature             string         `json:"feature"`
	Rating              string         `json:"rating"` // thumbs_up or thumbs_down
	Comment             *string        `json:"comment,omitempty"`
	ConversationID      *string        `json:"conversation_id,omitempty"`
	AgentConversationID *string        `json:"agent_conversation_id,omitempty"`
	PromptCallID        *string        `json:"prompt_call_id,omitempty"`
	Context             map[string]any `json:"context,omitempty"`
}

// FeedbackResult acknowledges feedback.
type FeedbackResult struct {
	FeedbackID string  `json:"feedback_id"`
	Flagged    bool    `json:"flagged"`
	FlagReason *string `json:"flag_reason"`
}

// SendAssistantFeedback submits feedback.
func (c *Client) SendAssistantFeedback(ctx context.Context, f AssistantFeedback, opts ...CallOption) (*FeedbackResult, error) {
	var out FeedbackResult
	return &out, c.Do(ctx, http.MethodPost, "/ai-assistant/feedback", f, &out, opts...)
}

// GenerateStepsRequest asks the agent assistant for a workflow.
type GenerateStepsRequest struct {
	UserInput        string  `json:"user_input"`
	AgentDescription *string `json:"agent_description,omitempty"`
	AgentSteps       []any   `json:"agent_steps,omitempty"`
	Mode             string  `json:"mode,omitempty"` // generate_full (default) or modify_workflow
	TriggerType      *string `json:"trigger_type,omitempty"`
}

// GeneratedSteps is a proposed workflow.
type GeneratedSteps struct {
	ConversationID   string           `json:"conversation_id"`
	Steps            []map[string]any `json:"steps"`
	Note             string           `json:"note"`
	Success          bool             `json:"success"`
	IntentAssessment *string          `json:"intent_assessment"`
	AgentConfig      map[string]any   `json:"agent_config"`
}

// GenerateAgentSteps asks for a complete workflow for an agent.
func (c *Client) GenerateAgentSteps(ctx context.Context, agentID string, req GenerateStepsRequest, opts ...CallOption) (*GeneratedSteps, error) {
	var out GeneratedSteps
	return &out, c.Do(ctx, http.MethodPost, pathf("/agents/%s/ai-assistant/generate-steps", agentID), req, &out, opts...)
}

// StepConfigRequest asks for one step's configuration.
type StepConfigRequest struct {
	StepType      string         `json:"step_type"`
	UserInput     string         `json:"user_input"`
	CurrentConfig map[string]any `json:"current_config,omitempty"`
	StepID        *string        `json:"step_id,omitempty"`
	AgentSteps    []any          `json:"agent_steps,omitempty"`
}

// StepConfig is a proposed configuration.
type StepConfig struct {
	ConversationID  string         `json:"conversation_id"`
	StepType        string         `json:"step_type"`
	ResultingConfig map[string]any `json:"resulting_config"`
	Note            string         `json:"note"`
	Success         bool           `json:"success"`
}

// GenerateStepConfig asks for one step's configuration.
func (c *Client) GenerateStepConfig(ctx context.Context, agentID string, req StepConfigRequest, opts ...CallOption) (*StepConfig, error) {
	var out StepConfig
	return &out, c.Do(ctx, http.MethodPost, pathf("/agents/%s/ai-assistant/step-config", agentID), req, &out, opts...)
}

// AssistantTurn is one turn of the agent assistant.
type AssistantTurn struct {
	ConversationID  string          `json:"conversation_id"`
	UserInput       string          `json:"user_input"`
	AINote          *string         `json:"ai_note"`
	ResultingConfig json.RawMessage `json:"resulting_config"`
	Accepted        *bool           `json:"accepted"`
	StepType        *string         `json:"step_type"`
	StepID          *string         `json:"step_id"`
}

// AssistantHistory is a page of turns, oldest first.
type AssistantHistory struct {
	Turns []AssistantTurn `json:"turns"`
	Total int             `json:"total"`
}

// AgentAssistantHistory lists an agent's assistant turns for a step type
// ("agent_workflow" for generate-steps), optionally one step's.
func (c *Client) AgentAssistantHistory(ctx context.Context, agentID, stepType, stepID string, limit, offset int, opts ...CallOption) (*AssistantHistory, error) {
	q := url.Values{"step_type": {stepType}}
	if stepID != "" {
		q.Set("step_id", stepID)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	// {turns, total}, or {data, pagination} from 2026-07-27.
	var raw json.RawMessage
	if err := c.Do(ctx, http.MethodGet, pathf("/agents/%s/ai-assistant/conversations", agentID)+"?"+q.Encode(), nil, &raw, opts...); err != nil {
		return nil, err
	}
	p, err := decodePage[AssistantTurn](raw, "turns")
	if err != nil {
		return nil, err
	}
	return &AssistantHistory{Turns: p.Items, Total: p.Total}, nil
}

// MarkAgentSuggestion records accepted or declined; it applies nothing.
func (c *Client) MarkAgentSuggestion(ctx context.Context, agentID, conversationID string, accepted bool, opts ...CallOption) error {
	return c.Do(ctx, http.MethodPatch, pathf("/agents/%s/ai-assistant/%s", agentID, conversationID), map[string]bool{"accepted": accepted}, nil, opts...)
}

// SearchResult is one resource found by account search.
type SearchResult struct {
	EntityType  string  `json:"entity_type"`
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
}

// Search searches the account (entityType "" for every type, limit 0 for
// the server's default).
func (c *Client) Search(ctx context.Context, q, entityType string, limit int, opts ...CallOption) ([]SearchResult, error) {
	p := url.Values{"q": {q}}
	if entityType != "" {
		p.Set("entity_type", entityType)
	}
	if limit > 0 {
		p.Set("limit", strconv.Itoa(limit))
	}
	var out struct {
		Results []SearchResult `json:"results"`
	}
	return out.Results, c.Do(ctx, http.MethodGet, "/search?"+p.Encode(), nil, &out, opts...)
}

// DocsResult is one documentation page found.
type DocsResult struct {
	DocSlug   string  `json:"doc_slug"`
	Title     string  `json:"title"`
	Anchor    *string `json:"anchor"`
	Snippet   *string `json:"snippet"`
	Highlight *string `json:"highlight"`
	Score     float64 `json:"score"`
}

// SearchDocs searches the documentation (mode keyword or semantic).
func (c *Client) SearchDocs(ctx context.Context, q, mode string, limit int, opts ...CallOption) ([]DocsResult, error) {
	p := url.Values{"q": {q}}
	if mode != "" {
		p.Set("mode", mode)
	}
	if limit > 0 {
		p.Set("limit", strconv.Itoa(limit))
	}
	var out struct {
		Results []DocsResult `json:"results"`
	}
	return out.Results, c.Do(ctx, http.MethodGet, "/docs-search?"+p.Encode(), nil, &out, opts...)
}
