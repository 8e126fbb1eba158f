package offline

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentry/agentry/internal/llm"
)

// FuzzSchemaGenerate feeds arbitrary schemas (they come from agent
// definitions and API callers) to the generator. It must never panic or
// hang, and whatever it returns without error must be valid against the
// schema by the validator.
func FuzzSchemaGenerate(f *testing.F) {
	for _, s := range testSchemas {
		f.Add([]byte(s))
	}
	for _, s := range []string{`true`, `false`, `{}`, `{"$ref":"#"}`, `{"type":["integer","null"],"minimum":1e308}`,
		`{"items":{"$ref":"#"},"minItems":3}`, `{"anyOf":[{"$ref":"#/anyOf/0"}]}`, `{"enum":[]}`, `{"type":"number","multipleOf":1e-320}`,
		`{"properties":{"a":{"$ref":"#/properties/a"}},"required":["a"]}`, `{"type":"string","pattern":"(","minLength":2}`} {
		f.Add([]byte(s))
	}
	fill := newFiller(NewEmbedder(64), prompt{question: "Order ORD-1234 for ana@example.org is urgent", text: policyDoc,
		sentences: splitSentences(policyDoc)})
	f.Fuzz(func(t *testing.T, schema []byte) {
		out, err := generateJSON(schema, fill)
		if err != nil {
			return
		}
		if err := validateJSON(schema, out); err != nil {
			t.Fatalf("generated %s for schema %s, invalid: %v", out, schema, err)
		}
	})
}

// FuzzOfflineChat drives the whole model with arbitrary prompt text and
// tool schemas: no panics, and tool arguments always valid.
func FuzzOfflineChat(f *testing.F) {
	f.Add("Use get_weather for Paris", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)
	f.Add("Summarize:\nOne. Two! Three? Four.", `{}`)
	f.Add("", `null`)
	f.Fuzz(func(t *testing.T, text, params string) {
		tool := llm.Tool{Name: "get_weather", Parameters: json.RawMessage(params)}
		resp, err := New().Chat(context.Background(), llm.ChatRequest{Tools: []llm.Tool{tool},
			Messages: []llm.Message{llm.System(text), llm.User(text)}})
		if err != nil {
			return
		}
		for _, c := range resp.ToolCalls() {
			if len(tool.Parameters) > 0 && params != "null" {
				if err := validateJSON(tool.Parameters, c.Arguments); err != nil {
					t.Fatalf("invalid tool arguments %s: %v", c.Arguments, err)
				}
			}
		}
	})
}
