package api

import (
	"context"

	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/solutions"
)

// AiAssistantFeedbackRequest is feedback on an assistant's answer.
type AiAssistantFeedbackRequest struct {
	Feature             string         `json:"feature" minLength:"1" maxLength:"100" doc:"Feature name (e.g. 'source', 'solution')."`
	Rating              string         `json:"rating" enum:"thumbs_up,thumbs_down" doc:"Rating: 'thumbs_up' or 'thumbs_down'."`
	Comment             *string        `json:"comment,omitempty" nullable:"true" maxLength:"4000" doc:"Optional comment."`
	ConversationID      *string        `json:"conversation_id,omitempty" nullable:"true" maxLength:"100" doc:"Conversation ID for the interaction."`
	AgentConversationID *string        `json:"agent_conversation_id,omitempty" nullable:"true" maxLength:"100" doc:"Agent conversation ID, if applicable."`
	PromptCallID        *string        `json:"prompt_call_id,omitempty" nullable:"true" maxLength:"100" doc:"Prompt call ID for credit tracking."`
	Context             map[string]any `json:"context,omitempty" nullable:"true" doc:"Additional context."`
}

// AiAssistantFeedbackResponse acknowledges feedback.
type AiAssistantFeedbackResponse struct {
	FeedbackID string  `json:"feedback_id"`
	Flagged    bool    `json:"flagged"`
	FlagReason *string `json:"flag_reason" nullable:"true"`
}

type feedbackInput struct{ Body AiAssistantFeedbackRequest }
type feedbackOutput struct{ Body AiAssistantFeedbackResponse }

func (s *Server) assistantFeedback(ctx context.Context, in *feedbackInput) (*feedbackOutput, error) {
	p := principal(ctx)
	b := in.Body
	f, err := s.deps.Solutions.Feedback(ctx, solutions.FeedbackInput{AccountID: p.AccountID, UserID: p.UserID, Feature: b.Feature,
		Rating: b.Rating, Comment: b.Comment, ConversationID: b.ConversationID, AgentConversationID: b.AgentConversationID,
		PromptCallID: b.PromptCallID, Context: b.Context})
	if err != nil {
		return nil, fault.Name(err, "Conversation")
	}
	return &feedbackOutput{Body: AiAssistantFeedbackResponse{FeedbackID: f.ID, Flagged: f.Flagged, FlagReason: f.FlagReason}}, nil
}
