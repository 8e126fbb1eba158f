package llm

import (
	"encoding/json"
	"strings"
)

// Role says who wrote a message.
type Role string

// The four roles every provider understands in some form.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// PartType names the kind of a content part.
type PartType string

// Content part kinds. Documents cover PDFs and plain-text files; adapters
// send them the way their wire protocol expects (a file part, a document
// block, or inline text).
const (
	PartText     PartType = "text"
	PartImage    PartType = "image"
	PartDocument PartType = "document"
)

// Part is one piece of a message's content.
type Part struct {
	Type PartType `json:"type"`
	// Text is the text of a text part. For a document it may carry text
	// already extracted from the file, which models without document input
	// (and the offline model) read instead of Data.
	Text string `json:"text,omitempty"`
	// MIMEType of Data or URL: image/png, image/jpeg, application/pdf, text/plain…
	MIMEType string `json:"mime_type,omitempty"`
	// Data holds the raw bytes of an inline image or document.
	Data []byte `json:"data,omitempty"`
	// URL refers to remote content, for providers that fetch it themselves.
	URL string `json:"url,omitempty"`
	// Name is a document's file name, shown to the model.
	Name string `json:"name,omitempty"`
}

// TextPart returns a text part.
func TextPart(text string) Part { return Part{Type: PartText, Text: text} }

// ImagePart returns an inline image part.
func ImagePart(mimeType string, data []byte) Part {
	return Part{Type: PartImage, MIMEType: mimeType, Data: data}
}

// DocumentPart returns an inline document part. text, when not empty, is the
// document's extracted text.
func DocumentPart(name, mimeType string, data []byte, text string) Part {
	return Part{Type: PartDocument, Name: name, MIMEType: mimeType, Data: data, Text: text}
}

// ToolCall is a model's request to run one tool.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the JSON object the model passed; it is kept raw because
	// models do produce invalid JSON and the executor decides what to do.
	Arguments json.RawMessage `json:"arguments"`
}

// Message is one turn of a conversation.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts,omitempty"`
	// ToolCalls are set on assistant messages that asked for tools.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and ToolName identify which call a tool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	// IsError marks a tool message whose content is an error report.
	IsError bool `json:"is_error,omitempty"`
	// Thinking holds the reasoning blocks of an assistant message as the
	// provider returned them. Callers pass the message back unchanged in
	// the next round of a tool-calling loop: providers that sign their
	// reasoning (Anthropic) refuse a tool result whose preceding turn lost
	// its thinking blocks.
	Thinking []ThinkingBlock `json:"thinking,omitempty"`
}

// ThinkingBlock is one block of a model's reasoning. Its fields are opaque
// to everything but the adapter that produced it.
type ThinkingBlock struct {
	// Text is the visible reasoning; Signature proves it unaltered.
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	// Redacted holds encrypted reasoning the provider did not show.
	Redacted string `json:"redacted,omitempty"`
}

// System returns a system message.
func System(text string) Message { return Message{Role: RoleSystem, Parts: []Part{TextPart(text)}} }

// User returns a user message made of text followed by extra parts.
func User(text string, parts ...Part) Message {
	m := Message{Role: RoleUser}
	if text != "" {
		m.Parts = append(m.Parts, TextPart(text))
	}
	m.Parts = append(m.Parts, parts...)
	return m
}

// Assistant returns an assistant message with text only.
func Assistant(text string) Message {
	return Message{Role: RoleAssistant, Parts: []Part{TextPart(text)}}
}

// ToolResult returns the tool message answering call.
func ToolResult(call ToolCall, content string, isError bool) Message {
	return Message{Role: RoleTool, ToolCallID: call.ID, ToolName: call.Name,
		Parts: []Part{TextPart(content)}, IsError: isError}
}

// Text concatenates the text parts (and extracted document text) of m.
func (m Message) Text() string {
	switch len(m.Parts) {
	case 0:
		return ""
	case 1:
		return m.Parts[0].Text
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// HasMedia reports whether m carries image or document bytes or URLs.
func (m Message) HasMedia() bool {
	for _, p := range m.Parts {
		if p.Type == PartImage || p.Type == PartDocument {
			return true
		}
	}
	return false
}
