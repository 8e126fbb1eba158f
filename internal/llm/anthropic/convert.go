package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/llm"
)

// jsonObjectInstruction is how JSON-object mode is requested: the Messages
// API constrains output only to a schema, and an empty-object schema would
// forbid every property, so plain JSON mode is an instruction plus
// extraction of the object from the reply.
const jsonObjectInstruction = "Respond with a single JSON object and nothing else: no prose, no code fences."

// buildParams translates a request into the Messages API's body.
func buildParams(req llm.ChatRequest) (messageRequest, error) {
	params := messageRequest{Model: req.Model, MaxTokens: DefaultMaxTokens, Messages: []turn{}}
	if req.MaxTokens > 0 {
		params.MaxTokens = int64(req.MaxTokens)
	}
	var system []string
	for i := 0; i < len(req.Messages); i++ {
		m := req.Messages[i]
		switch m.Role {
		case llm.RoleSystem:
			system = append(system, m.Text())
		case llm.RoleUser:
			blocks, err := userBlocks(m)
			if err != nil {
				return params, err
			}
			params.Messages = appendTurn(params.Messages, roleUser, blocks)
		case llm.RoleTool:
			// Tool results are user turns; consecutive ones merge into a
			// single turn, which the API requires after parallel calls.
			params.Messages = appendTurn(params.Messages, roleUser, []any{toolResultBlock{Type: "tool_result",
				ToolUseID: m.ToolCallID, Content: []textBlock{newText(m.Text())}, IsError: m.IsError}})
		case llm.RoleAssistant:
			var blocks []any
			// Thinking comes first, as the model wrote it: with extended
			// thinking on, the API checks the signed blocks of the turn
			// that asked for tools when their results come back.
			for _, th := range m.Thinking {
				if th.Redacted != "" {
					blocks = append(blocks, redactedThinkingBlock{Type: "redacted_thinking", Data: th.Redacted})
				} else if th.Signature != "" {
					blocks = append(blocks, thinkingBlock{Type: "thinking", Thinking: th.Text, Signature: th.Signature})
				}
			}
			if t := m.Text(); t != "" {
				blocks = append(blocks, newText(t))
			}
			for _, tc := range m.ToolCalls {
				input := json.RawMessage("{}")
				if len(tc.Arguments) > 0 {
					var buf bytes.Buffer
					if err := json.Compact(&buf, tc.Arguments); err != nil {
						return params, fmt.Errorf("tool call %s: arguments are not JSON: %w", tc.ID, err)
					}
					input = buf.Bytes()
				}
				blocks = append(blocks, toolUseBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: input})
			}
			if len(blocks) > 0 {
				params.Messages = appendTurn(params.Messages, roleAssistant, blocks)
			}
		default:
			return params, fmt.Errorf("unknown message role %q", m.Role)
		}
	}
	switch req.ResponseFormat.Type {
	case llm.FormatJSONObject:
		system = append(system, jsonObjectInstruction)
	case llm.FormatJSONSchema:
		var schema map[string]any
		if err := json.Unmarshal(req.ResponseFormat.Schema, &schema); err != nil {
			return params, fmt.Errorf("response schema is not a JSON object: %w", err)
		}
		params.OutputConfig = &outputConfig{Format: outputFormat{Type: "json_schema", Schema: schema}}
	}
	if len(system) > 0 {
		params.System = []textBlock{newText(strings.Join(system, "\n\n"))}
	}
	for _, t := range req.Tools {
		td := toolDef{Name: t.Name, Description: t.Description}
		var err error
		if td.InputSchema, err = inputSchema(t.Parameters); err != nil {
			return params, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
		}
		params.Tools = append(params.Tools, td)
	}
	if len(req.Tools) > 0 {
		switch req.ToolChoice.Mode {
		case llm.ToolChoiceNone:
			params.ToolChoice = &toolChoice{Type: "none"}
		case llm.ToolChoiceRequired:
			params.ToolChoice = &toolChoice{Type: "any"}
		case llm.ToolChoiceTool:
			params.ToolChoice = &toolChoice{Type: "tool", Name: req.ToolChoice.Name}
		}
	}
	params.Temperature, params.TopP = req.Temperature, req.TopP
	if len(req.Stop) > 0 {
		params.StopSequences = req.Stop
	}
	if th := req.Thinking; th != nil {
		budget := th.BudgetTokens
		if budget <= 0 {
			// Map an effort level onto a budget.
			switch th.Effort {
			case "high":
				budget = 16000
			case "medium":
				budget = 8000
			default:
				budget = 2048
			}
		}
		budget = max(budget, 1024) // the API's minimum
		if int64(budget) >= params.MaxTokens {
			params.MaxTokens = int64(budget) + DefaultMaxTokens
		}
		params.Thinking = &thinkingConfig{Type: "enabled", BudgetTokens: int64(budget)}
	}
	return params, nil
}

// inputSchema is a tool's JSON Schema as the API takes it: always of
// type object, with properties and required kept only when present (and
// required only its strings), and every other keyword as it was.
func inputSchema(parameters json.RawMessage) (map[string]any, error) {
	out := map[string]any{"type": "object"}
	if len(parameters) == 0 {
		return out, nil
	}
	var schema map[string]any
	if err := json.Unmarshal(parameters, &schema); err != nil {
		return nil, err
	}
	for k, v := range schema {
		switch k {
		case "type":
		case "properties":
			if v != nil {
				out[k] = v
			}
		case "required":
			var names []string
			list, _ := v.([]any)
			for _, r := range list {
				if s, ok := r.(string); ok {
					names = append(names, s)
				}
			}
			if len(names) > 0 {
				out[k] = names
			}
		default:
			out[k] = v
		}
	}
	return out, nil
}

// appendTurn adds blocks as a turn, merging with the previous turn when it
// has the same role (the API expects alternating roles).
func appendTurn(msgs []turn, role string, blocks []any) []turn {
	if n := len(msgs); n > 0 && msgs[n-1].Role == role {
		msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
		return msgs
	}
	return append(msgs, turn{Role: role, Content: blocks})
}

func userBlocks(m llm.Message) ([]any, error) {
	var blocks []any
	for _, p := range m.Parts {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				blocks = append(blocks, newText(p.Text))
			}
		case llm.PartImage:
			if p.URL != "" {
				blocks = append(blocks, mediaBlock{Type: "image", Source: mediaSource{Type: "url", URL: p.URL}})
				continue
			}
			blocks = append(blocks, mediaBlock{Type: "image", Source: mediaSource{Type: "base64", MediaType: p.MIMEType,
				Data: base64.StdEncoding.EncodeToString(p.Data)}})
		case llm.PartDocument:
			switch {
			case p.MIMEType == "application/pdf" && len(p.Data) > 0:
				blocks = append(blocks, mediaBlock{Type: "document", Source: mediaSource{Type: "base64", MediaType: "application/pdf",
					Data: base64.StdEncoding.EncodeToString(p.Data)}})
			case p.MIMEType == "application/pdf" && p.URL != "":
				blocks = append(blocks, mediaBlock{Type: "document", Source: mediaSource{Type: "url", URL: p.URL}})
			default:
				text := p.Text
				if text == "" && strings.HasPrefix(p.MIMEType, "text/") {
					text = string(p.Data)
				}
				if text == "" {
					return nil, fmt.Errorf("%w: document %q (%s) has no text and is not a PDF", llm.ErrUnsupported, p.Name, p.MIMEType)
				}
				blocks = append(blocks, mediaBlock{Type: "document", Source: mediaSource{Type: "text", MediaType: "text/plain", Data: text}})
			}
		}
	}
	if len(blocks) == 0 {
		blocks = append(blocks, newText(" ")) // the API rejects empty content
	}
	return blocks, nil
}

func stopReason(s string) llm.FinishReason {
	switch s {
	case "max_tokens", "model_context_window_exceeded":
		return llm.FinishLength
	case "tool_use":
		return llm.FinishToolCalls
	case "refusal":
		return llm.FinishContentFilter
	}
	return llm.FinishStop
}

// usageOf converts Anthropic usage, where input_tokens excludes cache reads
// and writes, to ours, where InputTokens counts every prompt token.
func usageOf(input, output, cacheRead, cacheWrite int64) llm.Usage {
	return llm.Usage{InputTokens: int(input + cacheRead + cacheWrite), OutputTokens: int(output),
		CachedInputTokens: int(cacheRead), CacheWriteTokens: int(cacheWrite)}
}

func fromMessage(m *message, format llm.FormatType) *llm.ChatResponse {
	resp := &llm.ChatResponse{Model: m.Model, UpstreamModel: m.Model, FinishReason: stopReason(m.StopReason),
		Usage: usageOf(m.Usage.InputTokens, m.Usage.OutputTokens, m.Usage.CacheReadInputTokens, m.Usage.CacheCreationInputTokens)}
	resp.Message.Role = llm.RoleAssistant
	var text, thinking strings.Builder
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "thinking":
			thinking.WriteString(b.Thinking)
			resp.Message.Thinking = append(resp.Message.Thinking, llm.ThinkingBlock{Text: b.Thinking, Signature: b.Signature})
		case "redacted_thinking":
			resp.Message.Thinking = append(resp.Message.Thinking, llm.ThinkingBlock{Redacted: b.Data})
		case "tool_use":
			args := json.RawMessage(b.Input)
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			resp.Message.ToolCalls = append(resp.Message.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	if t := finalText(text.String(), format); t != "" {
		resp.Message.Parts = []llm.Part{llm.TextPart(t)}
	}
	resp.Reasoning = thinking.String()
	return resp
}

// finalText extracts the JSON object in JSON-object mode, where the model
// was only instructed (not constrained) and may wrap it in prose or fences.
func finalText(s string, format llm.FormatType) string {
	if format != llm.FormatJSONObject {
		return s
	}
	start := strings.IndexByte(s, '{')
	end := strings.LastIndexByte(s, '}')
	if start >= 0 && end > start && json.Valid([]byte(s[start:end+1])) {
		return s[start : end+1]
	}
	return s
}
