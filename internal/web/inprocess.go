package web

import (
	"context"
	"io"
	"net/http"
	"sync"

	"github.com/agentry/agentry/client"
	"github.com/agentry/agentry/internal/api"
	"github.com/agentry/agentry/internal/auth"
)

// The console is a client of the API, not a side door: every read and
// action is an API request, served by the API's own handler (its
// authentication, roles, account scoping, versions, rate limits and
// validation), with the public Go client over an in-process transport.
// The session's credential travels in the request's context
// (api.WithConsoleCredential), which no network request can set.

// consoleBaseURL is the API's address as the in-process client sees it;
// no connection is ever made to it.
const consoleBaseURL = "http://agentry.console.internal"

// inProcess is an http.RoundTripper that serves requests with an
// http.Handler in the same process. Responses stream: the body is a pipe
// the handler writes into, so event streams work as over a socket.
type inProcess struct{ h http.Handler }

type remoteAddrKey struct{}

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.RequestURI = req.URL.RequestURI()
	r.Host = req.URL.Host
	if addr, ok := req.Context().Value(remoteAddrKey{}).(string); ok {
		r.RemoteAddr = addr // the browser's: the API's per-address limits count the person
	}
	if r.Body == nil {
		r.Body = http.NoBody
	}
	pr, pw := io.Pipe()
	rw := &pipeResponse{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	go func() {
		defer func() {
			if p := recover(); p != nil {
				rw.WriteHeader(http.StatusInternalServerError)
				pw.CloseWithError(io.ErrUnexpectedEOF)
				return
			}
			rw.WriteHeader(http.StatusOK) // a handler that wrote nothing
			pw.Close()
		}()
		t.h.ServeHTTP(rw, r)
	}()
	select {
	case <-rw.ready:
	case <-req.Context().Done():
		pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
	return &http.Response{
		Status: http.StatusText(rw.status), StatusCode: rw.status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: rw.sent, Body: pr, ContentLength: -1, Request: req,
	}, nil
}

// pipeResponse is the handler's side of an in-process response.
type pipeResponse struct {
	header http.Header
	sent   http.Header
	pw     *io.PipeWriter
	once   sync.Once
	status int
	ready  chan struct{}
}

func (p *pipeResponse) Header() http.Header { return p.header }

func (p *pipeResponse) WriteHeader(status int) {
	p.once.Do(func() {
		p.status, p.sent = status, p.header.Clone()
		close(p.ready)
	})
}

func (p *pipeResponse) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	return p.pw.Write(b)
}

// Flush is a no-op: the pipe hands every write to the reader at once.
func (p *pipeResponse) Flush() {}

// apiClient is the public Go client, calling the API in process as the
// session. Requests must carry the context from Request.Context (which
// holds the session's credential).
func (c *Console) apiClient(s *Session) (*client.Client, error) {
	opts := []client.Option{
		client.WithBaseURL(consoleBaseURL),
		client.WithHTTPClient(&http.Client{Transport: inProcess{c.api}}),
		client.WithEnv(func(string) string { return "" }),
		// A placeholder the API never reads: the context's console
		// credential is authenticated first. It keeps the client from
		// looking for credentials of its own (environment, profiles).
		client.WithToken("console-session"),
		client.WithUserAgent("agentry-console"),
		client.WithoutRetries(),
	}
	if s.KeyHash == "" && s.AccountID != "" { // a user's session acts in the account it switched to
		opts = append(opts, client.WithAccountID(s.AccountID))
	}
	return client.New(opts...)
}

// credentialContext is ctx carrying the session's API credential and the
// browser's address.
func credentialContext(ctx context.Context, s *Session, remoteAddr string) context.Context {
	ctx = withRemoteAddr(ctx, remoteAddr)
	return api.WithConsoleCredential(ctx, auth.ConsoleCredential{KeyHash: s.KeyHash, UserID: s.UserID})
}

// withRemoteAddr passes the browser's address to the API in process.
func withRemoteAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, remoteAddrKey{}, addr)
}
