package telemetry

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/llm"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// ModelCall is the span and metrics of one model call.
type ModelCall struct {
	span    trace.Span
	ctx     context.Context
	op      string
	label   string // the model label of metrics: a catalog id, or "other"
	purpose string
	start   time.Time
}

type modelKey struct{}

// StartChat opens a `chat <model>` span for req (model is the catalog id
// the call resolved to; known says the catalog has it, so it may be a
// metric label). The request's messages are kept only when message
// content is captured.
func StartChat(ctx context.Context, model string, known bool, req llm.ChatRequest, stream bool) (context.Context, *ModelCall) {
	ctx, m := startModel(ctx, "chat", model, known, req.Meta.Purpose, func() []attribute.KeyValue {
		kv := []attribute.KeyValue{attribute.Bool("gen_ai.request.stream", stream)}
		if req.MaxTokens > 0 {
			kv = append(kv, attribute.Int("gen_ai.request.max_tokens", req.MaxTokens))
		}
		if req.Temperature != nil {
			kv = append(kv, attribute.Float64("gen_ai.request.temperature", *req.Temperature))
		}
		if req.TopP != nil {
			kv = append(kv, attribute.Float64("gen_ai.request.top_p", *req.TopP))
		}
		return kv
	})
	if m.span.IsRecording() && captureContent(ctx) {
		m.span.SetAttributes(attribute.String("gen_ai.input.messages", messagesJSON(req.Messages)))
	}
	return ctx, m
}

// StartEmbed opens an `embeddings <model>` span.
func StartEmbed(ctx context.Context, model string, known bool, purpose string, inputs int) (context.Context, *ModelCall) {
	return startModel(ctx, "embeddings", model, known, purpose, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.Int("agentry.embeddings.inputs", inputs)}
	})
}

func startModel(ctx context.Context, op, model string, known bool, purpose string, kv func() []attribute.KeyValue) (context.Context, *ModelCall) {
	label := model
	if !known || label == "" {
		label = "other"
	}
	ctx, span := start(ctx, op+" "+model, trace.SpanKindClient, func() []attribute.KeyValue {
		return append(kv(), attribute.String("gen_ai.operation.name", op), attribute.String("gen_ai.request.model", model),
			attribute.String("agentry.model.purpose", purpose))
	})
	m := &ModelCall{span: span, ctx: ctx, op: op, label: label, purpose: purpose, start: time.Now()}
	return context.WithValue(ctx, modelKey{}, m), m
}

// ModelRoute tells the model call ctx is in which provider serves it
// (gen_ai.provider.name: the configured provider's name) and under which
// upstream model name. The router calls it; outside a model call it does
// nothing.
func ModelRoute(ctx context.Context, provider, upstream string) {
	m, ok := ctx.Value(modelKey{}).(*ModelCall)
	if !ok || !m.span.IsRecording() {
		return
	}
	m.span.SetAttributes(attribute.String("gen_ai.provider.name", provider), attribute.String("agentry.model.upstream", upstream))
}

// EndChat closes the call with its response (nil on failure), the
// credits it was charged, and its error.
func (m *ModelCall) EndChat(resp *llm.ChatResponse, credits int64, err error) {
	var u llm.Usage
	if resp != nil {
		u = resp.Usage
		if m.span.IsRecording() {
			kv := []attribute.KeyValue{attribute.String("gen_ai.response.model", orString(resp.UpstreamModel, resp.Model))}
			if resp.FinishReason != "" {
				kv = append(kv, attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(resp.FinishReason)}))
			}
			if captureContent(m.ctx) {
				kv = append(kv, attribute.String("gen_ai.output.messages", messagesJSON([]llm.Message{resp.Message})))
			}
			m.span.SetAttributes(kv...)
		}
	}
	m.end(u, credits, err)
}

// EndEmbed closes an embeddings call.
func (m *ModelCall) EndEmbed(u llm.Usage, credits int64, err error) { m.end(u, credits, err) }

func (m *ModelCall) end(u llm.Usage, credits int64, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	modelRequests.WithLabelValues(m.label, m.op, outcome).Inc()
	modelDuration.WithLabelValues(m.label, m.op).Observe(time.Since(m.start).Seconds())
	if u.InputTokens > 0 {
		modelTokens.WithLabelValues(m.label, "input").Add(float64(u.InputTokens))
	}
	if u.OutputTokens > 0 {
		modelTokens.WithLabelValues(m.label, "output").Add(float64(u.OutputTokens))
	}
	if credits > 0 {
		creditsSpent.WithLabelValues(purposeLabel(m.purpose)).Add(float64(credits))
	}
	if st := statsOf(m.ctx); st != nil {
		st.InputTokens.Add(int64(u.InputTokens))
		st.OutputTokens.Add(int64(u.OutputTokens))
	}
	if m.span.IsRecording() {
		m.span.SetAttributes(attribute.Int("gen_ai.usage.input_tokens", u.InputTokens), attribute.Int("gen_ai.usage.output_tokens", u.OutputTokens),
			attribute.Int64("agentry.credits", credits))
		if u.CachedInputTokens > 0 {
			m.span.SetAttributes(attribute.Int("gen_ai.usage.cache_read.input_tokens", u.CachedInputTokens))
		}
		fail(m.span, err)
	}
	m.span.End()
}

// messagesJSON renders messages the way gen_ai.input.messages and
// gen_ai.output.messages carry them: role and parts, text only (an
// image's or a document's bytes are named, not copied).
func messagesJSON(msgs []llm.Message) string {
	type part struct {
		Type      string          `json:"type"`
		Content   string          `json:"content,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
		MIMEType  string          `json:"mime_type,omitempty"`
	}
	type message struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	out := make([]message, 0, len(msgs))
	for _, m := range msgs {
		msg := message{Role: string(m.Role), Parts: []part{}}
		for _, p := range m.Parts {
			switch p.Type {
			case llm.PartText:
				msg.Parts = append(msg.Parts, part{Type: "text", Content: p.Text})
			default:
				msg.Parts = append(msg.Parts, part{Type: string(p.Type), Name: p.Name, MIMEType: p.MIMEType})
			}
		}
		for _, tc := range m.ToolCalls {
			msg.Parts = append(msg.Parts, part{Type: "tool_call", ID: tc.ID, Name: tc.Name, Arguments: validJSON(tc.Arguments)})
		}
		if m.ToolCallID != "" {
			msg.Role = "tool"
			msg.Parts = []part{{Type: "tool_call_response", ID: m.ToolCallID, Content: m.Text()}}
		}
		out = append(out, msg)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func validJSON(b json.RawMessage) json.RawMessage {
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}

func orString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// purposeLabel is the purpose label of credits. Purposes are set by the
// code (prompt_call, evaluation, governance, knowledge_index…), never by a
// tenant; anything else shaped otherwise is "other", to stay bounded.
func purposeLabel(p string) string {
	if p == "" {
		return "unknown"
	}
	if len(p) > 40 {
		return "other"
	}
	for _, c := range p {
		if (c < 'a' || c > 'z') && c != '_' {
			return "other"
		}
	}
	return p
}
