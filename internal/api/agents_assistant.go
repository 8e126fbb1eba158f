package api

import (
	"context"
	"encoding/json"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/paging"
	"github.com/agentry/agentry/internal/solutions"
)

// The agent assistant: generate-steps, step-config, the history of its
// turns, and marking a turn accepted or declined.

// GenerateAgentStepsRequest asks for a workflow.
type GenerateAgentStepsRequest struct {
	UserInput        string  `json:"user_input" minLength:"1" maxLength:"8000" doc:"Natural language description of the desired agent workflow."`
	AgentDescription *string `json:"agent_description,omitempty" nullable:"true" maxLength:"2000" doc:"Agent description for additional AI context."`
	AgentSteps       []any   `json:"agent_steps,omitempty" nullable:"true" maxItems:"200" doc:"Current agent step hierarchy for context when modifying."`
	Mode             string  `json:"mode,omitempty" default:"generate_full" enum:"generate_full,modify_workflow" doc:"'generate_full' to create from scratch, 'modify_workflow' to refine."`
	TriggerType      *string `json:"trigger_type,omitempty" nullable:"true" maxLength:"64" doc:"Agent trigger type for context (e.g. 'dynamic_input', 'new_content')."`
}

// GenerateAgentStepsResponse is a workflow.
type GenerateAgentStepsResponse struct {
	ConversationID   string              `json:"conversation_id"`
	Steps            []map[string]any    `json:"steps"`
	Note             string              `json:"note"`
	Success          bool                `json:"success"`
	IntentAssessment *string             `json:"intent_assessment" nullable:"true"`
	AgentConfig      map[string]any      `json:"agent_config" nullable:"true"`
	ExamplePrompts   []map[string]string `json:"example_prompts"`
}

type generateStepsInput struct {
	AgentID string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	Body    GenerateAgentStepsRequest
}

type generateStepsOutput struct{ Body GenerateAgentStepsResponse }

var agentAssistantExamples = []map[string]string{
	{"title": "Answer from a knowledge base", "prompt": "Answer questions from our product manuals and cite the titles"},
	{"title": "Weekly report by e-mail", "prompt": "Every Monday, summarise the latest updates and e-mail them to me"},
	{"title": "Extract fields", "prompt": "Extract people, organisations and dates from the input as JSON"},
}

func (s *Server) generateAgentSteps(ctx context.Context, in *generateStepsInput) (*generateStepsOutput, error) {
	p := principal(ctx)
	b := in.Body
	res, err := s.deps.Solutions.GenerateSteps(ctx, solutions.StepsRequest{AccountID: p.AccountID, UserID: p.UserID, AgentID: in.AgentID,
		Input: b.UserInput, AgentDescription: b.AgentDescription, CurrentSteps: b.AgentSteps, Mode: b.Mode, TriggerType: b.TriggerType})
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	ia := res.IntentAssessment
	return &generateStepsOutput{Body: GenerateAgentStepsResponse{ConversationID: res.ConversationID, Steps: res.Steps, Note: res.Note,
		Success: res.Success, IntentAssessment: &ia, AgentConfig: res.AgentConfig, ExamplePrompts: agentAssistantExamples}}, nil
}

// GenerateStepConfigRequest asks for one step's configuration.
type GenerateStepConfigRequest struct {
	StepType      string         `json:"step_type" minLength:"1" maxLength:"64" doc:"The step type to generate config for."`
	UserInput     string         `json:"user_input" minLength:"1" maxLength:"8000" doc:"Natural language description of what the step should do."`
	CurrentConfig map[string]any `json:"current_config,omitempty" nullable:"true" doc:"Current step configuration to refine, if any."`
	StepID        *string        `json:"step_id,omitempty" nullable:"true" maxLength:"200" doc:"ID of the specific step to refine."`
	AgentSteps    []any          `json:"agent_steps,omitempty" nullable:"true" maxItems:"200" doc:"Current agent step hierarchy for context."`
}

// GenerateStepConfigResponse is a proposed configuration.
type GenerateStepConfigResponse struct {
	ConversationID  string              `json:"conversation_id"`
	StepType        string              `json:"step_type"`
	ResultingConfig map[string]any      `json:"resulting_config" nullable:"true"`
	Note            string              `json:"note"`
	Success         bool                `json:"success"`
	ExamplePrompts  []map[string]string `json:"example_prompts"`
}

type stepConfigInput struct {
	AgentID string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	Body    GenerateStepConfigRequest
}

type stepConfigOutput struct{ Body GenerateStepConfigResponse }

func (s *Server) generateStepConfig(ctx context.Context, in *stepConfigInput) (*stepConfigOutput, error) {
	p := principal(ctx)
	b := in.Body
	if len(b.CurrentConfig) > 0 {
		if raw, _ := json.Marshal(b.CurrentConfig); len(raw) > 64<<10 {
			return nil, Invalid([]any{"body", "current_config"}, "current_config is larger than 64 KiB", "value_error")
		}
	}
	res, err := s.deps.Solutions.StepConfig(ctx, solutions.StepConfigRequest{AccountID: p.AccountID, UserID: p.UserID, AgentID: in.AgentID,
		StepType: b.StepType, Input: b.UserInput, CurrentConfig: b.CurrentConfig, StepID: b.StepID})
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	return &stepConfigOutput{Body: GenerateStepConfigResponse{ConversationID: res.ConversationID, StepType: res.StepType,
		ResultingConfig: res.Config, Note: res.Note, Success: res.Success, ExamplePrompts: []map[string]string{
			{"title": "Describe the step", "prompt": "Summarise the input in three bullet points"}}}}, nil
}

// AiConversationTurn is one turn of the agent assistant.
type AiConversationTurn struct {
	ConversationID  string         `json:"conversation_id"`
	UserInput       string         `json:"user_input"`
	AINote          *string        `json:"ai_note" nullable:"true"`
	ResultingConfig map[string]any `json:"resulting_config" nullable:"true"`
	Accepted        *bool          `json:"accepted" nullable:"true"`
	StepType        *string        `json:"step_type" nullable:"true"`
	StepID          *string        `json:"step_id" nullable:"true"`
}

// AiConversationHistoryResponse is the history.
type AiConversationHistoryResponse struct {
	Turns []AiConversationTurn `json:"turns"`
	Total int                  `json:"total"`
}

type agentHistoryInput struct {
	AgentID  string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	StepType string `query:"step_type" required:"true" maxLength:"64" doc:"Step type to look up."`
	StepID   string `query:"step_id" maxLength:"200" doc:"Step ID to filter by."`
	Limit    int    `query:"limit" default:"10" minimum:"1" maximum:"50" doc:"Max turns to return."`
	Offset   int    `query:"offset" default:"0" minimum:"0" maximum:"100000" doc:"Number of recent turns to skip."`
}

type agentHistoryOutput struct{ Body any }

func (s *Server) agentAssistantHistory(ctx context.Context, in *agentHistoryInput) (*agentHistoryOutput, error) {
	var stepID *string
	if in.StepID != "" {
		stepID = &in.StepID
	}
	turns, total, err := s.deps.Solutions.AgentHistory(ctx, principal(ctx).AccountID, in.AgentID, in.StepType, stepID, in.Limit, in.Offset)
	if err != nil {
		return nil, fault.Name(err, "Agent")
	}
	out := AiConversationHistoryResponse{Turns: make([]AiConversationTurn, 0, len(turns)), Total: total}
	for _, t := range turns {
		st := t.StepType
		turn := AiConversationTurn{ConversationID: t.ID, UserInput: t.UserInput, AINote: t.AINote, Accepted: t.Accepted, StepType: &st, StepID: t.StepID}
		if t.ResultingConfig != nil {
			_ = json.Unmarshal(t.ResultingConfig, &turn.ResultingConfig)
		}
		out.Turns = append(out.Turns, turn)
	}
	return &agentHistoryOutput{Body: List(ctx, out.Turns, PageOf(paging.PageOf(in.Offset, in.Limit), in.Limit, total),
		func([]AiConversationTurn, Pagination) any { return out })}, nil
}

// MarkAiSuggestionRequest records a decision.
type MarkAiSuggestionRequest struct {
	Accepted bool `json:"accepted" doc:"True to accept the suggestion, false to decline it."`
}

type markSuggestionInput struct {
	AgentID        string `path:"agent_id" format:"uuid" doc:"The agent's id."`
	ConversationID string `path:"conversation_id" format:"uuid" doc:"The turn's id."`
	Body           MarkAiSuggestionRequest
}

// OkResponse acknowledges.
type OkResponse struct {
	OK bool `json:"ok"`
}

type okOutput struct{ Body OkResponse }

func (s *Server) markAgentSuggestion(ctx context.Context, in *markSuggestionInput) (*okOutput, error) {
	if err := s.deps.Solutions.MarkSuggestion(ctx, principal(ctx).AccountID, in.AgentID, in.ConversationID, in.Body.Accepted); err != nil {
		return nil, fault.Name(err, "Conversation")
	}
	return &okOutput{Body: OkResponse{OK: true}}, nil
}
