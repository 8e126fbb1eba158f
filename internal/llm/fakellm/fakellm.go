// Package fakellm runs fake model servers on loopback that speak the
// OpenAI chat-completions/embeddings and Anthropic messages wire protocols
// for real — JSON bodies, SSE streams, error bodies, Retry-After — so that
// adapters, and any package built on them, can be tested without network.
// Replies are scripted per request; requests are recorded for assertions.
package fakellm

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// ToolCall is a scripted tool call.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON object text
}

// Usage is scripted token usage.
type Usage struct {
	Input, Output, Cached, CacheWrite int
}

// Reply scripts one answer.
type Reply struct {
	// Status >= 400 answers an error with ErrorType/ErrorMessage in the
	// protocol's error body, and RetryAfter as the Retry-After header.
	Status       int
	ErrorType    string
	ErrorMessage string
	RetryAfter   string

	Text      string
	ToolCalls []ToolCall
	// Thinking, with ThinkingSignature, answers a signed thinking block
	// ahead of the text (Anthropic protocol); RedactedThinking adds a
	// redacted block after it.
	Thinking          string
	ThinkingSignature string
	RedactedThinking  string
	Usage             Usage
	FinishReason      string // protocol-specific; derived when empty
	Model             string

	// Delay waits before answering. StallAfter > 0 stops a stream after
	// that many content chunks and holds the connection open until the
	// client gives up; ChunkDelay spaces streamed chunks.
	Delay      time.Duration
	StallAfter int
	ChunkDelay time.Duration

	// Timestamps replaces the text of a streamed reply with Chunks chunks
	// whose content is the server's send time (UnixNano) and a space, so
	// a client can measure relay latency.
	Timestamps bool
	Chunks     int

	// Embeddings answers an embeddings request (OpenAI protocol).
	Embeddings [][]float32
}

// Request is one recorded request.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the request body into a generic map.
func (r Request) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

// Server is a fake model server.
type Server struct {
	// URL is the base URL to configure the client with (…/v1 for OpenAI,
	// the bare origin for Anthropic, as each SDK expects).
	URL   string
	srv   *httptest.Server
	done  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	queue []Reply
	reqs  []Request
	def   Reply // answers when the queue is empty
	// pre, when set, answers requests of its own (Ollama's /api/tags)
	// before the scripted protocol: true when it did.
	pre func(w http.ResponseWriter, r *http.Request) bool
}

func newServer(t testing.TB, h func(s *Server, w http.ResponseWriter, r *http.Request, body []byte, rep Reply)) *Server {
	s := &Server{done: make(chan struct{}), def: Reply{Text: "ok", Usage: Usage{Input: 5, Output: 1}}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.pre != nil && s.pre(w, r) {
			return
		}
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		rep := s.def
		if len(s.queue) > 0 {
			rep = s.queue[0]
			s.queue = s.queue[1:]
		}
		s.mu.Unlock()
		if rep.Delay > 0 && !s.wait(r, rep.Delay) {
			return
		}
		h(s, w, r, body, rep)
	}))
	s.srv.Config.ErrorLog = nil
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// wait sleeps d unless the client or the server goes away first.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}

// hold blocks until the client or server goes away (a stalled upstream).
func (s *Server) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// SetDefault sets the reply used when the queue is empty.
func (s *Server) SetDefault(r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = r
}

// Enqueue scripts the next replies, in order.
func (s *Server) Enqueue(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, r...)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Close stops the server, releasing stalled handlers first.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// sse writes one server-sent event and flushes it.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (e *sse) send(event string, data any) {
	var b bytes.Buffer
	if event != "" {
		b.WriteString("event: " + event + "\n")
	}
	b.WriteString("data: ")
	switch d := data.(type) {
	case string:
		b.WriteString(d)
	default:
		js, _ := json.Marshal(d)
		b.Write(js)
	}
	b.WriteString("\n\n")
	_, _ = e.w.Write(b.Bytes())
	if e.f != nil {
		e.f.Flush()
	}
}

// words splits text into chunks that keep their trailing spaces.
func words(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// textChunks returns the streamed text pieces of rep.
func textChunks(rep Reply) func(i int) (string, bool) {
	if rep.Timestamps {
		return func(i int) (string, bool) {
			if i >= rep.Chunks {
				return "", false
			}
			return itoa(time.Now().UnixNano()) + " ", true
		}
	}
	ws := words(rep.Text)
	return func(i int) (string, bool) {
		if i >= len(ws) {
			return "", false
		}
		return ws[i], true
	}
}

func itoa(n int64) string {
	return string(appendInt(nil, n))
}

func appendInt(b []byte, n int64) []byte {
	if n < 0 {
		return appendInt(append(b, '-'), -n)
	}
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// streamRequested reports whether the request body asks for SSE.
func streamRequested(body []byte) bool {
	var v struct {
		Stream bool `json:"stream"`
	}
	_ = json.Unmarshal(body, &v)
	return v.Stream
}
