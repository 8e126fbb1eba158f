package fakellm

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// NewOpenAI starts a fake OpenAI-compatible server. URL ends in /v1.
func NewOpenAI(t testing.TB) *Server {
	s := newServer(t, serveOpenAI)
	s.URL = s.srv.URL + "/v1"
	return s
}

func serveOpenAI(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply) {
	if rep.Status >= 400 {
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		typ := rep.ErrorType
		if typ == "" {
			typ = "server_error"
		}
		writeJSON(w, rep.Status, map[string]any{"error": map[string]any{
			"message": rep.ErrorMessage, "type": typ, "param": nil, "code": typ}})
		return
	}
	model := rep.Model
	if model == "" {
		model = "fake-model"
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/embeddings"):
		data := make([]map[string]any, len(rep.Embeddings))
		for i, v := range rep.Embeddings {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		writeJSON(w, 200, map[string]any{"object": "list", "model": model, "data": data,
			"usage": map[string]any{"prompt_tokens": rep.Usage.Input, "total_tokens": rep.Usage.Input}})
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		if streamRequested(body) {
			streamOpenAI(s, w, r, rep, model)
			return
		}
		msg := map[string]any{"role": "assistant", "content": rep.Text, "refusal": nil}
		finish := rep.FinishReason
		if finish == "" {
			finish = "stop"
		}
		if len(rep.ToolCalls) > 0 {
			var calls []map[string]any
			for _, c := range rep.ToolCalls {
				calls = append(calls, map[string]any{"id": c.ID, "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
			}
			msg["tool_calls"] = calls
			if rep.Text == "" {
				msg["content"] = nil
			}
			if rep.FinishReason == "" {
				finish = "tool_calls"
			}
		}
		writeJSON(w, 200, map[string]any{"id": "chatcmpl-fake", "object": "chat.completion",
			"created": time.Now().Unix(), "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
			"usage":   openAIUsage(rep.Usage)})
	default:
		writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "unknown path " + r.URL.Path, "type": "not_found"}})
	}
}

func openAIUsage(u Usage) map[string]any {
	return map[string]any{"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Input + u.Output,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.Cached}}
}

func streamOpenAI(s *Server, w http.ResponseWriter, r *http.Request, rep Reply, model string) {
	e := startSSE(w)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": time.Now().Unix(),
			"model": model, "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	e.send("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	next := textChunks(rep)
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
		e.send("", chunk(map[string]any{"content": text}, nil))
	}
	for i, c := range rep.ToolCalls {
		e.send("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
		args := c.Arguments
		for len(args) > 0 {
			n := min(7, len(args))
			e.send("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i,
				"function": map[string]any{"arguments": args[:n]}}}}, nil))
			args = args[n:]
		}
	}
	finish := rep.FinishReason
	if finish == "" {
		finish = "stop"
		if len(rep.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	e.send("", chunk(map[string]any{}, finish))
	e.send("", map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": time.Now().Unix(),
		"model": model, "choices": []any{}, "usage": openAIUsage(rep.Usage)})
	e.send("", "[DONE]")
}
