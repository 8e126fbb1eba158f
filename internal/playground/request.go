package playground

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/llm"
)

// template is a parsed json_template: the advanced mode's request payload,
// in the shape prompt_call's json_template uses, so a payload tried here
// can be pasted into an agent. Its message contents may name {{prompt}}
// (also {{input}}), {{system_prompt}} and {{step_output}}.
type template struct {
	Messages    []templateMessage `json:"messages"`
	MaxTokens   int               `json:"max_tokens"`
	Temperature *float64          `json:"temperature"`
}

type templateMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

// maxTemplateTokens bounds max_tokens in a template; more is a typo.
const maxTemplateTokens = 1_000_000

// parseTemplate reads json_template; nil or blank means none.
func parseTemplate(raw *string) (*template, error) {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(*raw), &obj); err != nil || obj == nil {
		return nil, errors.New("json_template must be a JSON object holding a messages list")
	}
	var t template
	if err := json.Unmarshal([]byte(*raw), &t); err != nil {
		return nil, fmt.Errorf("json_template: %v", err)
	}
	if len(t.Messages) == 0 {
		return nil, errors.New("json_template needs a non-empty messages list of {role, content}")
	}
	for i, m := range t.Messages {
		switch m.Role {
		case "system", "user", "assistant":
		default:
			return nil, fmt.Errorf("json_template: messages[%d].role must be system, user or assistant", i)
		}
	}
	if t.MaxTokens < 0 || t.MaxTokens > maxTemplateTokens {
		return nil, fmt.Errorf("json_template: max_tokens must be between 1 and %d", maxTemplateTokens)
	}
	if t.Temperature != nil && (*t.Temperature < 0 || *t.Temperature > 2) {
		return nil, errors.New("json_template: temperature must be between 0 and 2")
	}
	return &t, nil
}

// callSpec is what every model of an experiment is asked.
type callSpec struct {
	prompt, system string
	template       *template
	stepOutput     string
}

// request builds the chat request for one model.
func (c callSpec) request(model string) llm.ChatRequest {
	req := llm.ChatRequest{Model: model}
	if c.template == nil {
		if strings.TrimSpace(c.system) != "" {
			req.Messages = append(req.Messages, llm.System(c.system))
		}
		req.Messages = append(req.Messages, llm.User(c.prompt))
		return req
	}
	fill := strings.NewReplacer("{{prompt}}", c.prompt, "{{input}}", c.prompt,
		"{{system_prompt}}", c.system, "{{step_output}}", c.stepOutput)
	for _, m := range c.template.Messages {
		content := fill.Replace(text(m.Content))
		switch m.Role {
		case "system":
			req.Messages = append(req.Messages, llm.System(content))
		case "assistant":
			req.Messages = append(req.Messages, llm.Assistant(content))
		default:
			req.Messages = append(req.Messages, llm.User(content))
		}
	}
	req.MaxTokens, req.Temperature = c.template.MaxTokens, c.template.Temperature
	return req
}

// text renders a message content: a string as is, anything else (a list
// of content parts, say) as its JSON.
func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
