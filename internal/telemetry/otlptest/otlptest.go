// Package otlptest runs a real OTLP trace receiver on loopback for tests:
// it accepts ExportTraceServiceRequest over HTTP (POST /v1/traces,
// binary protobuf, optionally gzipped) and over gRPC (the collector's
// TraceService), decodes every span with its resource, and lets a test
// wait for the spans it expects. It is what a collector's OTLP receiver
// does, without the collector.
package otlptest

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, decoded.
type Span struct {
	TraceID, SpanID, ParentID string // hex; ParentID "" for a root
	Name                      string
	Kind                      tracepb.Span_SpanKind
	Attrs                     map[string]any
	Resource                  map[string]any
	StatusCode                tracepb.Status_StatusCode
	StatusMessage             string
	Start, End                time.Time
}

// Receiver is a running OTLP receiver.
type Receiver struct {
	// HTTPURL is the base URL of the HTTP receiver (its endpoint is
	// HTTPURL + "/v1/traces"); GRPCAddr the host:port of the gRPC one.
	HTTPURL  string
	GRPCAddr string

	mu      sync.Mutex
	spans   []Span
	total   int
	changed chan struct{} // closed and replaced on every export
	exports int
	close   func()
}

// Start runs a receiver until the test ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	r, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// Listen runs a receiver on loopback until Close (for load tools).
func Listen() (*Receiver, error) {
	r := &Receiver{changed: make(chan struct{})}
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.serveHTTP)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(hl)
	r.HTTPURL = "http://" + hl.Addr().String()

	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		hs.Close()
		return nil, err
	}
	gs := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(gs, grpcService{r: r})
	go gs.Serve(gl)
	r.GRPCAddr = gl.Addr().String()
	r.close = func() {
		gs.Stop()
		hs.Close()
	}
	return r, nil
}

// Close stops the receiver.
func (r *Receiver) Close() { r.close() }

// Forget drops the spans received so far (a load tool keeps no history).
func (r *Receiver) Forget() {
	r.mu.Lock()
	r.spans = nil
	r.mu.Unlock()
}

// Count is how many spans were received in all.
func (r *Receiver) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

func (r *Receiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	var body io.Reader = http.MaxBytesReader(w, req.Body, 64<<20)
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var in coltracepb.ExportTraceServiceRequest
	if req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want application/x-protobuf", http.StatusUnsupportedMediaType)
		return
	}
	if err := proto.Unmarshal(b, &in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.add(&in)
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

type grpcService struct {
	coltracepb.UnimplementedTraceServiceServer
	r *Receiver
}

func (g grpcService) Export(_ context.Context, in *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	g.r.add(in)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func (r *Receiver) add(in *coltracepb.ExportTraceServiceRequest) {
	var got []Span
	for _, rs := range in.ResourceSpans {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := Span{TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId), Name: s.Name, Kind: s.Kind,
					Attrs: attrs(s.Attributes), Resource: res, StatusCode: s.GetStatus().GetCode(), StatusMessage: s.GetStatus().GetMessage(),
					Start: time.Unix(0, int64(s.StartTimeUnixNano)), End: time.Unix(0, int64(s.EndTimeUnixNano))}
				if len(s.ParentSpanId) > 0 {
					sp.ParentID = hex.EncodeToString(s.ParentSpanId)
				}
				got = append(got, sp)
			}
		}
	}
	r.mu.Lock()
	r.spans = append(r.spans, got...)
	r.total += len(got)
	r.exports++
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

func attrs(kvs []*commonpb.KeyValue) map[string]any {
	out := map[string]any{}
	for _, kv := range kvs {
		out[kv.Key] = value(kv.Value)
	}
	return out
}

func value(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_ArrayValue:
		var out []any
		for _, e := range x.ArrayValue.Values {
			out = append(out, value(e))
		}
		return out
	}
	return nil
}

// Spans returns every span received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Exports counts the export requests received.
func (r *Receiver) Exports() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.exports
}

// Trace returns the spans of one trace.
func (r *Receiver) Trace(traceID string) []Span {
	var out []Span
	for _, s := range r.Spans() {
		if s.TraceID == traceID {
			out = append(out, s)
		}
	}
	return out
}

// WaitTrace waits (up to timeout) until the spans of traceID satisfy
// done, and returns them; it fails the test with what it has otherwise.
// It wakes on every export, never on a timer.
func (r *Receiver) WaitTrace(t testing.TB, traceID string, timeout time.Duration, done func([]Span) bool) []Span {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		ch := r.changed
		r.mu.Unlock()
		spans := r.Trace(traceID)
		if done(spans) {
			return spans
		}
		select {
		case <-ch:
		case <-deadline.C:
			for _, s := range spans {
				t.Logf("have: %s %s parent=%s %v", s.SpanID, s.Name, s.ParentID, s.Attrs)
			}
			t.Fatalf("trace %s: the spans expected did not arrive within %v (%d spans)", traceID, timeout, len(spans))
			return nil
		}
	}
}

// Named returns the spans named name.
func Named(spans []Span, name string) []Span {
	var out []Span
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// One returns the one span named name, failing the test when there is
// not exactly one.
func One(t testing.TB, spans []Span, name string) Span {
	t.Helper()
	got := Named(spans, name)
	if len(got) != 1 {
		for _, s := range spans {
			t.Logf("have: %s %s parent=%s", s.SpanID, s.Name, s.ParentID)
		}
		t.Fatalf("want one span %q, have %d", name, len(got))
	}
	return got[0]
}

// ChildrenOf returns the spans whose parent is parent.
func ChildrenOf(spans []Span, parent Span) []Span {
	var out []Span
	for _, s := range spans {
		if s.ParentID == parent.SpanID {
			out = append(out, s)
		}
	}
	return out
}
