package offline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentry/agentry/internal/llm"
)

// Name is the upstream model name the offline model reports.
const Name = "agentry-offline"

// Model is the offline llm.Provider: chat by the rules in the package
// comment, embeddings by Embedder. The zero value is not usable; call New.
type Model struct {
	emb       *Embedder // ranks sentences; fixed size, independent of Embed requests
	embedders sync.Map  // dimension -> *Embedder, for Embed
}

// New returns the offline model.
func New() *Model { return &Model{emb: NewEmbedder(DefaultDimensions)} }

var _ llm.Provider = (*Model)(nil)

// Chat implements llm.Provider.
func (m *Model) Chat(ctx context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	return m.Stream(ctx, req, nil)
}

// Stream implements llm.Provider: the answer is computed at once, then
// relayed in word-sized deltas (tool arguments in short fragments) the way
// a real provider streams, ending with usage.
func (m *Model) Stream(ctx context.Context, req llm.ChatRequest, fn llm.StreamFunc) (*llm.ChatResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	resp, err := m.respond(req)
	if err != nil {
		return nil, err
	}
	if fn == nil {
		return resp, nil
	}
	for _, chunk := range chunkWords(resp.Message.Text()) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := fn(llm.Delta{Text: chunk}); err != nil {
			return nil, err
		}
	}
	for i, tc := range resp.Message.ToolCalls {
		if err := fn(llm.Delta{ToolCall: &llm.ToolCallDelta{Index: i, ID: tc.ID, Name: tc.Name}}); err != nil {
			return nil, err
		}
		args := string(tc.Arguments)
		for len(args) > 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			n := min(16, len(args))
			if err := fn(llm.Delta{ToolCall: &llm.ToolCallDelta{Index: i, ArgumentsDelta: args[:n]}}); err != nil {
				return nil, err
			}
			args = args[n:]
		}
	}
	u := resp.Usage
	if err := fn(llm.Delta{Usage: &u}); err != nil {
		return nil, err
	}
	return resp, nil
}

// chunkWords splits s into words, each keeping its trailing whitespace,
// so that concatenating the chunks gives s back exactly.
func chunkWords(s string) []string {
	var out []string
	start := 0
	inSpace := false
	for i, r := range s {
		space := r == ' ' || r == '\n' || r == '\t'
		if inSpace && !space {
			out = append(out, s[start:i])
			start = i
		}
		inSpace = space
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func (m *Model) respond(req llm.ChatRequest) (*llm.ChatResponse, error) {
	if len(req.Messages) == 0 {
		return nil, errors.New("offline model: no messages")
	}
	p := readPrompt(req)
	resp := &llm.ChatResponse{Model: req.Model, UpstreamModel: Name, FinishReason: llm.FinishStop}
	resp.Message.Role = llm.RoleAssistant

	if t := chooseTool(m.emb, req, p); t != nil {
		tp := p
		tp.question = toolRequest(p.request, t)
		args := []byte("{}")
		if len(t.Parameters) > 0 && string(t.Parameters) != "null" {
			var err error
			args, err = generateJSON(t.Parameters, newFiller(m.emb, tp))
			if err != nil {
				return nil, fmt.Errorf("offline model: arguments for tool %s: %w", t.Name, err)
			}
		}
		resp.Message.ToolCalls = []llm.ToolCall{{ID: toolCallID(len(req.Messages), t.Name, args), Name: t.Name, Arguments: args}}
		resp.FinishReason = llm.FinishToolCalls
		resp.Usage = llm.Usage{InputTokens: llm.EstimateRequestTokens(req),
			OutputTokens: llm.EstimateTokens(t.Name) + llm.EstimateTokens(string(args))}
		return resp, nil
	}
	if req.ToolChoice.Mode == llm.ToolChoiceRequired || req.ToolChoice.Mode == llm.ToolChoiceTool {
		if !p.toolTurn {
			return nil, fmt.Errorf("offline model: tool choice %q names no offered tool", req.ToolChoice.Name)
		}
	}

	if isPolicyCheck(req, p) {
		v, err := policyVerdict(p.request)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(v)
		text := string(b)
		resp.Message.Parts = []llm.Part{llm.TextPart(text)}
		resp.Usage = llm.Usage{InputTokens: llm.EstimateRequestTokens(req), OutputTokens: llm.EstimateTokens(text)}
		return resp, nil
	}
	if isJudgeRequest(req, p) {
		text, err := m.judge(req, p)
		if err != nil {
			return nil, err
		}
		resp.Message.Parts = []llm.Part{llm.TextPart(text)}
		resp.Usage = llm.Usage{InputTokens: llm.EstimateRequestTokens(req), OutputTokens: llm.EstimateTokens(text)}
		return resp, nil
	}

	var text string
	switch req.ResponseFormat.Type {
	case llm.FormatJSONSchema:
		out, err := generateJSON(req.ResponseFormat.Schema, newFiller(m.emb, p))
		if err != nil {
			return nil, err
		}
		text = string(out)
	case llm.FormatJSONObject:
		text = m.jsonObject(p)
	default:
		text = m.textAnswer(p)
		text = applyStop(text, req.Stop)
		if req.MaxTokens > 0 && llm.EstimateTokens(text) > req.MaxTokens {
			text = truncateTokens(text, req.MaxTokens)
			resp.FinishReason = llm.FinishLength
		}
	}
	resp.Message.Parts = []llm.Part{llm.TextPart(text)}
	resp.Usage = llm.Usage{InputTokens: llm.EstimateRequestTokens(req), OutputTokens: llm.EstimateTokens(text)}
	return resp, nil
}

// textAnswer is the plain-text answer for the task the prompt sets.
func (m *Model) textAnswer(p prompt) string {
	switch detectTask(p) {
	case taskUnsupported:
		return unsupportedAnswer(p.steer)
	case taskSummary:
		return summaryText(m.emb, p)
	case taskReport:
		return report(m.emb, p)
	}
	return answer(m.emb, p)
}

// jsonObject answers JSON mode: the object the instructions describe
// (an embedded schema, or the keys they list), else {"summary": …},
// {"report": …} or {"answer": …} by task.
func (m *Model) jsonObject(p prompt) string {
	if schema := schemaFromInstructions(p.steer + "\n" + p.system); schema != nil {
		if out, err := generateJSON(schema, newFiller(m.emb, p)); err == nil {
			return string(out)
		}
	}
	obj := map[string]string{}
	switch detectTask(p) {
	case taskSummary:
		obj["summary"] = summaryText(m.emb, p)
	case taskReport:
		obj["report"] = report(m.emb, p)
	case taskUnsupported:
		obj["answer"] = unsupportedAnswer(p.steer)
	default:
		obj["answer"] = answer(m.emb, p)
	}
	out, _ := json.Marshal(obj)
	return string(out)
}

func applyStop(s string, stops []string) string {
	for _, st := range stops {
		if st == "" {
			continue
		}
		if i := strings.Index(s, st); i >= 0 {
			s = s[:i]
		}
	}
	return s
}

// truncateTokens keeps whole words while the estimate stays within n.
// JSON answers are never truncated: a cut document helps nobody.
func truncateTokens(s string, n int) string {
	var b strings.Builder
	for _, w := range chunkWords(s) {
		if llm.EstimateTokens(b.String()+w) > n {
			break
		}
		b.WriteString(w)
	}
	return strings.TrimRight(b.String(), " \n\t")
}

// Embed implements llm.Provider. Dimensions default to 384.
func (m *Model) Embed(ctx context.Context, req llm.EmbedRequest) (*llm.EmbedResponse, error) {
	dim := req.Dimensions
	if dim == 0 {
		dim = DefaultDimensions
	}
	if dim < MinDimensions || dim > MaxDimensions {
		return nil, fmt.Errorf("%w: offline embedder dimensions must be %d..%d", llm.ErrUnsupported, MinDimensions, MaxDimensions)
	}
	e := m.embedder(dim)
	resp := &llm.EmbedResponse{Model: req.Model, Vectors: make([][]float32, len(req.Input))}
	for i, s := range req.Input {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		resp.Vectors[i] = e.Embed(s)
		resp.Usage.InputTokens += llm.EstimateTokens(s)
	}
	return resp, nil
}

func (m *Model) embedder(dim int) *Embedder {
	if e, ok := m.embedders.Load(dim); ok {
		return e.(*Embedder)
	}
	e, _ := m.embedders.LoadOrStore(dim, NewEmbedder(dim))
	return e.(*Embedder)
}
