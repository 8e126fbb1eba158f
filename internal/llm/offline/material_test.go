package offline

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/llm"
)

const acme = "Acme Corp reported revenue of $5.2 million for Q3 2025, up 12% from a year earlier. " +
	"CEO Jane Doe said on March 3, 2026 that the company will open an office in Berlin. " +
	"The board, chaired by Omar Haddad, approved the plan. Globex Ltd remains the main competitor."

// TestInstructionsAreNeverTheAnswer: system prompts and instruction
// scaffolding steer; they never come back as the answer.
func TestInstructionsAreNeverTheAnswer(t *testing.T) {
	for _, c := range []struct {
		system, user string
		format       llm.FormatType
	}{
		{"You summarise documents faithfully, without adding facts.", "Summarise the following text in a few short paragraphs, then list its key points.\n\n" + acme, ""},
		{"You extract structured data. Reply with one JSON object and nothing else.", "From the text below, extract a JSON object with the keys \"title\" and \"summary\" (one sentence).\n\n" + acme, llm.FormatJSONObject},
		{"You write short, factual periodic reports with a summary, highlights and open questions.", "Write this period's report.\n\nContext:\n", ""},
		{"You write short, factual periodic reports with a summary, highlights and open questions.", "Write this period's report.\n\nContext:\n" + acme, ""},
		{"You are a helpful assistant. Answer clearly and concisely.", "Summarise: " + acme, ""},
		{"Always answer in English. Be concise.", "Question: Who chairs the board?\n\nPassages:\n" + acme, ""},
	} {
		resp := chat(t, llm.ChatRequest{ResponseFormat: llm.ResponseFormat{Type: c.format},
			Messages: []llm.Message{llm.System(c.system), llm.User(c.user)}})
		out := resp.Text()
		first := strings.SplitN(c.user, "\n", 2)[0]
		for _, leak := range append(splitSentences(c.system), strings.TrimSuffix(first, ":")) {
			if leak != "" && strings.Contains(out, leak) {
				t.Errorf("answer quotes its instructions %q: %s", leak, out)
			}
		}
	}
}

func TestSplitUserText(t *testing.T) {
	for _, c := range []struct{ in, question, material string }{
		{"Who is the CEO? Jane is CEO.", "Who is the CEO?", "Jane is CEO."},
		{"What is the capital of France?", "What is the capital of France?", ""},
		{"Question: Who leads it?\n\nPassages:\nOmar leads it.", "Who leads it?", "Omar leads it."},
		{"Summarise this: Sales rose. Costs fell.", "", "Sales rose. Costs fell."},
		{"Write this period's report.\n\nContext:\n", "", ""},
		{"Sales rose in May.", "", "Sales rose in May."},
		// Imperatives inside the material are material; only those
		// addressing the model steer.
		{"What did Bob ask? Bob wrote: thanks for the call. Please send the invoice by Friday. Summarise it.", "What did Bob ask?",
			"Bob wrote: thanks for the call.\nPlease send the invoice by Friday."},
	} {
		_, q, m := splitUserText(c.in)
		if q != c.question || strings.Join(m, "\n") != c.material {
			t.Errorf("%q: question %q material %q", c.in, q, m)
		}
	}
}

func TestExtractors(t *testing.T) {
	text := "Dr. Ada Lovelace met Charles Babbage at the University of London on 5 June 1833. " +
		"Acme Corp, Inc. paid $1.2 million (up 15%) on 2024-02-29. Omar said the Q3 2025 numbers were fine. " +
		"Write to ops@example.com or call +44 20 7946 0958."
	if got := strings.Join(people(text), "|"); got != "Ada Lovelace|Charles Babbage|Omar" {
		t.Errorf("people %q", got)
	}
	if got := strings.Join(organizations(text), "|"); got != "University of London|Acme Corp, Inc" && got != "University of London|Acme Corp" {
		t.Errorf("organizations %q", got)
	}
	if got := strings.Join(dates(text), "|"); got != "1833-06-05|2024-02-29|Q3 2025" {
		t.Errorf("dates %q", got)
	}
	if got := strings.Join(moneyAmounts(text), "|"); got != "$1.2 million" {
		t.Errorf("money %q", got)
	}
	if got := strings.Join(percentages(text), "|"); got != "15%" {
		t.Errorf("percent %q", got)
	}
	if got := strings.Join(phones(text), "|"); got != "+44 20 7946 0958" {
		t.Errorf("phones %q", got)
	}
}

// TestJSONFieldsByNameAndDescription: JSON mode fills the keys the
// instructions list, and a schema's fields by name and description.
func TestJSONFieldsByNameAndDescription(t *testing.T) {
	resp := chat(t, llm.ChatRequest{ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONObject},
		Messages: []llm.Message{llm.System("You convert text into JSON payloads."),
			llm.User("Convert the following into a JSON object with the keys \"summary\", \"people\" (list of names) and \"priority\" (low, medium or high).\n\nThe outage is high priority. Jane Doe is on call.")}})
	var v struct {
		Summary  string   `json:"summary"`
		People   []string `json:"people"`
		Priority string   `json:"priority"`
	}
	if err := json.Unmarshal([]byte(resp.Text()), &v); err != nil || v.Priority != "high" || len(v.People) != 1 || v.People[0] != "Jane Doe" || !strings.HasPrefix(v.Summary, "The outage") {
		t.Errorf("keys from instructions: %s %v", resp.Text(), err)
	}
	schema := `{"type":"object","properties":{"contact_email":{"type":"string"},"phone":{"type":["string","null"]},"company":{"type":"string"},"amount":{"type":"string"},"deadline":{"type":"string","description":"ISO date"},"website":{"type":["string","null"]}},"required":["contact_email","phone","company","amount","deadline","website"]}`
	resp = chat(t, llm.ChatRequest{ResponseFormat: llm.ResponseFormat{Type: llm.FormatJSONSchema, Schema: json.RawMessage(schema)},
		Messages: []llm.Message{llm.User("Extract the invoice fields.\n\nGlobex Ltd owes $4,300 by March 9, 2026. Questions to billing@globex.example.")}})
	want := `{"amount":"$4,300","company":"Globex Ltd","contact_email":"billing@globex.example","deadline":"2026-03-09","phone":null,"website":null}`
	if resp.Text() != want {
		t.Errorf("schema fields:\n got %s\nwant %s", resp.Text(), want)
	}
}

func judgeRequest(prompt, reference, response string, format llm.FormatType, schema string) llm.ChatRequest {
	user := "Prompt:\n" + prompt + "\n\n"
	if reference != "" {
		user += "Reference output:\n" + reference + "\n\n"
	}
	user += "Response to evaluate:\n" + response
	req := llm.ChatRequest{Messages: []llm.Message{llm.System("You are an impartial evaluator. Judge the response. Give a score between 0 and 1 and a short reasoning."), llm.User(user)}}
	req.ResponseFormat = llm.ResponseFormat{Type: format, Schema: json.RawMessage(schema)}
	return req
}

// TestJudgeExplainsOrAbstains: graded by overlap with the reference or the
// prompt's facts, explained; without either, ErrCannotJudge.
func TestJudgeExplainsOrAbstains(t *testing.T) {
	schema := `{"type":"object","properties":{"score":{"type":"number","minimum":0,"maximum":1},"reasoning":{"type":"string"}},"required":["score","reasoning"],"additionalProperties":false}`
	var v struct {
		Score     float64 `json:"score"`
		Reasoning string  `json:"reasoning"`
	}
	resp := chat(t, judgeRequest("What is the capital of France?", "Paris is the capital of France.", "The capital of France is Paris.", llm.FormatJSONSchema, schema))
	if err := json.Unmarshal([]byte(resp.Text()), &v); err != nil || v.Score != 1 || !strings.Contains(v.Reasoning, "reference output") || strings.Contains(v.Reasoning, "impartial") {
		t.Errorf("with a reference: %s", resp.Text())
	}
	resp = chat(t, judgeRequest("Who chairs the board? "+acme, "", "Omar Haddad chairs the board.", llm.FormatJSONSchema, schema))
	if err := json.Unmarshal([]byte(resp.Text()), &v); err != nil || v.Score < 0.8 || !strings.Contains(v.Reasoning, "prompt's text") {
		t.Errorf("with facts: %s", resp.Text())
	}
	wrong := chat(t, judgeRequest("Who chairs the board? "+acme, "", "The weather in Lisbon is sunny today.", llm.FormatJSONSchema, schema))
	var w struct{ Score float64 }
	_ = json.Unmarshal([]byte(wrong.Text()), &w)
	if w.Score >= v.Score || w.Score > 0.3 {
		t.Errorf("an unsupported answer scored %s", wrong.Text())
	}
	// JSON expected but not given halves the score, and says so.
	resp = chat(t, judgeRequest("Return JSON with the key name. Jane Doe signed.", "{\"name\":\"Jane Doe\"}", "name: Jane Doe", llm.FormatJSONSchema, schema))
	if err := json.Unmarshal([]byte(resp.Text()), &v); err != nil || !strings.Contains(v.Reasoning, "not valid JSON") {
		t.Errorf("format check: %s", resp.Text())
	}
	// Nothing to judge against.
	_, err := New().Chat(context.Background(), judgeRequest("What is the capital of France?", "", "Paris.", llm.FormatJSONSchema, schema))
	if !errors.Is(err, ErrCannotJudge) {
		t.Errorf("no basis: err = %v", err)
	}
	// Unstructured judges read the schema from the instructions.
	req := judgeRequest("What is 2+2?", "4", "It is 4.", llm.FormatJSONObject, "")
	req.Messages[0] = llm.System(req.Messages[0].Text() + " Answer with a JSON object only, valid against this schema: " + schema)
	resp = chat(t, req)
	if err := validateJSON([]byte(schema), []byte(resp.Text())); err != nil {
		t.Errorf("JSON mode judge: %s %v", resp.Text(), err)
	}
}

func TestJudgeSections(t *testing.T) {
	sec := judgeSections("Prompt:\nQuestion: Who chairs the board?\nAnswer: in one line.\nContext: Omar chairs it.\n\n" +
		"Reference output:\nOmar.\n\nResponse to evaluate:\nAnswer: Omar chairs the board.\nReference: none")
	if !strings.Contains(sec["prompt"], "Who chairs the board?") || !strings.Contains(sec["prompt"], "Omar chairs it.") ||
		sec["reference"] != "Omar." || sec["response"] != "Answer: Omar chairs the board.\nReference: none" {
		t.Errorf("sections %q", sec)
	}
}
