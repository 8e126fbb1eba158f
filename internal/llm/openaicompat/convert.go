package openaicompat

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentry/agentry/internal/llm"
)

// buildParams translates an llm request to the wire's.
func buildParams(req llm.ChatRequest) (chatRequest, error) {
	params := chatRequest{Model: req.Model}
	for _, m := range req.Messages {
		mp, err := messageParam(m)
		if err != nil {
			return params, err
		}
		params.Messages = append(params.Messages, mp)
	}
	for _, t := range req.Tools {
		fn := toolFunction{Name: t.Name, Description: t.Description}
		if len(t.Parameters) > 0 {
			var ps map[string]any
			if err := json.Unmarshal(t.Parameters, &ps); err != nil {
				return params, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
			}
			fn.Parameters = t.Parameters
		}
		params.Tools = append(params.Tools, chatTool{Type: "function", Function: fn})
	}
	switch req.ToolChoice.Mode {
	case llm.ToolChoiceNone, llm.ToolChoiceRequired:
		if len(req.Tools) > 0 {
			params.ToolChoice = string(req.ToolChoice.Mode)
		}
	case llm.ToolChoiceTool:
		c := namedToolChoice{Type: "function"}
		c.Function.Name = req.ToolChoice.Name
		params.ToolChoice = c
	}
	switch req.ResponseFormat.Type {
	case llm.FormatJSONObject:
		params.ResponseFormat = &responseFormat{Type: "json_object"}
	case llm.FormatJSONSchema:
		var schema map[string]any
		if err := json.Unmarshal(req.ResponseFormat.Schema, &schema); err != nil {
			return params, fmt.Errorf("response schema is not a JSON object: %w", err)
		}
		name := req.ResponseFormat.Name
		if name == "" {
			name = "response"
		}
		js := &jsonSchema{Name: name, Schema: req.ResponseFormat.Schema}
		if req.ResponseFormat.Strict {
			strict := true
			js.Strict = &strict
		}
		params.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: js}
	}
	if req.MaxTokens > 0 {
		// max_completion_tokens is the current field; reasoning models
		// reject max_tokens. Compatible servers accept both.
		n := req.MaxTokens
		params.MaxCompletionTokens = &n
	}
	params.Temperature, params.TopP = req.Temperature, req.TopP
	if len(req.Stop) > 0 {
		params.Stop = req.Stop
	}
	if th := req.Thinking; th != nil {
		effort := th.Effort
		if effort == "" {
			// Map a token budget onto the effort scale.
			switch {
			case th.BudgetTokens >= 16000:
				effort = "high"
			case th.BudgetTokens >= 4000:
				effort = "medium"
			default:
				effort = "low"
			}
		}
		params.ReasoningEffort = effort
	}
	return params, nil
}

func messageParam(m llm.Message) (chatMessage, error) {
	switch m.Role {
	case llm.RoleSystem:
		return chatMessage{Role: "system", Content: m.Text()}, nil
	case llm.RoleUser:
		if !m.HasMedia() {
			return chatMessage{Role: "user", Content: m.Text()}, nil
		}
		var parts []contentPart
		for _, p := range m.Parts {
			switch p.Type {
			case llm.PartText:
				parts = append(parts, contentPart{Type: "text", Text: p.Text})
			case llm.PartImage:
				url := p.URL
				if url == "" {
					url = dataURL(p.MIMEType, p.Data)
				}
				parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: url}})
			case llm.PartDocument:
				if p.MIMEType == "application/pdf" && len(p.Data) > 0 {
					parts = append(parts, contentPart{Type: "file", File: &filePart{FileData: dataURL(p.MIMEType, p.Data), Filename: p.Name}})
					continue
				}
				// Text documents travel as text, labelled with their name.
				text := p.Text
				if text == "" && strings.HasPrefix(p.MIMEType, "text/") {
					text = string(p.Data)
				}
				if text == "" {
					return chatMessage{}, fmt.Errorf("%w: document %q (%s) has no text and is not a PDF", llm.ErrUnsupported, p.Name, p.MIMEType)
				}
				if p.Name != "" {
					text = "Document " + p.Name + ":\n" + text
				}
				parts = append(parts, contentPart{Type: "text", Text: text})
			}
		}
		return chatMessage{Role: "user", Content: parts}, nil
	case llm.RoleAssistant:
		a := chatMessage{Role: "assistant"}
		if t := m.Text(); t != "" {
			a.Content = t
		}
		for _, tc := range m.ToolCalls {
			args := string(tc.Arguments)
			if args == "" {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, wireToolCall{ID: tc.ID, Type: "function", Function: wireFunction{Name: tc.Name, Arguments: args}})
		}
		return a, nil
	case llm.RoleTool:
		return chatMessage{Role: "tool", Content: m.Text(), ToolCallID: m.ToolCallID}, nil
	}
	return chatMessage{}, fmt.Errorf("unknown message role %q", m.Role)
}

func dataURL(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

func finishReason(s string) llm.FinishReason {
	switch s {
	case "length":
		return llm.FinishLength
	case "tool_calls", "function_call":
		return llm.FinishToolCalls
	case "content_filter":
		return llm.FinishContentFilter
	}
	return llm.FinishStop
}

func usage(u wireUsage) llm.Usage {
	return llm.Usage{InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens),
		CachedInputTokens: int(u.PromptTokensDetails.CachedTokens),
		CacheWriteTokens:  int(u.PromptTokensDetails.CacheWriteTokens),
		ReasoningTokens:   int(u.CompletionTokensDetails.ReasoningTokens)}
}

func fromCompletion(c *chatCompletion) (*llm.ChatResponse, error) {
	if len(c.Choices) == 0 {
		return nil, errNoChoices
	}
	ch := c.Choices[0]
	resp := &llm.ChatResponse{Model: c.Model, UpstreamModel: c.Model, FinishReason: finishReason(ch.FinishReason),
		Usage: usage(c.Usage)}
	resp.Message.Role = llm.RoleAssistant
	if ch.Message.Content != "" {
		resp.Message.Parts = []llm.Part{llm.TextPart(ch.Message.Content)}
	}
	for _, tc := range ch.Message.ToolCalls {
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name,
			Arguments: json.RawMessage(orEmptyObject(tc.Function.Arguments))})
	}
	if len(resp.Message.ToolCalls) > 0 {
		resp.FinishReason = llm.FinishToolCalls
	}
	return resp, nil
}

func orEmptyObject(s string) string {
	if strings.TrimSpace(s) == "" {
		return "{}"
	}
	return s
}
