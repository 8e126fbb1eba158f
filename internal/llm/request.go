package llm

import (
	"encoding/json"
	"time"
)

// Tool is a function the model may call. Parameters is a JSON Schema object.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ToolChoiceMode says whether and how the model must use tools.
type ToolChoiceMode string

// Tool choice modes; the zero value is auto.
const (
	ToolChoiceAuto     ToolChoiceMode = ""
	ToolChoiceNone     ToolChoiceMode = "none"
	ToolChoiceRequired ToolChoiceMode = "required"
	ToolChoiceTool     ToolChoiceMode = "tool" // force the tool named in ToolChoice.Name
)

// ToolChoice constrains tool use.
type ToolChoice struct {
	Mode ToolChoiceMode `json:"mode,omitempty"`
	Name string         `json:"name,omitempty"`
}

// FormatType selects the shape of the model's answer.
type FormatType string

// Output formats. JSONObject asks for any JSON object; JSONSchema for one
// valid against ResponseFormat.Schema.
const (
	FormatText       FormatType = ""
	FormatJSONObject FormatType = "json_object"
	FormatJSONSchema FormatType = "json_schema"
)

// ResponseFormat requests JSON mode or schema-constrained output.
type ResponseFormat struct {
	Type   FormatType      `json:"type,omitempty"`
	Name   string          `json:"name,omitempty"` // schema name; some providers require one
	Schema json.RawMessage `json:"schema,omitempty"`
	Strict bool            `json:"strict,omitempty"`
}

// Thinking asks reasoning models to think first. Providers take either a
// token budget (Anthropic) or an effort level (OpenAI); each adapter derives
// the one it needs from whichever is set.
type Thinking struct {
	BudgetTokens int    `json:"budget_tokens,omitempty"`
	Effort       string `json:"effort,omitempty"` // low, medium, high
}

// CallMeta says who pays for a call and why. It travels with the request so
// that wrappers (Metered) and logs see it without a side channel.
type CallMeta struct {
	AccountID    string `json:"account_id,omitempty"`
	Purpose      string `json:"purpose,omitempty"` // e.g. prompt_call, evaluation, compaction, playground
	RunID        string `json:"run_id,omitempty"`
	StepID       string `json:"step_id,omitempty"`
	ExperimentID string `json:"experiment_id,omitempty"`
}

// ChatRequest is one chat completion call.
type ChatRequest struct {
	// Model is a catalog model id (e.g. openai_gpt_4o). The Router rewrites
	// it to the upstream name before it reaches an adapter.
	Model          string         `json:"model"`
	Messages       []Message      `json:"messages"`
	Tools          []Tool         `json:"tools,omitempty"`
	ToolChoice     ToolChoice     `json:"tool_choice,omitzero"`
	ResponseFormat ResponseFormat `json:"response_format,omitzero"`
	MaxTokens      int            `json:"max_tokens,omitempty"`
	Temperature    *float64       `json:"temperature,omitempty"`
	TopP           *float64       `json:"top_p,omitempty"`
	Stop           []string       `json:"stop,omitempty"`
	Thinking       *Thinking      `json:"thinking,omitempty"`
	// Timeout bounds the whole call, retries and backoff included. Zero
	// means the provider's configured default.
	Timeout time.Duration `json:"-"`
	Meta    CallMeta      `json:"-"`
}

// FinishReason says why generation stopped.
type FinishReason string

// Finish reasons, normalised across providers.
const (
	FinishStop          FinishReason = "stop"
	FinishLength        FinishReason = "length"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishContentFilter FinishReason = "content_filter"
)

// ChatResponse is the outcome of a chat call.
type ChatResponse struct {
	// Model is the catalog id the caller asked for; UpstreamModel is what
	// the provider says answered (often a dated snapshot name).
	Model         string       `json:"model"`
	UpstreamModel string       `json:"upstream_model,omitempty"`
	Message       Message      `json:"message"`
	Reasoning     string       `json:"reasoning,omitempty"` // visible thinking text, when the provider returns it
	FinishReason  FinishReason `json:"finish_reason"`
	Usage         Usage        `json:"usage"`
}

// Text returns the assistant's text.
func (r *ChatResponse) Text() string { return r.Message.Text() }

// ToolCalls returns the tools the assistant asked to run.
func (r *ChatResponse) ToolCalls() []ToolCall { return r.Message.ToolCalls }

// Usage counts tokens. InputTokens includes cached and cache-written
// prompt tokens; CachedInputTokens and CacheWriteTokens are the parts of it
// that were read from or written to the provider's prompt cache, so that
// pricing can charge each part at its own rate.
type Usage struct {
	InputTokens       int `json:"input_tokens"`
	OutputTokens      int `json:"output_tokens"`
	CachedInputTokens int `json:"cached_input_tokens"`
	CacheWriteTokens  int `json:"cache_write_tokens,omitempty"`
	ReasoningTokens   int `json:"reasoning_tokens,omitempty"` // part of OutputTokens
}

// Add accumulates o into u (tool loops bill every round).
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CachedInputTokens += o.CachedInputTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.ReasoningTokens += o.ReasoningTokens
}

// Total is input plus output tokens.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }

// ToolCallDelta is a fragment of a streamed tool call. Index identifies the
// call across fragments; ID and Name arrive on the first fragment.
type ToolCallDelta struct {
	Index          int    `json:"index"`
	ID             string `json:"id,omitempty"`
	Name           string `json:"name,omitempty"`
	ArgumentsDelta string `json:"arguments_delta,omitempty"`
}

// Delta is one streamed event. Exactly one of its fields is set; the last
// event of a successful stream carries Usage.
type Delta struct {
	Text      string         `json:"text,omitempty"`
	Reasoning string         `json:"reasoning,omitempty"`
	ToolCall  *ToolCallDelta `json:"tool_call,omitempty"`
	Usage     *Usage         `json:"usage,omitempty"`
}

// StreamFunc receives deltas in order. Returning an error aborts the stream
// and the call returns that error.
type StreamFunc func(Delta) error

// EmbedRequest embeds a batch of texts.
type EmbedRequest struct {
	Model      string        `json:"model"`
	Input      []string      `json:"input"`
	Dimensions int           `json:"dimensions,omitempty"` // 0 = the model's default
	Timeout    time.Duration `json:"-"`
	Meta       CallMeta      `json:"-"`
}

// EmbedResponse holds one L2-normalised vector per input, in input order.
type EmbedResponse struct {
	Model   string      `json:"model"`
	Vectors [][]float32 `json:"vectors"`
	Usage   Usage       `json:"usage"`
}
