package offline

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/agentry/agentry/internal/llm"
)

// chooseTool applies the offline model's tool rule. It calls a tool only
// when:
//   - tools are offered, tool choice is not "none", and no tool result has
//     arrived since the last user message (so it never loops); and
//   - the last user message names the tool: its name appears as words,
//     with _ - and camelCase read as spaces ("get_weather", "get weather"
//     and "getWeather" all name get_weather); the longest named tool wins;
//   - or tool choice forces a call: "tool" calls the named tool,
//     "required" calls the named tool if any, else the tool whose
//     description is most similar to the message.
//
// It returns nil when no tool should be called.
func chooseTool(e *Embedder, req llm.ChatRequest, p prompt) *llm.Tool {
	if len(req.Tools) == 0 || p.toolTurn || req.ToolChoice.Mode == llm.ToolChoiceNone {
		return nil
	}
	if req.ToolChoice.Mode == llm.ToolChoiceTool {
		for i := range req.Tools {
			if req.Tools[i].Name == req.ToolChoice.Name {
				return &req.Tools[i]
			}
		}
		return nil
	}
	text := " " + strings.Join(nameWords(p.request), " ") + " "
	var best *llm.Tool
	bestLen := 0
	for i := range req.Tools {
		t := &req.Tools[i]
		phrase := strings.Join(nameWords(t.Name), " ")
		if phrase == "" {
			continue
		}
		if strings.Contains(text, " "+phrase+" ") && len(phrase) > bestLen {
			best, bestLen = t, len(phrase)
		}
	}
	if best != nil || req.ToolChoice.Mode != llm.ToolChoiceRequired {
		return best
	}
	q := e.Embed(p.request)
	var bestScore float32 = -2
	for i := range req.Tools {
		t := &req.Tools[i]
		if s := Cosine(q, e.Embed(strings.Join(nameWords(t.Name), " ")+" "+t.Description)); s > bestScore {
			best, bestScore = t, s
		}
	}
	return best
}

// toolRequest strips the tool's name and filler words from the user's
// message, leaving what the tool should act on: "use search_docs to find
// the refund policy" → "find the refund policy".
func toolRequest(question string, t *llm.Tool) string {
	phrase := strings.Join(nameWords(t.Name), " ")
	f := strings.Fields(question)
	// Remove the run of fields that spells the tool's name, however it
	// was written (search_docs, "search docs", searchDocs).
	for i := 0; i < len(f); i++ {
		for j := i + 1; j <= len(f) && j <= i+6; j++ {
			if strings.Join(nameWords(strings.Join(f[i:j], " ")), " ") == phrase {
				f = append(f[:i:i], f[j:]...)
				j = len(f) + 1
				i = len(f)
			}
		}
	}
	drop := map[string]bool{"use": true, "call": true, "run": true, "invoke": true, "the": true, "tool": true,
		"function": true, "please": true, "to": true, "with": true, "and": true, "can": true, "you": true, "could": true}
	for len(f) > 0 && drop[strings.ToLower(strings.Trim(f[0], ",.:;!?"))] {
		f = f[1:]
	}
	if len(f) > 0 {
		f[0] = strings.TrimLeft(f[0], ",.:;!?")
	}
	out := strings.Trim(strings.Join(f, " "), " ?.!:,")
	if out == "" {
		return strings.TrimSpace(question)
	}
	return out
}

// toolCallID is stable for the same conversation, tool and arguments.
func toolCallID(turn int, name string, args []byte) string {
	h := sha256.New()
	h.Write([]byte(strconv.Itoa(turn)))
	h.Write([]byte{0})
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(args)
	return "call_" + hex.EncodeToString(h.Sum(nil)[:12])
}
