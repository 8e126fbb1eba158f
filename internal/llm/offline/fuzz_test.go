package offline

import (
	"context"
	"encoding/json"
	"strings"
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

// FuzzPromptParsers feeds arbitrary prompt text (it comes from users and
// documents) to the instruction splitter, the extractors, the grading
// section reader and the key reader: no panics, and material is always
// text of the input.
func FuzzPromptParsers(f *testing.F) {
	f.Add("Who is the CEO? Jane is CEO.")
	f.Add("Question: Who?\n\nPassages:\nDr. Ada Lovelace met Acme Corp, Inc. on March 3, 2026 for $5M (12%).")
	f.Add("Prompt:\nx\n\nReference output:\ny\n\nResponse to evaluate:\nAnswer: z")
	f.Add("Return a JSON object with the keys \"a\" (list), \"b\" (x, y or z) and {\"type\":\"object\",\"properties\":{}}")
	f.Fuzz(func(t *testing.T, text string) {
		_, _, mat := splitUserText(text)
		// Material is the input's own words, in order (line breaks
		// within a paragraph may become spaces, list markers go).
		squash := func(s string) string {
			return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
				if strings.ContainsRune("-*•#>", r) {
					return ' '
				}
				return r
			}, s)), " ")
		}
		norm := squash(text)
		for _, m := range mat {
			for _, s := range splitSentences(m) {
				if s = squash(s); !strings.Contains(norm, s) {
					t.Fatalf("material %q is not in the input", s)
				}
			}
		}
		_ = factsOf(text)
		_, _, _ = people(text), organizations(text), dates(text)
		_, _, _ = moneyAmounts(text), phones(text), title(text, splitSentences(text))
		if j, err := grade(judgeSections(text)); err == nil && (j.score < 0 || j.score > 1) {
			t.Fatalf("score %v out of range", j.score)
		}
		if s := schemaFromInstructions(text); s != nil && !json.Valid(s) {
			t.Fatalf("invalid schema %s", s)
		}
	})
}
