package anthropic

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

// limits bound what an endpoint may send back, so that a broken or hostile
// server cannot make one call hold unbounded memory. Time is bounded by the
// call's context (Config.Timeout or the request's), not here.
type limits struct {
	response   int64 // the JSON body of a plain call
	errorBody  int64 // the body of an error answer, read for its message
	streamLine int   // one line of a server-sent event stream
	stream     int64 // a whole stream
}

// defaultLimits: an answer of max_tokens 128k with thinking is a few MB.
var defaultLimits = limits{response: 32 << 20, errorBody: 64 << 10, streamLine: 16 << 20, stream: 256 << 20}

// post sends body to /v1/messages and returns the response of a 2xx; any
// other status is an *llm.APIError.
func (p *Provider) post(ctx context.Context, body messageRequest) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(p.cfg.BaseURL, "/")+"/v1/messages", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if body.Stream {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	req.Header.Set("anthropic-version", apiVersion)
	if p.cfg.APIKey != "" {
		req.Header.Set("x-api-key", p.cfg.APIKey)
	}
	for k, v := range p.cfg.Headers { // after ours: configuration may override
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

// apiError reads an error answer: its type and message from the JSON
// envelope, else the body's text, else the status text; and the wait the
// server asked for (Retry-After, retry-after-ms).
func (p *Provider) apiError(resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, p.limits.errorBody))
	e := &llm.APIError{Provider: p.cfg.Name, StatusCode: resp.StatusCode,
		RetryAfter: llm.ParseRetryAfter(resp.Header, time.Now())}
	var body errorBody
	if json.Unmarshal(raw, &body) == nil && body.Error != nil {
		e.Type, e.Message = body.Error.Type, body.Error.Message
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(raw))
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

// decodeMessage reads the JSON answer of a plain call, at most
// limits.response bytes of it.
func (p *Provider) decodeMessage(resp *http.Response) (*message, error) {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, p.limits.response+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > p.limits.response {
		return nil, fmt.Errorf("%s: response larger than %d bytes", p.cfg.Name, p.limits.response)
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: decode response: %w", p.cfg.Name, err)
	}
	return &m, nil
}

// errStreamTruncated: the stream ended before message_stop, so what came
// is not the whole answer. Transport-level, hence retried while nothing
// has been relayed.
var errStreamTruncated = fmt.Errorf("stream ended before message_stop: %w", io.ErrUnexpectedEOF)

// events reads a server-sent event stream, calling fn with each event until
// message_stop. Pings are skipped; an error event ends the stream with its
// message.
func (p *Provider) events(body io.Reader, fn func(streamEvent) error) error {
	sc := bufio.NewScanner(&cappedReader{r: body, limit: p.limits.stream, name: p.cfg.Name})
	// The buffer starts small; its initial size also caps a line, so it
	// must not exceed the limit.
	sc.Buffer(make([]byte, 0, min(64<<10, p.limits.streamLine)), p.limits.streamLine)
	var name string
	var data bytes.Buffer
	// dispatch handles the event just ended by a blank line.
	dispatch := func() (stop bool, err error) {
		defer func() { name = ""; data.Reset() }()
		payload := bytes.TrimSpace(data.Bytes())
		if name == "ping" || len(payload) == 0 {
			return false, nil
		}
		var ev streamEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			return false, fmt.Errorf("%s: decode stream event: %w", p.cfg.Name, err)
		}
		if name == "error" || ev.Type == "error" {
			msg := string(payload)
			if ev.Error != nil && ev.Error.Message != "" {
				msg = ev.Error.Type + ": " + ev.Error.Message
			}
			return false, fmt.Errorf("%s: received error while streaming: %s", p.cfg.Name, msg)
		}
		if ev.Type == "message_stop" {
			return true, nil
		}
		return false, fn(ev)
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if stop, err := dispatch(); stop || err != nil {
				return err
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.Write(value)
		}
		// Comments (":…"), ids and retry hints carry nothing here.
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s: stream event longer than %d bytes", p.cfg.Name, p.limits.streamLine)
		}
		return err
	}
	// The body ended: an event not yet followed by its blank line still
	// counts, but only message_stop makes the answer whole.
	if stop, err := dispatch(); stop || err != nil {
		return err
	}
	return errStreamTruncated
}

// cappedReader fails once a stream goes past limit bytes.
type cappedReader struct {
	r     io.Reader
	read  int64
	limit int64
	name  string
}

func (c *cappedReader) Read(b []byte) (int, error) {
	// Read up to one byte past the limit, to tell a stream of exactly
	// limit bytes (which ends) from a longer one.
	if room := c.limit + 1 - c.read; int64(len(b)) > room {
		b = b[:room]
	}
	n, err := c.r.Read(b)
	c.read += int64(n)
	if over := c.read - c.limit; over > 0 {
		// What came before the limit is still read, then the error.
		return n - int(over), fmt.Errorf("%s: stream larger than %d bytes", c.name, c.limit)
	}
	return n, err
}
