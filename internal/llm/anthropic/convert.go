package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/agentry/agentry/internal/llm"
)

// jsonObjectInstruction is how JSON-object mode is requested: the Messages
// API constrains output only to a schema, and an empty-object schema would
// forbid every property, so plain JSON mode is an instruction plus
// extraction of the object from the reply.
const jsonObjectInstruction = "Respond with a single JSON object and nothing else: no prose, no code fences."

func buildParams(req llm.ChatRequest) (sdk.MessageNewParams, error) {
	params := sdk.MessageNewParams{Model: sdk.Model(req.Model), MaxTokens: DefaultMaxTokens}
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
			params.Messages = appendTurn(params.Messages, sdk.MessageParamRoleUser, blocks)
		case llm.RoleTool:
			// Tool results are user turns; consecutive ones merge into a
			// single turn, which the API requires after parallel calls.
			params.Messages = appendTurn(params.Messages, sdk.MessageParamRoleUser,
				[]sdk.ContentBlockParamUnion{sdk.NewToolResultBlock(m.ToolCallID, m.Text(), m.IsError)})
		case llm.RoleAssistant:
			var blocks []sdk.ContentBlockParamUnion
			// Thinking comes first, as the model wrote it: with extended
			// thinking on, the API checks the signed blocks of the turn
			// that asked for tools when their results come back.
			for _, th := range m.Thinking {
				if th.Redacted != "" {
					blocks = append(blocks, sdk.NewRedactedThinkingBlock(th.Redacted))
				} else if th.Signature != "" {
					blocks = append(blocks, sdk.NewThinkingBlock(th.Signature, th.Text))
				}
			}
			if t := m.Text(); t != "" {
				blocks = append(blocks, sdk.NewTextBlock(t))
			}
			for _, tc := range m.ToolCalls {
				var input any = map[string]any{}
				if len(tc.Arguments) > 0 {
					if err := json.Unmarshal(tc.Arguments, &input); err != nil {
						return params, fmt.Errorf("tool call %s: arguments are not JSON: %w", tc.ID, err)
					}
				}
				blocks = append(blocks, sdk.NewToolUseBlock(tc.ID, input, tc.Name))
			}
			if len(blocks) > 0 {
				params.Messages = appendTurn(params.Messages, sdk.MessageParamRoleAssistant, blocks)
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
		params.OutputConfig.Format = sdk.JSONOutputFormatParam{Schema: schema}
	}
	if len(system) > 0 {
		params.System = []sdk.TextBlockParam{{Text: strings.Join(system, "\n\n")}}
	}
	for _, t := range req.Tools {
		tp := sdk.ToolParam{Name: t.Name, InputSchema: sdk.ToolInputSchemaParam{}}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		if len(t.Parameters) > 0 {
			var schema map[string]any
			if err := json.Unmarshal(t.Parameters, &schema); err != nil {
				return params, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
			}
			tp.InputSchema.Properties = schema["properties"]
			if req, ok := schema["required"].([]any); ok {
				for _, r := range req {
					if s, ok := r.(string); ok {
						tp.InputSchema.Required = append(tp.InputSchema.Required, s)
					}
				}
			}
			extra := map[string]any{}
			for k, v := range schema {
				if k != "type" && k != "properties" && k != "required" {
					extra[k] = v
				}
			}
			if len(extra) > 0 {
				tp.InputSchema.ExtraFields = extra
			}
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &tp})
	}
	if len(req.Tools) > 0 {
		switch req.ToolChoice.Mode {
		case llm.ToolChoiceNone:
			params.ToolChoice = sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}
		case llm.ToolChoiceRequired:
			params.ToolChoice = sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}
		case llm.ToolChoiceTool:
			params.ToolChoice = sdk.ToolChoiceUnionParam{OfTool: &sdk.ToolChoiceToolParam{Name: req.ToolChoice.Name}}
		}
	}
	if req.Temperature != nil {
		params.Temperature = sdk.Float(*req.Temperature)
	}
	if req.TopP != nil {
		params.TopP = sdk.Float(*req.TopP)
	}
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
		params.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(budget))
	}
	return params, nil
}

// appendTurn adds blocks as a turn, merging with the previous turn when it
// has the same role (the API expects alternating roles).
func appendTurn(msgs []sdk.MessageParam, role sdk.MessageParamRole, blocks []sdk.ContentBlockParamUnion) []sdk.MessageParam {
	if n := len(msgs); n > 0 && msgs[n-1].Role == role {
		msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
		return msgs
	}
	return append(msgs, sdk.MessageParam{Role: role, Content: blocks})
}

func userBlocks(m llm.Message) ([]sdk.ContentBlockParamUnion, error) {
	var blocks []sdk.ContentBlockParamUnion
	for _, p := range m.Parts {
		switch p.Type {
		case llm.PartText:
			if p.Text != "" {
				blocks = append(blocks, sdk.NewTextBlock(p.Text))
			}
		case llm.PartImage:
			if p.URL != "" {
				blocks = append(blocks, sdk.NewImageBlock(sdk.URLImageSourceParam{URL: p.URL}))
				continue
			}
			blocks = append(blocks, sdk.NewImageBlockBase64(p.MIMEType, base64.StdEncoding.EncodeToString(p.Data)))
		case llm.PartDocument:
			switch {
			case p.MIMEType == "application/pdf" && len(p.Data) > 0:
				blocks = append(blocks, sdk.NewDocumentBlock(sdk.Base64PDFSourceParam{Data: base64.StdEncoding.EncodeToString(p.Data)}))
			case p.MIMEType == "application/pdf" && p.URL != "":
				blocks = append(blocks, sdk.NewDocumentBlock(sdk.URLPDFSourceParam{URL: p.URL}))
			default:
				text := p.Text
				if text == "" && strings.HasPrefix(p.MIMEType, "text/") {
					text = string(p.Data)
				}
				if text == "" {
					return nil, fmt.Errorf("%w: document %q (%s) has no text and is not a PDF", llm.ErrUnsupported, p.Name, p.MIMEType)
				}
				blocks = append(blocks, sdk.NewDocumentBlock(sdk.PlainTextSourceParam{Data: text}))
			}
		}
	}
	if len(blocks) == 0 {
		blocks = append(blocks, sdk.NewTextBlock(" ")) // the API rejects empty content
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

func fromMessage(m *sdk.Message, format llm.FormatType) *llm.ChatResponse {
	resp := &llm.ChatResponse{Model: string(m.Model), UpstreamModel: string(m.Model), FinishReason: stopReason(string(m.StopReason)),
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
