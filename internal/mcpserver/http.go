package mcpserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/agentry/agentry/client"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves MCP over streamable HTTP in front of the API handler
// apiHandler. Each request is authenticated by the API itself: GET /me is
// asked in-process with the request's credentials (X-API-Key or
// Authorization: Bearer, and X-Account-Id), and a refusal is answered as
// the API answered it. The tools then call the API in-process with the
// same credentials, so every rule of the API holds for them too.
//
// The handler is stateless (no Mcp-Session-Id): any replica answers any
// request, and a server holding only the caller's tools is built for each
// request, so no state is shared between callers.
func Handler(apiHandler http.Handler, version string) http.Handler {
	type serverKey struct{}
	mh := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		s, _ := r.Context().Value(serverKey{}).(*mcp.Server)
		return s
	}, &mcp.StreamableHTTPOptions{Stateless: true, MaxRequestBodyBytes: 1 << 20})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := inProcessClient(apiHandler, r)
		if err != nil {
			// No usable credentials: the API answers, as it would the same
			// request made to it, and counts it against the client
			// address's failed sign-ins.
			refuse(apiHandler, w, r)
			return
		}
		var me map[string]any
		if err := c.Do(r.Context(), http.MethodGet, "/me", nil, &me); err != nil {
			var apiErr *client.APIError
			if errors.As(err, &apiErr) {
				for k, vs := range apiErr.Header {
					if k == "Content-Length" {
						continue
					}
					w.Header()[k] = vs
				}
				w.WriteHeader(apiErr.StatusCode)
				_, _ = w.Write(apiErr.Body)
				return
			}
			writeDetail(w, http.StatusInternalServerError, "the request could not be authenticated")
			return
		}
		if r.Method != http.MethodPost {
			// GET (a standalone event stream) and DELETE (ending a
			// session) have no meaning without sessions.
			mh.ServeHTTP(w, r)
			return
		}
		s, err := New(r.Context(), c, version)
		if err != nil {
			var apiErr *client.APIError
			if errors.As(err, &apiErr) {
				writeDetail(w, apiErr.StatusCode, apiErr.Message)
				return
			}
			writeDetail(w, http.StatusInternalServerError, "the MCP server could not be assembled")
			return
		}
		mh.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), serverKey{}, s)))
	})
}

// refuse asks the API for GET /me with what the MCP request carried (no
// usable credentials) from the MCP client's address, and passes on its
// answer: a 401, or a 429 once the address has failed too often.
func refuse(apiHandler http.Handler, w http.ResponseWriter, r *http.Request) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "/me", nil)
	if err != nil {
		writeDetail(w, http.StatusUnauthorized, "Missing, invalid or revoked credentials. Send X-API-Key or Authorization: Bearer.")
		return
	}
	for _, name := range append([]string{"Authorization", "X-API-Key"}, forwardedHeaders...) {
		if v := r.Header.Get(name); v != "" {
			req.Header.Set(name, v)
		}
	}
	req.RemoteAddr, req.Host = r.RemoteAddr, r.Host
	apiHandler.ServeHTTP(w, req)
}

func writeDetail(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, `{"detail":`+quote(detail)+`}`)
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// forwardedHeaders are the headers of the MCP request every API request it
// leads to carries: the credentials, the account and the version.
var forwardedHeaders = []string{"X-Account-Id", "Service-Version"}

// inProcessClient is the public client talking to apiHandler in this
// process, with the credentials of the MCP request r.
func inProcessClient(apiHandler http.Handler, r *http.Request) (*client.Client, error) {
	opts := []client.Option{
		client.WithBaseURL("http://agentry.internal"),
		client.WithHTTPClient(&http.Client{Transport: inProcess{h: apiHandler, from: r}}),
		client.WithUnknownVersions(), // the API judges the version header, as for any request
		// Nothing of the server's own environment may stand in for the
		// caller's credentials.
		client.WithEnv(func(string) string { return "" }),
	}
	switch key, bearer := r.Header.Get("X-API-Key"), r.Header.Get("Authorization"); {
	case key != "":
		opts = append(opts, client.WithAPIKey(key))
	case bearer != "":
		token, ok := strings.CutPrefix(bearer, "Bearer ")
		if !ok {
			token, ok = strings.CutPrefix(bearer, "bearer ")
		}
		if !ok || token == "" {
			return nil, errors.New("not a bearer token")
		}
		opts = append(opts, client.WithToken(token))
	default:
		return nil, errors.New("no credentials")
	}
	return client.New(opts...)
}

// inProcess hands requests to the API handler in this process, streaming
// the response (run event streams included) through a pipe.
type inProcess struct {
	h    http.Handler
	from *http.Request
}

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	r := req.Clone(ctx)
	for _, name := range forwardedHeaders {
		if v := t.from.Header.Get(name); v != "" {
			r.Header.Set(name, v)
		}
	}
	// The API limits failed sign-ins per client address: the MCP client's.
	r.RemoteAddr = t.from.RemoteAddr
	r.RequestURI = req.URL.RequestURI()
	r.Host = t.from.Host
	if r.Body == nil {
		r.Body = http.NoBody
	}
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	go func() {
		defer func() {
			if p := recover(); p != nil {
				w.WriteHeader(http.StatusInternalServerError)
			}
			w.WriteHeader(http.StatusOK) // a handler that wrote nothing
			_ = pw.Close()
		}()
		t.h.ServeHTTP(w, r)
	}()
	select {
	case <-w.ready:
	case <-ctx.Done():
		cancel()
		_ = pr.CloseWithError(ctx.Err()) // the handler's writes fail instead of blocking
		return nil, ctx.Err()
	}
	return &http.Response{StatusCode: w.status, Status: http.StatusText(w.status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: w.sent, Body: cancelOnClose{ReadCloser: pr, cancel: cancel}, ContentLength: -1, Request: req}, nil
}

// pipeWriter is the API handler's response writer: the status and
// headers are handed over at the first write, the body streams through
// the pipe as it is written.
type pipeWriter struct {
	header http.Header
	sent   http.Header
	pw     *io.PipeWriter
	once   sync.Once
	status int
	ready  chan struct{}
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(status int) {
	w.once.Do(func() {
		w.status = status
		w.sent = w.header.Clone()
		close(w.ready)
	})
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(b)
}

// Flush lets streaming handlers flush; the pipe hands each write over as
// it is made.
func (w *pipeWriter) Flush() {}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	c.cancel()
	return c.ReadCloser.Close()
}
