package anthropic

import (
	"encoding/json"
)

// The wire format of the Messages API (POST /v1/messages), the one part of
// Anthropic's API this provider speaks. It was the official SDK until that
// SDK was found to add about 20 MB to the binary (its generated types
// cover the whole API) for one endpoint; see docs/performance.md.

// apiVersion is sent as the anthropic-version header on every call.
const apiVersion = "2023-06-01"

// messageRequest is the body of POST /v1/messages.
type messageRequest struct {
	Model         string          `json:"model"`
	MaxTokens     int64           `json:"max_tokens"`
	Messages      []turn          `json:"messages"`
	System        []textBlock     `json:"system,omitempty"`
	Tools         []toolDef       `json:"tools,omitempty"`
	ToolChoice    *toolChoice     `json:"tool_choice,omitempty"`
	OutputConfig  *outputConfig   `json:"output_config,omitempty"`
	Temperature   *float64        `json:"temperature,omitempty"`
	TopP          *float64        `json:"top_p,omitempty"`
	StopSequences []string        `json:"stop_sequences,omitempty"`
	Thinking      *thinkingConfig `json:"thinking,omitempty"`
	Stream        bool            `json:"stream,omitempty"`
}

// MarshalJSON is the request body exactly as it is sent.
func (r messageRequest) MarshalJSON() ([]byte, error) {
	type plain messageRequest // without this method, so no recursion
	return json.Marshal(plain(r))
}

// turn is one message of the conversation; Content holds the block types
// below, each of which writes its own "type".
type turn struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

const (
	roleUser      = "user"
	roleAssistant = "assistant"
)

type textBlock struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

func newText(s string) textBlock { return textBlock{Type: "text", Text: s} }

// mediaSource is where an image or document comes from: inline base64
// ("base64", with media_type), a URL ("url") or plain text ("text").
type mediaSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type mediaBlock struct {
	Type   string      `json:"type"` // "image" or "document"
	Source mediaSource `json:"source"`
}

type toolUseBlock struct {
	Type  string          `json:"type"` // "tool_use"
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type      string      `json:"type"` // "tool_result"
	ToolUseID string      `json:"tool_use_id"`
	Content   []textBlock `json:"content"`
	IsError   bool        `json:"is_error"`
}

type thinkingBlock struct {
	Type      string `json:"type"` // "thinking"
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type redactedThinkingBlock struct {
	Type string `json:"type"` // "redacted_thinking"
	Data string `json:"data"`
}

// toolDef declares a client tool; InputSchema is a JSON Schema object
// whose "type" is always "object".
type toolDef struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"input_schema"`
}

// toolChoice is {"type": "auto" | "any" | "none" | "tool", "name"}.
type toolChoice struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
}

type outputConfig struct {
	Format outputFormat `json:"format"`
}

type outputFormat struct {
	Type   string         `json:"type"` // "json_schema"
	Schema map[string]any `json:"schema"`
}

type thinkingConfig struct {
	Type         string `json:"type"` // "enabled"
	BudgetTokens int64  `json:"budget_tokens"`
}

// message is the answer of a call, and the "message" of a stream's
// message_start event.
type message struct {
	Model      string          `json:"model"`
	Content    []responseBlock `json:"content"`
	StopReason string          `json:"stop_reason"`
	Usage      usage           `json:"usage"`
}

// responseBlock is any content block the API answers; Type says which
// fields are set.
type responseBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"` // redacted_thinking
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

// usage counts tokens; input_tokens excludes cache reads and writes.
type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

// streamEvent is the data of one server-sent event of a streamed call;
// Type says which fields are set (message_start: Message;
// content_block_start: Index, ContentBlock; content_block_delta: Index,
// Delta; message_delta: Delta.StopReason, Usage; error: Error).
type streamEvent struct {
	Type         string        `json:"type"`
	Index        int64         `json:"index"`
	Message      message       `json:"message"`
	ContentBlock responseBlock `json:"content_block"`
	Delta        eventDelta    `json:"delta"`
	Usage        usage         `json:"usage"`
	Error        *errorDetail  `json:"error"`
}

type eventDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	PartialJSON string `json:"partial_json"`
	StopReason  string `json:"stop_reason"`
}

// errorBody is what the API answers on failure, and the data of a
// stream's error event: {"type": "error", "error": {"type", "message"}}.
type errorBody struct {
	Error *errorDetail `json:"error"`
}

type errorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}
