package openaicompat

import (
	"encoding/json"
	"strings"

	"github.com/agentry/agentry/internal/llm"
)

// accumulator assembles streamed chunks into a response while relaying
// each delta as soon as it is decoded.
type accumulator struct {
	resp  llm.ChatResponse
	text  strings.Builder
	calls []*toolCallBuf
	index map[int64]int // wire index -> position in calls
	seenU bool

	estInput int
}

type toolCallBuf struct {
	id, name string
	args     strings.Builder
}

// newAccumulator starts a response; estInput is the prompt estimate used
// if the server never reports usage.
func newAccumulator(estInput int) *accumulator {
	a := &accumulator{index: map[int64]int{}, estInput: estInput}
	a.resp.Message.Role = llm.RoleAssistant
	a.resp.FinishReason = llm.FinishStop
	return a
}

func (a *accumulator) add(c chatChunk, emit llm.StreamFunc) error {
	if c.Model != "" {
		a.resp.Model, a.resp.UpstreamModel = c.Model, c.Model
	}
	if c.Usage != nil && (c.Usage.PromptTokens > 0 || c.Usage.CompletionTokens > 0) {
		a.resp.Usage = usage(*c.Usage)
		a.seenU = true
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if ch.FinishReason != "" {
			a.resp.FinishReason = finishReason(ch.FinishReason)
		}
		if d := ch.Delta.Content; d != "" {
			a.text.WriteString(d)
			if err := emit(llm.Delta{Text: d}); err != nil {
				return err
			}
		}
		for _, tc := range ch.Delta.ToolCalls {
			var wireIndex int64
			if tc.Index != nil {
				wireIndex = *tc.Index
			}
			pos, ok := a.index[wireIndex]
			if !ok {
				pos = len(a.calls)
				a.index[wireIndex] = pos
				a.calls = append(a.calls, &toolCallBuf{})
			}
			b := a.calls[pos]
			if tc.ID != "" {
				b.id = tc.ID
			}
			if tc.Function.Name != "" {
				b.name += tc.Function.Name
			}
			b.args.WriteString(tc.Function.Arguments)
			if err := emit(llm.Delta{ToolCall: &llm.ToolCallDelta{Index: pos, ID: tc.ID, Name: tc.Function.Name,
				ArgumentsDelta: tc.Function.Arguments}}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *accumulator) finish(emit llm.StreamFunc) (*llm.ChatResponse, error) {
	if a.text.Len() > 0 {
		a.resp.Message.Parts = []llm.Part{llm.TextPart(a.text.String())}
	}
	for _, b := range a.calls {
		a.resp.Message.ToolCalls = append(a.resp.Message.ToolCalls,
			llm.ToolCall{ID: b.id, Name: b.name, Arguments: json.RawMessage(orEmptyObject(b.args.String()))})
	}
	if len(a.calls) > 0 {
		a.resp.FinishReason = llm.FinishToolCalls
	}
	if !a.seenU {
		// Some compatible servers ignore stream_options.include_usage;
		// fall back to the estimate so the call is still billed.
		a.resp.Usage.InputTokens = a.estInput
		out := llm.EstimateTokens(a.text.String())
		for _, b := range a.calls {
			out += llm.EstimateTokens(b.name) + llm.EstimateTokens(b.args.String())
		}
		a.resp.Usage.OutputTokens = out
	}
	u := a.resp.Usage
	if err := emit(llm.Delta{Usage: &u}); err != nil {
		return nil, err
	}
	resp := a.resp
	return &resp, nil
}
