package solutions

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/llm"
)

// With a model configured, the planning assistants ask it for the plan as
// JSON constrained by planSchema, validate what comes back with the same
// rules as the built-in planner's plans, and, when it fails, send the
// validator's errors back for a corrected plan: at most maxRepairs times.

const maxRepairs = 2

// maxHistoryTurns bounds the earlier turns sent to the model.
const maxHistoryTurns = 10

var planSchema = json.RawMessage(`{
  "type": "object",
  "additionalProperties": false,
  "required": ["note", "actions"],
  "properties": {
    "note": {"type": "string"},
    "actions": {"type": "array", "maxItems": 20, "items": {
      "type": "object",
      "additionalProperties": false,
      "required": ["action_type", "description", "params"],
      "properties": {
        "action_type": {"type": "string", "enum": ["create_source", "update_source", "delete_source", "create_knowledge_base",
          "update_knowledge_base", "delete_knowledge_base", "create_agent", "update_agent", "delete_agent"]},
        "description": {"type": "string"},
        "params": {"type": "object", "properties": {"id": {"type": "string"}, "body": {"type": "object"}}}
      }}}
  }
}`)

const planSystem = `You plan changes to an account of an agent platform. Reply with one JSON object {"note", "actions"}.
Each action has action_type (create_/update_/delete_ + source, knowledge_base or agent), a description, and params:
"body" is the request body of the API operation (POST /sources {name, source_type: rss|website|custom_index, url_id, polling};
POST /knowledge_bases {name, description, source_ids}; POST /agents {name, description, trigger_type, agent_definition});
"id" is the resource an update or delete acts on. Write "$action_N" for the id of the resource created by action N (1-based).
Only propose the resource kinds this assistant may act on: %s.`

// modelPlan asks the model, repairing invalid plans.
func (s *Service) modelPlan(ctx context.Context, ex Executor, r Request) (string, []Action, []string, error) {
	msgs := []llm.Message{llm.System(fmt.Sprintf(planSystem, strings.Join(allowedResources[r.Kind], ", ")))}
	// The solution's earlier turns (since HistorySince) are the context.
	if r.SolutionID != "" {
		past, err := s.repo.conversations(ctx, r.AccountID, r.SolutionID, r.HistorySince, MaxConversations)
		if err != nil {
			return "", nil, nil, err
		}
		if len(past) > maxHistoryTurns {
			past = past[len(past)-maxHistoryTurns:]
		}
		for _, c := range past {
			msgs = append(msgs, llm.User(c.UserInput))
			if c.AIResponse != nil {
				msgs = append(msgs, llm.Assistant(*c.AIResponse))
			}
		}
	}
	msgs = append(msgs, llm.User(r.Input))
	var (
		note     string
		actions  []Action
		problems []string
	)
	for attempt := 0; attempt <= maxRepairs; attempt++ {
		resp, err := s.Model.Chat(ctx, llm.ChatRequest{Model: s.AssistantModel, Messages: msgs, MaxTokens: 4000,
			ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: "plan", Schema: planSchema, Strict: false},
			Meta:           llm.CallMeta{AccountID: r.AccountID, Purpose: "assistant"}})
		if err != nil {
			return "", nil, nil, err
		}
		text := resp.Message.Text()
		var out struct {
			Note    string   `json:"note"`
			Actions []Action `json:"actions"`
		}
		if err := json.Unmarshal([]byte(llm.StripCodeFence(text)), &out); err != nil {
			problems = []string{"the reply is not the JSON object asked for: " + err.Error()}
		} else {
			note, actions = out.Note, out.Actions
			if problems, err = s.checkPlan(ctx, ex, r.AccountID, r.Kind, actions); err != nil {
				return "", nil, nil, err
			}
		}
		if len(problems) == 0 {
			return note, actions, nil, nil
		}
		msgs = append(msgs, llm.Assistant(text),
			llm.User("The plan is invalid:\n- "+strings.Join(problems, "\n- ")+"\nReply with the corrected plan."))
	}
	return note, actions, problems, nil
}
