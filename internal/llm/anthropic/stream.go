package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/agentry/agentry/internal/llm"
)

// accumulator assembles stream events into a response, relaying deltas.
type accumulator struct {
	resp   llm.ChatResponse
	text   strings.Builder
	blocks map[int64]*toolBuf // content block index -> tool call
	// reasoning keeps the thinking blocks in order; thinkingAt finds the
	// one a delta or signature belongs to by content block index.
	reasoning  []*thinkingBuf
	thinkingAt map[int64]*thinkingBuf
	order      []*toolBuf
	usage      struct{ input, output, cacheRead, cacheWrite int64 }
}

type toolBuf struct {
	pos      int
	id, name string
	args     strings.Builder
}

type thinkingBuf struct {
	text                strings.Builder
	signature, redacted string
}

func newAccumulator() *accumulator {
	a := &accumulator{blocks: map[int64]*toolBuf{}, thinkingAt: map[int64]*thinkingBuf{}}
	a.resp.Message.Role = llm.RoleAssistant
	a.resp.FinishReason = llm.FinishStop
	return a
}

func (a *accumulator) add(ev streamEvent, emit llm.StreamFunc) error {
	switch ev.Type {
	case "message_start":
		a.resp.Model, a.resp.UpstreamModel = ev.Message.Model, ev.Message.Model
		u := ev.Message.Usage
		a.usage.input, a.usage.output = u.InputTokens, u.OutputTokens
		a.usage.cacheRead, a.usage.cacheWrite = u.CacheReadInputTokens, u.CacheCreationInputTokens
	case "content_block_start":
		switch ev.ContentBlock.Type {
		case "thinking":
			b := &thinkingBuf{signature: ev.ContentBlock.Signature}
			b.text.WriteString(ev.ContentBlock.Thinking)
			a.thinkingAt[ev.Index] = b
			a.reasoning = append(a.reasoning, b)
		case "redacted_thinking":
			a.reasoning = append(a.reasoning, &thinkingBuf{redacted: ev.ContentBlock.Data})
		case "tool_use":
			b := &toolBuf{pos: len(a.order), id: ev.ContentBlock.ID, name: ev.ContentBlock.Name}
			a.blocks[ev.Index] = b
			a.order = append(a.order, b)
			return emit(llm.Delta{ToolCall: &llm.ToolCallDelta{Index: b.pos, ID: b.id, Name: b.name}})
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			a.text.WriteString(ev.Delta.Text)
			return emit(llm.Delta{Text: ev.Delta.Text})
		case "thinking_delta":
			if b, ok := a.thinkingAt[ev.Index]; ok {
				b.text.WriteString(ev.Delta.Thinking)
			}
			return emit(llm.Delta{Reasoning: ev.Delta.Thinking})
		case "signature_delta":
			if b, ok := a.thinkingAt[ev.Index]; ok {
				b.signature += ev.Delta.Signature
			}
		case "input_json_delta":
			if b, ok := a.blocks[ev.Index]; ok {
				b.args.WriteString(ev.Delta.PartialJSON)
				return emit(llm.Delta{ToolCall: &llm.ToolCallDelta{Index: b.pos, ArgumentsDelta: ev.Delta.PartialJSON}})
			}
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.resp.FinishReason = stopReason(ev.Delta.StopReason)
		}
		// message_delta usage is cumulative.
		if ev.Usage.OutputTokens > 0 {
			a.usage.output = ev.Usage.OutputTokens
		}
		if ev.Usage.InputTokens > 0 {
			a.usage.input = ev.Usage.InputTokens
		}
		if ev.Usage.CacheReadInputTokens > 0 {
			a.usage.cacheRead = ev.Usage.CacheReadInputTokens
		}
		if ev.Usage.CacheCreationInputTokens > 0 {
			a.usage.cacheWrite = ev.Usage.CacheCreationInputTokens
		}
	}
	return nil
}

func (a *accumulator) finish(emit llm.StreamFunc, format llm.FormatType) (*llm.ChatResponse, error) {
	if t := finalText(a.text.String(), format); t != "" {
		a.resp.Message.Parts = []llm.Part{llm.TextPart(t)}
	}
	var reasoning strings.Builder
	for _, b := range a.reasoning {
		reasoning.WriteString(b.text.String())
		a.resp.Message.Thinking = append(a.resp.Message.Thinking, llm.ThinkingBlock{Text: b.text.String(), Signature: b.signature, Redacted: b.redacted})
	}
	a.resp.Reasoning = reasoning.String()
	for _, b := range a.order {
		args := b.args.String()
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		a.resp.Message.ToolCalls = append(a.resp.Message.ToolCalls, llm.ToolCall{ID: b.id, Name: b.name, Arguments: json.RawMessage(args)})
	}
	a.resp.Usage = usageOf(a.usage.input, a.usage.output, a.usage.cacheRead, a.usage.cacheWrite)
	u := a.resp.Usage
	if err := emit(llm.Delta{Usage: &u}); err != nil {
		return nil, err
	}
	resp := a.resp
	return &resp, nil
}
