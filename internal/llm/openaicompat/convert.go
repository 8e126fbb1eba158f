package openaicompat

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentry/agentry/internal/llm"
)

// buildParams translates an llm request to the SDK's parameters.
func buildParams(req llm.ChatRequest) (openai.ChatCompletionNewParams, error) {
	var params openai.ChatCompletionNewParams
	params.Model = shared.ChatModel(req.Model)
	for _, m := range req.Messages {
		mp, err := messageParam(m)
		if err != nil {
			return params, err
		}
		params.Messages = append(params.Messages, mp)
	}
	for _, t := range req.Tools {
		fd := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		if len(t.Parameters) > 0 {
			var ps shared.FunctionParameters
			if err := json.Unmarshal(t.Parameters, &ps); err != nil {
				return params, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
			}
			fd.Parameters = ps
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	switch req.ToolChoice.Mode {
	case llm.ToolChoiceNone, llm.ToolChoiceRequired:
		if len(req.Tools) > 0 {
			params.ToolChoice.OfAuto = openai.String(string(req.ToolChoice.Mode))
		}
	case llm.ToolChoiceTool:
		params.ToolChoice.OfFunctionToolChoice = &openai.ChatCompletionNamedToolChoiceParam{
			Function: openai.ChatCompletionNamedToolChoiceFunctionParam{Name: req.ToolChoice.Name}}
	}
	switch req.ResponseFormat.Type {
	case llm.FormatJSONObject:
		params.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	case llm.FormatJSONSchema:
		var schema map[string]any
		if err := json.Unmarshal(req.ResponseFormat.Schema, &schema); err != nil {
			return params, fmt.Errorf("response schema is not a JSON object: %w", err)
		}
		name := req.ResponseFormat.Name
		if name == "" {
			name = "response"
		}
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: name, Schema: schema}
		if req.ResponseFormat.Strict {
			js.Strict = openai.Bool(true)
		}
		params.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}
	}
	if req.MaxTokens > 0 {
		// max_completion_tokens is the current field; reasoning models
		// reject max_tokens. Compatible servers accept both.
		params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	if req.Temperature != nil {
		params.Temperature = openai.Float(*req.Temperature)
	}
	if req.TopP != nil {
		params.TopP = openai.Float(*req.TopP)
	}
	if len(req.Stop) > 0 {
		params.Stop.OfStringArray = req.Stop
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
		params.ReasoningEffort = shared.ReasoningEffort(effort)
	}
	return params, nil
}

func messageParam(m llm.Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case llm.RoleSystem:
		return openai.SystemMessage(m.Text()), nil
	case llm.RoleUser:
		if !m.HasMedia() {
			return openai.UserMessage(m.Text()), nil
		}
		var parts []openai.ChatCompletionContentPartUnionParam
		for _, p := range m.Parts {
			switch p.Type {
			case llm.PartText:
				parts = append(parts, openai.TextContentPart(p.Text))
			case llm.PartImage:
				url := p.URL
				if url == "" {
					url = dataURL(p.MIMEType, p.Data)
				}
				parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: url}))
			case llm.PartDocument:
				if p.MIMEType == "application/pdf" && len(p.Data) > 0 {
					f := openai.ChatCompletionContentPartFileFileParam{FileData: openai.String(dataURL(p.MIMEType, p.Data))}
					if p.Name != "" {
						f.Filename = openai.String(p.Name)
					}
					parts = append(parts, openai.FileContentPart(f))
					continue
				}
				// Text documents travel as text, labelled with their name.
				text := p.Text
				if text == "" && strings.HasPrefix(p.MIMEType, "text/") {
					text = string(p.Data)
				}
				if text == "" {
					return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("%w: document %q (%s) has no text and is not a PDF", llm.ErrUnsupported, p.Name, p.MIMEType)
				}
				if p.Name != "" {
					text = "Document " + p.Name + ":\n" + text
				}
				parts = append(parts, openai.TextContentPart(text))
			}
		}
		return openai.UserMessage(parts), nil
	case llm.RoleAssistant:
		a := openai.ChatCompletionAssistantMessageParam{}
		if t := m.Text(); t != "" {
			a.Content.OfString = openai.String(t)
		}
		for _, tc := range m.ToolCalls {
			args := string(tc.Arguments)
			if args == "" {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: tc.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args}}})
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	case llm.RoleTool:
		return openai.ToolMessage(m.Text(), m.ToolCallID), nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown message role %q", m.Role)
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

func usage(u openai.CompletionUsage) llm.Usage {
	return llm.Usage{InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens),
		CachedInputTokens: int(u.PromptTokensDetails.CachedTokens),
		CacheWriteTokens:  int(u.PromptTokensDetails.CacheWriteTokens),
		ReasoningTokens:   int(u.CompletionTokensDetails.ReasoningTokens)}
}

func fromCompletion(c *openai.ChatCompletion) (*llm.ChatResponse, error) {
	if len(c.Choices) == 0 {
		return nil, errors.New("response has no choices")
	}
	ch := c.Choices[0]
	resp := &llm.ChatResponse{Model: c.Model, UpstreamModel: c.Model, FinishReason: finishReason(string(ch.FinishReason)),
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
