package telemetry

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// One run is one trace, however many replicas, crash resumes, reviews and
// retries it goes through. The run span's ids are chosen when the run is
// created and stored with it (RunTrace, in the run's row); every replica
// that works on the run hangs its spans under that span id, and the run
// span itself is sent once, when the run ends, with the run's whole life
// as its duration.

// RunTrace is the trace context stored with a run: the W3C traceparent of
// the run's own span, then, after a space, the id of its parent span (the
// request or job that started the run) when it has one. A run created
// while tracing is off still gets ids, unsampled, so its log lines share
// a trace id on every replica.
type RunTrace string

// NewRunTrace chooses the trace context of a run being created in ctx:
// the trace of the span ctx carries (a request's, whose caller's
// traceparent is its parent) or a new one, a new span id for the run, and
// the sampler's decision, made once here.
func NewRunTrace(ctx context.Context) RunTrace {
	parent := trace.SpanContextFromContext(ctx)
	tid := parent.TraceID()
	if !tid.IsValid() {
		tid = newTraceID()
	}
	sampled := false
	if t := From(ctx); t.Enabled() {
		res := t.sampler.ShouldSample(sdktrace.SamplingParameters{ParentContext: ctx, TraceID: tid, Name: "invoke_agent", Kind: trace.SpanKindInternal})
		sampled = res.Decision == sdktrace.RecordAndSample
	}
	flags := trace.TraceFlags(0).WithSampled(sampled)
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: newSpanID(), TraceFlags: flags})
	out := traceparent(sc)
	if parent.SpanID().IsValid() {
		out += " " + parent.SpanID().String()
	}
	return RunTrace(out)
}

func traceparent(sc trace.SpanContext) string {
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
}

// parse reads a stored run trace; ok is false for an empty or malformed one.
func (r RunTrace) parse() (run trace.SpanContext, parent trace.SpanID, ok bool) {
	tp, par, _ := strings.Cut(string(r), " ")
	parts := strings.Split(tp, "-")
	if len(parts) != 4 || parts[0] != "00" {
		return trace.SpanContext{}, trace.SpanID{}, false
	}
	tid, err1 := trace.TraceIDFromHex(parts[1])
	sid, err2 := trace.SpanIDFromHex(parts[2])
	fl, err3 := hex.DecodeString(parts[3])
	if err1 != nil || err2 != nil || err3 != nil || len(fl) != 1 {
		return trace.SpanContext{}, trace.SpanID{}, false
	}
	run = trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.TraceFlags(fl[0]), Remote: true})
	if par != "" {
		parent, _ = trace.SpanIDFromHex(par)
	}
	return run, parent, true
}

// TraceID is the run's trace id when its trace is sampled (exported), ""
// otherwise: what the run's snapshot shows, so nobody is sent looking for
// a trace that was never sent.
func (r RunTrace) TraceID() string {
	sc, _, ok := r.parse()
	if !ok || !sc.IsSampled() {
		return ""
	}
	return sc.TraceID().String()
}

// Resume returns ctx inside the run's span: what a worker executing (or
// resuming) the run starts its step spans from.
func (r RunTrace) Resume(ctx context.Context) context.Context {
	sc, _, ok := r.parse()
	if !ok {
		return ctx
	}
	return trace.ContextWithRemoteSpanContext(ctx, sc)
}

// forcedIDs, in the context of one span's start, make that span take the
// run span's stored ids (see idGenerator). Used once: a span started
// later from the same context gets ids of its own.
type forcedIDs struct {
	tid  trace.TraceID
	sid  trace.SpanID
	used atomic.Bool
}

type forcedKey struct{}

// idGenerator is the SDK's random id generator, except for the one span
// start whose context holds forcedIDs.
type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if f, ok := ctx.Value(forcedKey{}).(*forcedIDs); ok && f.used.CompareAndSwap(false, true) {
		return f.tid, f.sid
	}
	return newTraceID(), newSpanID()
}

func (idGenerator) NewSpanID(ctx context.Context, tid trace.TraceID) trace.SpanID {
	if f, ok := ctx.Value(forcedKey{}).(*forcedIDs); ok && f.tid == tid && f.used.CompareAndSwap(false, true) {
		return f.sid
	}
	return newSpanID()
}

func newTraceID() trace.TraceID {
	var t trace.TraceID
	for !t.IsValid() {
		binary.BigEndian.PutUint64(t[:8], rand.Uint64())
		binary.BigEndian.PutUint64(t[8:], rand.Uint64())
	}
	return t
}

func newSpanID() trace.SpanID {
	var s trace.SpanID
	for !s.IsValid() {
		binary.BigEndian.PutUint64(s[:], rand.Uint64())
	}
	return s
}
