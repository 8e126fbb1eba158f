package openaicompat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/llm"
)

// The wire format of chat completions and embeddings, the part of the
// OpenAI API this provider speaks. It was the official SDK until that SDK
// was found to add 24 MB to the binary (its generated types cover the
// whole API) for three JSON calls; see docs/performance.md.

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Tools               []chatTool      `json:"tools,omitempty"`
	ToolChoice          any             `json:"tool_choice,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
	MaxCompletionTokens *int            `json:"max_completion_tokens,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	Stop                []string        `json:"stop,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is one message; Content is a string or a list of parts.
type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content,omitempty"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
	File     *filePart `json:"file,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type filePart struct {
	FileData string `json:"file_data,omitempty"`
	Filename string `json:"filename,omitempty"`
}

type wireToolCall struct {
	Index    *int64       `json:"index,omitempty"` // in stream deltas only
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type namedToolChoice struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict *bool           `json:"strict,omitempty"`
}

// chatCompletion is a response, and chatChunk one event of a stream.
type chatCompletion struct {
	Model   string `json:"model"`
	Choices []struct {
		FinishReason string `json:"finish_reason"`
		Message      struct {
			Content   string         `json:"content"`
			ToolCalls []wireToolCall `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage wireUsage `json:"usage"`
}

type chatChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Index        int64  `json:"index"`
		FinishReason string `json:"finish_reason"`
		Delta        struct {
			Content   string         `json:"content"`
			ToolCalls []wireToolCall `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *wireUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type wireUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens     int64 `json:"cached_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

type embeddingRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions *int     `json:"dimensions,omitempty"`
}

type embeddingResponse struct {
	Model string `json:"model"`
	Data  []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Usage wireUsage `json:"usage"`
}

// Bounds on what an endpoint may send back: a response body (embeddings
// of a large batch are the biggest) and one line of a stream.
const (
	maxResponseBytes   = 256 << 20
	maxStreamLineBytes = 16 << 20
	maxErrorBytes      = 64 << 10
)

// post sends body as JSON to path and returns the response of a 2xx; any
// other status is an *llm.APIError.
func (p *Provider) post(ctx context.Context, path string, body any, stream bool) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(p.cfg.BaseURL, "/")+path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if stream {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	if p.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.cfg.APIKey)
	}
	for k, v := range p.cfg.Headers {
		req.Header.Set(k, v)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, p.apiError(resp)
	}
	return resp, nil
}

// apiError reads an error response: {"error": {"message", "type", "code"}}
// as OpenAI sends it, or whatever text a compatible server sends.
func (p *Provider) apiError(resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
	e := &llm.APIError{Provider: p.cfg.Name, StatusCode: resp.StatusCode,
		RetryAfter: llm.ParseRetryAfter(resp.Header, time.Now())}
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &body) == nil && len(body.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		}
		if json.Unmarshal(body.Error, &obj) == nil {
			e.Message, e.Type = obj.Message, obj.Type
			if e.Type == "" && obj.Code != nil {
				e.Type = fmt.Sprint(obj.Code)
			}
		} else {
			var s string
			if json.Unmarshal(body.Error, &s) == nil {
				e.Message = s
			}
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(raw))
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

// decode reads a JSON response of at most maxResponseBytes.
func decode(resp *http.Response, v any) error {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return err
	}
	if len(b) > maxResponseBytes {
		return fmt.Errorf("response larger than %d bytes", maxResponseBytes)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode response: %w", err)
	}
	return nil
}

// chunks reads a server-sent event stream of chat chunks until [DONE] or
// its end, calling fn for each. An error object in the stream ends it.
func (p *Provider) chunks(body io.Reader, fn func(chatChunk) error) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), maxStreamLineBytes)
	var data bytes.Buffer
	flush := func() (done bool, err error) {
		if data.Len() == 0 {
			return false, nil
		}
		payload := bytes.TrimSpace(data.Bytes())
		defer data.Reset()
		if bytes.Equal(payload, []byte("[DONE]")) {
			return true, nil
		}
		var c chatChunk
		if err := json.Unmarshal(payload, &c); err != nil {
			return false, fmt.Errorf("%s: decode stream event: %w", p.cfg.Name, err)
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			var obj struct {
				Message string `json:"message"`
			}
			msg := string(c.Error)
			if json.Unmarshal(c.Error, &obj) == nil && obj.Message != "" {
				msg = obj.Message
			}
			return false, fmt.Errorf("%s: received error while streaming: %s", p.cfg.Name, msg)
		}
		return false, fn(c)
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 { // the end of an event
			if done, err := flush(); done || err != nil {
				return err
			}
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.Write(bytes.TrimPrefix(v, []byte(" ")))
		}
		// Comments (":…"), event names and ids carry nothing here.
	}
	if err := sc.Err(); err != nil {
		return err
	}
	_, err := flush()
	return err
}

var errNoChoices = errors.New("response has no choices")
