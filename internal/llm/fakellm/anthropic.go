package fakellm

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// NewAnthropic starts a fake Anthropic messages server. URL is the origin.
func NewAnthropic(t testing.TB) *Server {
	s := newServer(t, serveAnthropic)
	s.URL = s.srv.URL
	return s
}

func serveAnthropic(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status >= 400 {
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		typ := rep.ErrorType
		if typ == "" {
			typ = "api_error"
		}
		writeJSON(w, rep.Status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": rep.ErrorMessage}})
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		writeJSON(w, 404, map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "unknown path"}})
		return
	}
	model := rep.Model
	if model == "" {
		model = "claude-fake"
	}
	stop := rep.FinishReason
	if stop == "" {
		stop = "end_turn"
		if len(rep.ToolCalls) > 0 {
			stop = "tool_use"
		}
	}
	// Anthropic counts cached and cache-written tokens apart from input_tokens.
	usage := map[string]any{"input_tokens": rep.Usage.Input - rep.Usage.Cached - rep.Usage.CacheWrite,
		"output_tokens": rep.Usage.Output, "cache_read_input_tokens": rep.Usage.Cached,
		"cache_creation_input_tokens": rep.Usage.CacheWrite}
	if streamRequested(body) {
		streamAnthropic(s, w, r, rep, model, stop, usage)
		return
	}
	var content []any
	if rep.Thinking != "" {
		content = append(content, map[string]any{"type": "thinking", "thinking": rep.Thinking, "signature": rep.ThinkingSignature})
	}
	if rep.RedactedThinking != "" {
		content = append(content, map[string]any{"type": "redacted_thinking", "data": rep.RedactedThinking})
	}
	if rep.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": rep.Text})
	}
	for _, c := range rep.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Arguments)})
	}
	writeJSON(w, 200, map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
}

func streamAnthropic(s *Server, w http.ResponseWriter, r *http.Request, rep Reply, model, stop string, usage map[string]any) {
	e := startSSE(w)
	startUsage := map[string]any{"input_tokens": usage["input_tokens"], "output_tokens": 1,
		"cache_read_input_tokens": usage["cache_read_input_tokens"], "cache_creation_input_tokens": usage["cache_creation_input_tokens"]}
	e.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_fake", "type": "message",
		"role": "assistant", "model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": startUsage}})
	idx := 0
	if rep.Thinking != "" {
		// Reasoning streams in deltas; its signature arrives last, in a
		// delta of its own, as the real API sends it.
		e.send("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
		for _, w := range strings.SplitAfter(rep.Thinking, " ") {
			e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": "thinking_delta", "thinking": w}})
		}
		e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
			"delta": map[string]any{"type": "signature_delta", "signature": rep.ThinkingSignature}})
		e.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	if rep.RedactedThinking != "" {
		e.send("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "redacted_thinking", "data": rep.RedactedThinking}})
		e.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	next := textChunks(rep)
	if rep.Text != "" || rep.Timestamps {
		e.send("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "text", "text": ""}})
		for i := 0; ; i++ {
			if rep.StallAfter > 0 && i == rep.StallAfter {
				s.hold(r)
				return
			}
			if rep.ChunkDelay > 0 && !s.wait(r, rep.ChunkDelay) {
				return
			}
			text, ok := next(i) // after the delay, so timestamps are send times
			if !ok {
				break
			}
			e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": "text_delta", "text": text}})
		}
		e.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	for _, c := range rep.ToolCalls {
		e.send("content_block_start", map[string]any{"type": "content_block_start", "index": idx,
			"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}})
		args := c.Arguments
		for len(args) > 0 {
			n := min(7, len(args))
			e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": args[:n]}})
			args = args[n:]
		}
		e.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	e.send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": usage["output_tokens"]}})
	e.send("message_stop", map[string]any{"type": "message_stop"})
}
