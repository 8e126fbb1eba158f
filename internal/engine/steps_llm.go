package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/llm"
	"github.com/agentry/agentry/internal/telemetry"
)

// maxToolRounds bounds the model ↔ tool loop of one prompt_call.
const maxToolRounds = 8

func stepModel(x *Exec) string {
	if m, ok := x.Step.String("model"); ok && m != "" {
		return m
	}
	return x.Host().DefaultModel()
}

// stepPromptCall renders the prompt, calls the model — streaming tokens to
// the run's events when a streaming_result child asks for them on a
// priority run — and runs tool calls until the model answers.
func stepPromptCall(ctx context.Context, x *Exec) (Result, error) {
	model := stepModel(x)
	msgs, err := promptMessages(x)
	if err != nil {
		return Result{}, err
	}
	req := llm.ChatRequest{Model: model, Messages: msgs, Meta: x.Meta("prompt_call")}
	if t, ok := x.Step.Number("temperature"); ok {
		req.Temperature = &t
	}
	if n, ok := x.Step.Int("max_tokens"); ok {
		req.MaxTokens = n
	}
	if f, ok := x.Step.String("response_format"); ok && f == "json" {
		req.ResponseFormat = llm.ResponseFormat{Type: llm.FormatJSONObject}
	}
	if e, ok := x.Step.String("thinking"); ok && e != "" && e != "off" {
		req.Thinking = &llm.Thinking{Effort: e}
	}
	tools, bound, err := x.x.e.Tools.stepTools(ctx, x, x.Step.Config["tools"])
	if err != nil {
		return Result{}, err
	}
	req.Tools = tools

	// Tokens are held when an overseer must see the output first (a
	// policy may block it; an evaluation may reject it).
	stream := x.Run.Priority && hasStreamingChild(x.Step) && !x.x.holdStream(x.Step.ID)
	var calls []ToolCall
	for round := 0; ; round++ {
		var resp *llm.ChatResponse
		if stream {
			ts := x.newTokenStream(ctx)
			tokens := 0
			resp, err = x.Host().Model().Stream(ctx, req, func(d llm.Delta) error {
				if d.Text != "" {
					tokens++
					ts.add(d.Text)
				}
				return nil
			})
			if cerr := ts.close(tokens); err == nil {
				err = cerr
			}
		} else {
			resp, err = x.Host().Model().Chat(ctx, req)
		}
		if err != nil {
			return Result{ToolCalls: calls}, err
		}
		x.Charge(model, resp.Usage)
		if len(resp.ToolCalls()) == 0 || round >= maxToolRounds {
			ct := ""
			if req.ResponseFormat.Type != llm.FormatText {
				ct = "application/json"
			}
			return Result{Output: resp.Text(), ContentType: ct, ToolCalls: calls}, nil
		}
		req.Messages = append(req.Messages, resp.Message)
		for _, tc := range resp.ToolCalls() {
			start := time.Now().UTC()
			rec := ToolCall{ID: tc.ID, Name: tc.Name, Arguments: string(tc.Arguments), RoundIndex: round, Sequence: len(calls),
				StartedAt: start.Format(time.RFC3339Nano)}
			bt, ok := bound[tc.Name]
			var (
				out     string
				failure string
			)
			tctx, span := telemetry.StartTool(ctx, tc.Name, tc.ID, bt.kind())
			if !ok {
				failure = "the model called a tool the step does not offer"
				err = errors.New(failure)
			} else if out, err = bt.tool.Run(tctx, x, bt.cfg, tc.Arguments); err != nil {
				failure = err.Error()
			}
			span.End(string(tc.Arguments), out, err)
			end := time.Now().UTC()
			d := end.Sub(start).Seconds()
			rec.Result, rec.EndedAt, rec.DurationSeconds, rec.Succeeded = out, end.Format(time.RFC3339Nano), &d, failure == ""
			content := out
			if failure != "" {
				rec.Error = &failure
				content = "error: " + failure
			}
			calls = append(calls, rec)
			req.Messages = append(req.Messages, llm.ToolResult(tc, content, failure != ""))
		}
	}
}

func hasStreamingChild(s *definition.Step) bool {
	for _, c := range s.Children {
		if c != nil && c.Type == definition.StepStreamingResult {
			return true
		}
	}
	return false
}

// promptMessages builds the messages of a prompt_call: the rendered system
// and user templates, the input read as a message list when asked, or the
// rendered json_template's messages.
func promptMessages(x *Exec) ([]llm.Message, error) {
	var msgs []llm.Message
	if simple, ok := x.Step.Bool("simple_format"); ok && !simple {
		return jsonTemplateMessages(x)
	}
	if sys, ok := x.Step.String("system_template"); ok && sys != "" {
		s, err := x.Render(sys)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, llm.System(s))
	}
	if asMsgs, _ := x.Step.Bool("input_is_messages"); asMsgs {
		var in []struct {
			Role, Content string
		}
		if err := json.Unmarshal([]byte(x.Input), &in); err != nil {
			return nil, fmt.Errorf("input_is_messages: the input is not a JSON list of {role, content}: %v", err)
		}
		for _, m := range in {
			switch strings.ToLower(m.Role) {
			case "system":
				msgs = append(msgs, llm.System(m.Content))
			case "assistant":
				msgs = append(msgs, llm.Assistant(m.Content))
			default:
				msgs = append(msgs, llm.User(m.Content))
			}
		}
	}
	prompt, err := x.Field("prompt_template", "{{input}}")
	if err != nil {
		return nil, err
	}
	if prompt != "" || len(msgs) == 0 {
		msgs = append(msgs, llm.User(prompt))
	}
	if x.Feedback != "" {
		msgs = append(msgs, llm.User(feedbackPrompt(x.Feedback)))
	}
	return msgs, nil
}

func jsonTemplateMessages(x *Exec) ([]llm.Message, error) {
	msgs, err := templateMessages(x)
	if err == nil && x.Feedback != "" {
		msgs = append(msgs, llm.User(feedbackPrompt(x.Feedback)))
	}
	return msgs, err
}

func templateMessages(x *Exec) ([]llm.Message, error) {
	raw := x.Step.Config["json_template"]
	if s, ok := raw.(string); ok {
		if err := json.Unmarshal([]byte(s), &raw); err != nil {
			return nil, fmt.Errorf("json_template is not JSON: %v", err)
		}
	}
	obj, _ := raw.(map[string]any)
	list, _ := obj["messages"].([]any)
	if len(list) == 0 {
		return nil, fmt.Errorf("json_template needs a messages list")
	}
	var msgs []llm.Message
	for _, m := range list {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		content, err := x.Render(stringify(mm["content"]))
		if err != nil {
			return nil, err
		}
		switch role {
		case "system":
			msgs = append(msgs, llm.System(content))
		case "assistant":
			msgs = append(msgs, llm.Assistant(content))
		default:
			msgs = append(msgs, llm.User(content))
		}
	}
	return msgs, nil
}

// stepExtractData reads an input too large for one call chunk by chunk,
// carrying the findings so far into each call.
func stepExtractData(ctx context.Context, x *Exec) (Result, error) {
	tpl, _ := x.Step.String("prompt_template")
	model := stepModel(x)
	size, _ := x.Step.Int("chunk_size")
	if size <= 0 {
		size = 8000
	}
	maxChunks, _ := x.Step.Int("max_chunks")
	if maxChunks <= 0 {
		maxChunks = 100
	}
	asJSON := false
	if f, _ := x.Step.String("output_format"); f == "json" {
		asJSON = true
	}
	findings := ""
	runes := []rune(x.Input)
	for i, n := 0, 0; i < len(runes) && n < maxChunks; i, n = i+size, n+1 {
		end := min(i+size, len(runes))
		prompt, err := x.Render(tpl, map[string]string{"input": string(runes[i:end]), "findings": findings})
		if err != nil {
			return Result{}, err
		}
		req := llm.ChatRequest{Model: model, Messages: []llm.Message{llm.User(prompt)}, Meta: x.Meta("extract_data")}
		if asJSON {
			req.ResponseFormat = llm.ResponseFormat{Type: llm.FormatJSONObject}
		}
		resp, err := x.Host().Model().Chat(ctx, req)
		if err != nil {
			return Result{}, err
		}
		x.Charge(model, resp.Usage)
		findings = resp.Text()
	}
	ct := ""
	if asJSON {
		ct = "application/json"
	}
	return Result{Output: findings, ContentType: ct}, nil
}
