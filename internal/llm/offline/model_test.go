package offline

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/llm"
)

const policyDoc = `Customers may request a full refund within 30 days of purchase.
Refunds are paid to the original payment method within five business days.
Standard shipping is free on orders above 50 euros.
Our support team answers email within one business day.`

func chat(t *testing.T, req llm.ChatRequest) *llm.ChatResponse {
	t.Helper()
	resp, err := New().Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestAnswersFromContext(t *testing.T) {
	resp := chat(t, llm.ChatRequest{Messages: []llm.Message{
		llm.System("Answer using the policy below.\n" + policyDoc),
		llm.User("How many days do I have to ask for a refund?"),
	}})
	got := resp.Text()
	if !strings.Contains(got, "30 days") {
		t.Errorf("answer %q lacks the refund sentence", got)
	}
	if strings.Contains(got, "shipping") {
		t.Errorf("answer %q includes an irrelevant sentence", got)
	}
	if resp.Usage.InputTokens <= 0 || resp.Usage.OutputTokens <= 0 || resp.FinishReason != llm.FinishStop {
		t.Errorf("usage/finish: %+v %s", resp.Usage, resp.FinishReason)
	}
}

func TestDocumentPartsAreContext(t *testing.T) {
	resp := chat(t, llm.ChatRequest{Messages: []llm.Message{
		llm.User("When does support answer emails?", llm.DocumentPart("policy.txt", "text/plain", []byte(policyDoc), "")),
	}})
	if !strings.Contains(resp.Text(), "one business day") {
		t.Errorf("answer %q", resp.Text())
	}
}

func TestSummariseByLeadingSentences(t *testing.T) {
	resp := chat(t, llm.ChatRequest{Messages: []llm.Message{
		llm.User("Summarize in two sentences:\n" + policyDoc),
	}})
	want := "Customers may request a full refund within 30 days of purchase. Refunds are paid to the original payment method within five business days."
	if resp.Text() != want {
		t.Errorf("summary %q", resp.Text())
	}
}

func TestNoContextIsHonest(t *testing.T) {
	resp := chat(t, llm.ChatRequest{Messages: []llm.Message{llm.User("What is the capital of France?")}})
	// The question itself is the only text; the model must not invent,
	// nor echo the question back as if it were an answer.
	if strings.Contains(resp.Text(), "Paris") || strings.Contains(resp.Text(), "capital") ||
		!strings.HasPrefix(resp.Text(), "I have nothing to answer from") {
		t.Errorf("offline model without material: %q", resp.Text())
	}
}

func TestDeterministic(t *testing.T) {
	req := llm.ChatRequest{Messages: []llm.Message{llm.System(policyDoc), llm.User("How is shipping priced?")}}
	a, b := chat(t, req), chat(t, req)
	if a.Text() != b.Text() {
		t.Error("same request, different answers")
	}
}

func TestJSONObjectMode(t *testing.T) {
	resp := chat(t, llm.ChatRequest{ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONObject},
		Messages: []llm.Message{llm.System(policyDoc), llm.User("How long do refunds take?")}})
	var obj map[string]string
	if err := json.Unmarshal([]byte(resp.Text()), &obj); err != nil || !strings.Contains(obj["answer"], "five business days") {
		t.Errorf("json mode: %q %v", resp.Text(), err)
	}
}

var testSchemas = map[string]string{
	"answer+confidence": `{"type":"object","properties":{"answer":{"type":"string"},"confidence":{"type":"number","minimum":0,"maximum":1}},"required":["answer","confidence"],"additionalProperties":false}`,
	"classification":    `{"type":"object","properties":{"category":{"type":"string","enum":["billing","shipping","refund"]},"urgent":{"type":"boolean"}},"required":["category","urgent"]}`,
	"lists":             `{"type":"object","properties":{"keywords":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":4,"uniqueItems":true},"highlights":{"type":"array","items":{"type":"string","maxLength":40}}},"required":["keywords","highlights"]}`,
	"formats":           `{"type":"object","properties":{"contact":{"type":"string","format":"email"},"site":{"type":"string","format":"uri"},"day":{"type":"string","format":"date"},"at":{"type":"string","format":"date-time"},"id":{"type":"string","format":"uuid"}},"required":["contact","site","day","at","id"]}`,
	"numbers":           `{"type":"object","properties":{"days":{"type":"integer","exclusiveMinimum":0,"maximum":365},"score":{"type":"number","multipleOf":0.5,"minimum":1},"count":{"type":"integer","multipleOf":7,"minimum":10,"maximum":20}},"required":["days","score","count"]}`,
	"nested+refs":       `{"$defs":{"item":{"type":"object","properties":{"name":{"type":"string","minLength":3},"qty":{"type":"integer","minimum":1}},"required":["name","qty"]}},"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/item"},"minItems":2}},"required":["items"]}`,
	"nullable+anyOf":    `{"type":"object","properties":{"note":{"type":["string","null"]},"value":{"anyOf":[{"type":"integer","minimum":100},{"type":"string","pattern":"^[a-z]+$"}]}},"required":["note","value"]}`,
	"oneOf":             `{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"},"x":{"type":"integer"}},"required":["kind","x"]}]}`,
	"allOf":             `{"allOf":[{"type":"object","properties":{"title":{"type":"string","maxLength":20}},"required":["title"]},{"properties":{"summary":{"type":"string"}},"required":["summary"]}]}`,
	"pattern":           `{"type":"object","properties":{"order_id":{"type":"string","pattern":"^ORD-[0-9]{4}$"}},"required":["order_id"]}`,
	"tuple":             `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false,"minItems":2}`,
	"top-level string":  `{"type":"string","minLength":5,"maxLength":12}`,
	"recursive":         `{"type":"object","properties":{"label":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},"required":["label"]}`,
	"minProperties":     `{"type":"object","additionalProperties":{"type":"integer"},"minProperties":2}`,
}

func TestJSONSchemaOutputIsValid(t *testing.T) {
	ctx := policyDoc + "\nOrder ORD-1234 was placed on 2026-03-01 by ana@example.org via https://shop.example.com/orders."
	for name, schema := range testSchemas {
		t.Run(name, func(t *testing.T) {
			resp := chat(t, llm.ChatRequest{
				ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: "out", Schema: json.RawMessage(schema)},
				Messages:       []llm.Message{llm.System(ctx), llm.User("The refund for my order is urgent. How many days do I have?")},
			})
			if err := validateJSON([]byte(schema), []byte(resp.Text())); err != nil {
				t.Errorf("output %s invalid: %v", resp.Text(), err)
			}
		})
	}
}

func TestJSONSchemaFillsFromContent(t *testing.T) {
	schema := testSchemas["classification"]
	resp := chat(t, llm.ChatRequest{
		ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema, Schema: json.RawMessage(schema)},
		Messages:       []llm.Message{llm.User("This is about a refund and it is urgent.")},
	})
	var v struct {
		Category string `json:"category"`
		Urgent   bool   `json:"urgent"`
	}
	_ = json.Unmarshal([]byte(resp.Text()), &v)
	if v.Category != "refund" || !v.Urgent {
		t.Errorf("classification from content: %s", resp.Text())
	}
	resp = chat(t, llm.ChatRequest{
		ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema, Schema: json.RawMessage(testSchemas["formats"])},
		Messages:       []llm.Message{llm.System("Write to ana@example.org or see https://shop.example.com/help, updated 2026-03-01."), llm.User("Extract the contact details.")},
	})
	for _, want := range []string{"ana@example.org", "https://shop.example.com/help", "2026-03-01"} {
		if !strings.Contains(resp.Text(), want) {
			t.Errorf("formats output %s lacks %s", resp.Text(), want)
		}
	}
	resp = chat(t, llm.ChatRequest{
		ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema, Schema: json.RawMessage(testSchemas["pattern"])},
		Messages:       []llm.Message{llm.User("Where is order ORD-4821?")},
	})
	if resp.Text() != `{"order_id":"ORD-4821"}` {
		t.Errorf("pattern from content: %s", resp.Text())
	}
}

func TestUnsatisfiableSchemaIsAnError(t *testing.T) {
	for _, schema := range []string{
		`{"type":"integer","minimum":5,"maximum":4}`,
		`{"type":"string","minLength":10,"maxLength":2}`,
		`false`,
		`{"$ref":"#/nowhere"}`,
		`{"type":"object","properties":{"a":false},"required":["a"]}`,
		`[1,2]`,
	} {
		_, err := New().Chat(context.Background(), llm.ChatRequest{
			ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema, Schema: json.RawMessage(schema)},
			Messages:       []llm.Message{llm.User("hello")},
		})
		if !errors.Is(err, ErrSchema) {
			t.Errorf("schema %s: err = %v", schema, err)
		}
	}
}

var weatherTool = llm.Tool{Name: "get_weather", Description: "Current weather for a city",
	Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city","unit"]}`)}
var searchTool = llm.Tool{Name: "search_docs", Description: "Search the knowledge base",
	Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":10}},"required":["query"]}`)}

func TestToolRule(t *testing.T) {
	tools := []llm.Tool{weatherTool, searchTool}
	// Named tool → call with arguments from the message.
	resp := chat(t, llm.ChatRequest{Tools: tools, Messages: []llm.Message{llm.User("Use get weather for Lisbon in fahrenheit please")}})
	calls := resp.ToolCalls()
	if len(calls) != 1 || calls[0].Name != "get_weather" || resp.FinishReason != llm.FinishToolCalls {
		t.Fatalf("calls = %+v", calls)
	}
	var args map[string]string
	_ = json.Unmarshal(calls[0].Arguments, &args)
	if args["city"] != "Lisbon" || args["unit"] != "fahrenheit" {
		t.Errorf("args = %s", calls[0].Arguments)
	}
	if err := validateJSON(weatherTool.Parameters, calls[0].Arguments); err != nil {
		t.Error(err)
	}
	// Query argument is the request without the tool mention.
	resp = chat(t, llm.ChatRequest{Tools: tools, Messages: []llm.Message{llm.User("Please call searchDocs to find the refund policy")}})
	if c := resp.ToolCalls(); len(c) != 1 || !strings.Contains(string(c[0].Arguments), `"query":"find the refund policy"`) {
		t.Errorf("search call = %+v", resp.ToolCalls())
	}
	// Not named → no call.
	resp = chat(t, llm.ChatRequest{Tools: tools, Messages: []llm.Message{llm.User("What's it like outside in Lisbon?")}})
	if len(resp.ToolCalls()) != 0 {
		t.Errorf("unnamed tool called: %+v", resp.ToolCalls())
	}
	// Tool choice none wins over naming.
	resp = chat(t, llm.ChatRequest{Tools: tools, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceNone},
		Messages: []llm.Message{llm.User("get_weather for Lisbon")}})
	if len(resp.ToolCalls()) != 0 {
		t.Error("tool called despite tool choice none")
	}
	// Required picks the most similar tool.
	resp = chat(t, llm.ChatRequest{Tools: tools, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceRequired},
		Messages: []llm.Message{llm.User("Look in the knowledge base for shipping costs")}})
	if c := resp.ToolCalls(); len(c) != 1 || c[0].Name != "search_docs" {
		t.Errorf("required: %+v", c)
	}
	// After a tool result, the model answers from it instead of calling again.
	call := calls[0]
	resp = chat(t, llm.ChatRequest{Tools: tools, Messages: []llm.Message{
		llm.User("Use get weather for Lisbon in fahrenheit please"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}},
		llm.ToolResult(call, `Lisbon: sunny, 75 F, light wind from the north.`, false),
	}})
	if len(resp.ToolCalls()) != 0 || !strings.Contains(resp.Text(), "75 F") {
		t.Errorf("after tool result: %q %+v", resp.Text(), resp.ToolCalls())
	}
}

func TestToolLoopWithOfflineModel(t *testing.T) {
	ran := 0
	res, err := llm.RunToolLoop(context.Background(), New(), llm.ChatRequest{
		Tools:    []llm.Tool{searchTool},
		Messages: []llm.Message{llm.User("search_docs: how long do refunds take")},
	}, func(ctx context.Context, c llm.ToolCall) (string, error) {
		ran++
		return "Refunds are paid within five business days.", nil
	}, llm.ToolLoopOptions{})
	if err != nil || ran != 1 || res.Rounds != 2 || !strings.Contains(res.Response.Text(), "five business days") {
		t.Fatalf("loop: err=%v ran=%d rounds=%d text=%q", err, ran, res.Rounds, res.Response.Text())
	}
	if len(res.Calls) != 1 || !res.Calls[0].Succeeded || res.Usage.InputTokens == 0 {
		t.Errorf("records %+v usage %+v", res.Calls, res.Usage)
	}
}

func TestStreamReassemblesAndEndsWithUsage(t *testing.T) {
	req := llm.ChatRequest{Messages: []llm.Message{llm.System(policyDoc), llm.User("How is shipping priced?")}}
	var sb strings.Builder
	var deltas int
	var last llm.Delta
	resp, err := New().Stream(context.Background(), req, func(d llm.Delta) error {
		sb.WriteString(d.Text)
		deltas++
		last = d
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sb.String() != resp.Text() || deltas < 3 || last.Usage == nil || *last.Usage != resp.Usage {
		t.Errorf("stream %q vs %q, %d deltas, last %+v", sb.String(), resp.Text(), deltas, last)
	}
	// Tool calls stream as fragments that reassemble to the arguments.
	var args strings.Builder
	resp, err = New().Stream(context.Background(), llm.ChatRequest{Tools: []llm.Tool{weatherTool},
		Messages: []llm.Message{llm.User("get_weather in Porto, celsius")}}, func(d llm.Delta) error {
		if d.ToolCall != nil {
			args.WriteString(d.ToolCall.ArgumentsDelta)
		}
		return nil
	})
	if err != nil || args.String() != string(resp.ToolCalls()[0].Arguments) {
		t.Errorf("tool stream %q vs %s (%v)", args.String(), resp.ToolCalls()[0].Arguments, err)
	}
	// The consumer can abort.
	stop := errors.New("enough")
	if _, err := New().Stream(context.Background(), req, func(llm.Delta) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("abort err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Stream(ctx, req, func(llm.Delta) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancel err = %v", err)
	}
}

func TestStopAndMaxTokens(t *testing.T) {
	req := llm.ChatRequest{Messages: []llm.Message{llm.User("Summarize:\n" + policyDoc)}}
	req.MaxTokens = 8
	resp := chat(t, req)
	if resp.FinishReason != llm.FinishLength || llm.EstimateTokens(resp.Text()) > 8 {
		t.Errorf("max tokens: %q %s", resp.Text(), resp.FinishReason)
	}
	req.MaxTokens = 0
	req.Stop = []string{"purchase"}
	if got := chat(t, req).Text(); strings.Contains(got, "purchase") || !strings.HasPrefix(got, "Customers") {
		t.Errorf("stop: %q", got)
	}
}

func TestOfflineEmbed(t *testing.T) {
	resp, err := New().Embed(context.Background(), llm.EmbedRequest{Input: []string{"refund policy", "volcano"}, Dimensions: 256})
	if err != nil || len(resp.Vectors) != 2 || len(resp.Vectors[0]) != 256 || resp.Usage.InputTokens == 0 {
		t.Fatalf("%+v %v", resp, err)
	}
	if _, err := New().Embed(context.Background(), llm.EmbedRequest{Input: []string{"x"}, Dimensions: 3}); !errors.Is(err, llm.ErrUnsupported) {
		t.Errorf("bad dims err = %v", err)
	}
}

func TestLeadingQuestionThenMaterial(t *testing.T) {
	resp, err := New().Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{
		llm.System("You are a helpful assistant."),
		llm.User("Where does the ferry leave from? The ferry leaves from Pier 4 at nine. Tickets cost five euros. The café opens at eight."),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Text(), "Pier 4") {
		t.Errorf("answer %q does not come from the material after the question", resp.Text())
	}
}
