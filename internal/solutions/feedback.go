package solutions

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
)

// Feedback is a thumbs up or down on an assistant's answer. Negative
// feedback with a comment is classified: a comment that reports harm, a
// leak of private data, destroyed or wrong resources, a security problem
// or a billing problem is flagged, stored as flagged, and logged at warning
// level, so operators see it (agentry admin assistant-feedback lists them).

// FeedbackInput is POST /ai-assistant/feedback.
type FeedbackInput struct {
	AccountID, UserID   string
	Feature, Rating     string
	Comment             *string
	ConversationID      *string
	AgentConversationID *string
	PromptCallID        *string
	Context             map[string]any
}

// Ratings.
const (
	ThumbsUp   = "thumbs_up"
	ThumbsDown = "thumbs_down"
)

// flagRules are the concerns a negative comment is checked for, in order.
var flagRules = []struct {
	reason string
	words  []string
}{
	{"safety: the comment reports harmful or abusive output", []string{"harmful", "dangerous", "offensive", "abusive", "racist", "sexist", "hate", "violent", "illegal", "unsafe", "toxic", "threat"}},
	{"privacy: the comment reports exposed private data", []string{"private", "personal data", "pii", "leak", "leaked", "leaking", "someone else", "another customer", "other customer", "confidential", "password", "passwords", "secret", "secrets"}},
	{"data loss: the comment reports destroyed or wrong resources", []string{"deleted", "destroyed", "wiped", "lost", "removed my", "overwrote", "overwritten", "wrong agent", "wrong source", "broke", "broken"}},
	{"security: the comment reports a security problem", []string{"security", "vulnerability", "exploit", "injection", "hacked", "phishing", "malware"}},
	{"billing: the comment reports an unexpected charge", []string{"charged", "billing", "credits", "overcharged", "refund", "cost me"}},
}

// classify returns why negative feedback with this comment is flagged, or "".
func classify(comment string) string {
	r := read(comment)
	for _, rule := range flagRules {
		for _, w := range rule.words {
			if strings.Contains(w, " ") {
				if strings.Contains(r.padded, " "+w+" ") {
					return rule.reason
				}
			} else if r.has(w) {
				return rule.reason
			}
		}
	}
	return ""
}

// MaxFeedbackComment bounds a comment.
const MaxFeedbackComment = 4000

// Feedback stores feedback and reports whether it was flagged.
func (s *Service) Feedback(ctx context.Context, in FeedbackInput) (AssistantFeedback, error) {
	if in.Rating != ThumbsUp && in.Rating != ThumbsDown {
		return AssistantFeedback{}, invalid("rating must be thumbs_up or thumbs_down", "body", "rating")
	}
	if err := checkText("feature", strings.TrimSpace(in.Feature), 1, 100); err != nil {
		return AssistantFeedback{}, err
	}
	if in.Comment != nil {
		if err := checkText("comment", *in.Comment, 0, MaxFeedbackComment); err != nil {
			return AssistantFeedback{}, err
		}
	}
	for field, v := range map[string]*string{"conversation_id": in.ConversationID, "agent_conversation_id": in.AgentConversationID, "prompt_call_id": in.PromptCallID} {
		if v != nil && len(*v) > 100 {
			return AssistantFeedback{}, invalid(field+" must be at most 100 characters", "body", field)
		}
	}
	var ctxJSON json.RawMessage
	if in.Context != nil {
		b, err := json.Marshal(in.Context)
		if err != nil || len(b) > 16<<10 {
			return AssistantFeedback{}, invalid("context must be a JSON object of at most 16 KiB", "body", "context")
		}
		ctxJSON = b
	}
	f := AssistantFeedback{AccountID: in.AccountID, UserID: in.UserID, Feature: strings.TrimSpace(in.Feature), Rating: in.Rating,
		Comment: in.Comment, ConversationID: in.ConversationID, AgentConversationID: in.AgentConversationID, PromptCallID: in.PromptCallID,
		Context: ctxJSON}
	if in.Rating == ThumbsDown && in.Comment != nil && strings.TrimSpace(*in.Comment) != "" {
		if reason := classify(*in.Comment); reason != "" {
			f.Flagged, f.FlagReason = true, &reason
		}
	}
	f, err := s.repo.createFeedback(ctx, f)
	if err != nil {
		return f, err
	}
	if f.Flagged {
		slog.Warn("assistant feedback flagged for review", "feedback_id", f.ID, "account_id", f.AccountID, "feature", f.Feature, "reason", *f.FlagReason)
	}
	return f, nil
}

// FlaggedFeedback lists flagged feedback of every account, for operators.
func (s *Service) FlaggedFeedback(ctx context.Context, limit int) ([]AssistantFeedback, error) {
	return s.repo.flaggedFeedback(ctx, limit)
}
