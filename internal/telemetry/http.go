package telemetry

import (
	"context"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// propagator reads and writes W3C traceparent headers (tracestate too).
var propagator = propagation.TraceContext{}

// HTTPServer wraps a server's handler: every request's context carries t,
// and the caller's traceparent; with tracing on, every request gets a
// server span, named after its route once the router has found it
// (HTTPRoute). The span records the method, route and status, never the
// raw path or query, which can carry tokens.
func HTTPServer(t *T, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := With(r.Context(), t)
		// Even with tracing off, a caller's trace id is kept, so the runs
		// it starts log under it.
		ctx = propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))
		if !t.Enabled() || unTraced(r) {
			next.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		method := Method(r.Method)
		ctx, span := t.tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
			attribute.String("http.request.method", method), attribute.String("url.scheme", scheme(r))))
		rw := &StatusWriter{ResponseWriter: w}
		next.ServeHTTP(rw, r.WithContext(ctx))
		status := rw.Status()
		span.SetAttributes(attribute.Int("http.response.status_code", status))
		if status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(status))
		}
		span.End()
	})
}

// unTraced are the probes and scrapes, which would fill the traces with
// a span every few seconds and tell nothing about a run.
func unTraced(r *http.Request) bool {
	switch r.URL.Path {
	case "/healthz", "/readyz", "/metrics":
		return r.Method == http.MethodGet
	}
	return false
}

// HTTPRoute names the request's server span after the route pattern the
// router matched ("POST /agents/{agent_id}/runs").
func HTTPRoute(ctx context.Context, method, route string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() || route == "" {
		return
	}
	span.SetName(Method(method) + " " + route)
	span.SetAttributes(attribute.String("http.route", route))
}

// Method names a request method for a span or a label: a standard
// method, or _OTHER, since a client may send any token as a method.
func Method(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "_OTHER"
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// StatusWriter remembers the status a handler wrote, passing Flush
// through (event streams) and unwrapping for http.ResponseController. The
// API's middleware and the server span both read it.
type StatusWriter struct {
	http.ResponseWriter
	code int
}

// Written reports whether the handler has written a status yet.
func (w *StatusWriter) Written() bool { return w.code != 0 }

// Status is the status written; 200 when the handler wrote none.
func (w *StatusWriter) Status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

func (w *StatusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *StatusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *StatusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *StatusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Transport wraps an outbound transport (model providers, webhooks, MCP
// servers, alert webhooks): with tracing on, each request gets a client
// span and carries its traceparent, so the receiver's spans join the
// run's trace. The span names the host, never the path or query.
func Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return transport{base}
}

// Client returns c with its transport wrapped by Transport (c itself is
// left as it is).
func Client(c *http.Client) *http.Client {
	out := *c
	out.Transport = Transport(c.Transport)
	return &out
}

type transport struct{ base http.RoundTripper }

func (t transport) RoundTrip(r *http.Request) (*http.Response, error) {
	tr, on := tracer(r.Context())
	if !on {
		return t.base.RoundTrip(r)
	}
	method := Method(r.Method)
	host, port := r.URL.Hostname(), r.URL.Port()
	attrs := []attribute.KeyValue{attribute.String("http.request.method", method), attribute.String("server.address", host)}
	if p, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, attribute.Int("server.port", p))
	} else if r.URL.Scheme == "https" {
		attrs = append(attrs, attribute.Int("server.port", 443))
	} else if r.URL.Scheme == "http" {
		attrs = append(attrs, attribute.Int("server.port", 80))
	}
	ctx, span := tr.Start(r.Context(), method, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	// A RoundTripper must not change the request it is given.
	r = r.Clone(ctx)
	propagator.Inject(ctx, propagation.HeaderCarrier(r.Header))
	resp, err := t.base.RoundTrip(r)
	switch {
	case err != nil:
		fail(span, err)
	default:
		span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
		if resp.StatusCode >= 400 {
			span.SetStatus(codes.Error, http.StatusText(resp.StatusCode))
		}
	}
	span.End()
	return resp, err
}

// Traceparent is ctx's W3C traceparent when tracing is on and ctx is
// inside a sampled span, else "": for carriers of our own, such as the
// Traceparent header of outgoing mail.
func Traceparent(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if _, on := tracer(ctx); !on || !sc.IsValid() {
		return ""
	}
	return traceparent(sc)
}

// TraceHeaders returns ctx's traceparent (and tracestate) as headers, or
// nil (tracing off, no span): for carriers that are not HTTP, such as a
// job's metadata.
func TraceHeaders(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	m := propagation.MapCarrier{}
	propagator.Inject(ctx, m)
	return m
}

// FromTraceHeaders returns ctx with the remote span context the headers
// carry (see TraceHeaders).
func FromTraceHeaders(ctx context.Context, h map[string]string) context.Context {
	if len(h) == 0 {
		return ctx
	}
	return propagator.Extract(ctx, propagation.MapCarrier(h))
}
