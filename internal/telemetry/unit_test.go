package telemetry

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

func TestSetupReadsTheStandardVariables(t *testing.T) {
	for _, c := range []struct {
		env     map[string]string
		on      bool
		wantErr string
	}{
		{env: map[string]string{}, on: false},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, on: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, on: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, on: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_SDK_DISABLED": "true"}, on: false},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_TRACES_EXPORTER": "none"}, on: false},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, wantErr: "OTEL_TRACES_EXPORTER=zipkin"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, wantErr: "use grpc or http/protobuf"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_TRACES_SAMPLER": "jaeger_remote"}, wantErr: "OTEL_TRACES_SAMPLER=jaeger_remote"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"}, wantErr: "ratio from 0 to 1"},
	} {
		for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
			"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG"} {
			t.Setenv(k, c.env[k])
		}
		tel, err := Setup(context.Background(), Config{Node: "n1"})
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: err %v, want %q", c.env, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", c.env, err)
			continue
		}
		if tel.Enabled() != c.on {
			t.Errorf("%v: tracing on %v, want %v", c.env, tel.Enabled(), c.on)
		}
		_ = tel.Shutdown(context.Background())
	}
}

func TestSamplerFromEnv(t *testing.T) {
	tid := trace.TraceID{1}
	for name, sampled := range map[string]bool{"": true, "always_on": true, "always_off": false, "parentbased_always_off": false,
		"parentbased_always_on": true, "traceidratio": true, "parentbased_traceidratio": true} {
		t.Setenv("OTEL_TRACES_SAMPLER", name)
		t.Setenv("OTEL_TRACES_SAMPLER_ARG", "")
		s, err := samplerFromEnv()
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		got := s.ShouldSample(sdktrace.SamplingParameters{ParentContext: context.Background(), TraceID: tid}).Decision == sdktrace.RecordAndSample
		if got != sampled {
			t.Errorf("%q samples a root: %v, want %v", name, got, sampled)
		}
	}
	t.Setenv("OTEL_TRACES_SAMPLER", "traceidratio")
	t.Setenv("OTEL_TRACES_SAMPLER_ARG", "0")
	s, _ := samplerFromEnv()
	if s.ShouldSample(sdktrace.SamplingParameters{ParentContext: context.Background(), TraceID: tid}).Decision == sdktrace.RecordAndSample {
		t.Error("ratio 0 sampled")
	}
}

func TestRunTraceRoundTrip(t *testing.T) {
	// No span in the context: a new trace, unsampled with tracing off.
	rt := NewRunTrace(With(context.Background(), Off("n")))
	sc, parent, ok := rt.parse()
	if !ok || !sc.TraceID().IsValid() || !sc.SpanID().IsValid() || sc.IsSampled() || parent.IsValid() {
		t.Fatalf("%q: %v %v %v", rt, sc, parent, ok)
	}
	if rt.TraceID() != "" {
		t.Errorf("an unsampled run shows trace id %q", rt.TraceID())
	}
	// Under a caller's sampled span: the caller's trace, its span the parent.
	callerTrace, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	callerSpan, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: callerTrace, SpanID: callerSpan, TraceFlags: trace.FlagsSampled, Remote: true}))
	tel := &T{tracer: Off("n").tracer, sampler: sdktrace.ParentBased(sdktrace.AlwaysSample()), provider: sdktrace.NewTracerProvider()}
	rt = NewRunTrace(With(ctx, tel))
	sc, parent, ok = rt.parse()
	if !ok || sc.TraceID() != callerTrace || parent != callerSpan || !sc.IsSampled() || sc.SpanID() == callerSpan {
		t.Fatalf("%q", rt)
	}
	if rt.TraceID() != callerTrace.String() {
		t.Errorf("trace id %q", rt.TraceID())
	}
	// Resume puts the run's span in the context.
	if got := trace.SpanContextFromContext(rt.Resume(context.Background())); got.SpanID() != sc.SpanID() || got.TraceID() != callerTrace {
		t.Errorf("resumed into %v", got)
	}
	for _, bad := range []RunTrace{"", "garbage", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-xyz-00f067aa0ba902b7-01"} {
		if _, _, ok := bad.parse(); ok {
			t.Errorf("%q parsed", bad)
		}
		if bad.Resume(context.Background()) != context.Background() {
			t.Errorf("%q resumed", bad)
		}
	}
}

// blockingExporter holds every export until released, counting spans.
type blockingExporter struct {
	release chan struct{}
	spans   atomic.Int64
}

func (b *blockingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	select {
	case <-b.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	b.spans.Add(int64(len(spans)))
	return nil
}

func (b *blockingExporter) Shutdown(context.Context) error { return nil }

// TestQueueDropsWhenFull: with the exporter stuck, ending spans never
// blocks; those past the queue's size are dropped and counted.
func TestQueueDropsWhenFull(t *testing.T) {
	t.Setenv("OTEL_BSP_MAX_QUEUE_SIZE", "8")
	t.Setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "4")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "5")
	exp := &blockingExporter{release: make(chan struct{})}
	p, err := newQueueProcessor(exp)
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
	before := testutil.ToFloat64(spansDropped.WithLabelValues("queue_full"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			_, s := tp.Tracer("t").Start(context.Background(), "s")
			s.End()
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ending spans blocked on a stuck exporter")
	}
	dropped := testutil.ToFloat64(spansDropped.WithLabelValues("queue_full")) - before
	// At most the queue, plus a batch the loop holds, got through.
	if dropped < 200-8-4-1 {
		t.Errorf("dropped %v of 200 with a queue of 8", dropped)
	}
	close(exp.release)
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := exp.spans.Load(); got+int64(dropped) != 200 {
		t.Errorf("exported %d + dropped %v != 200", got, dropped)
	}
}

func TestLabelsAreBounded(t *testing.T) {
	for in, want := range map[string]string{"schedule": "schedule", "call_agent": "call_agent", "": "unknown", "'; DROP": "other"} {
		if got := triggerLabel(in); got != want {
			t.Errorf("trigger %q → %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"prompt_call": "prompt_call", "knowledge_index": "knowledge_index", "": "unknown",
		"Prompt Call": "other", strings.Repeat("a", 41): "other"} {
		if got := purposeLabel(in); got != want {
			t.Errorf("purpose %q → %q, want %q", in, got, want)
		}
	}
	if got := Method("BREW"); got != "_OTHER" {
		t.Errorf("method label %q", got)
	}
}

func TestClip(t *testing.T) {
	if got := clip("héllo", 2); got != "h…" {
		t.Errorf("clip on a rune boundary: %q", got)
	}
	if got := clip("short", 10); got != "short" {
		t.Errorf("%q", got)
	}
}

// A regression's replay is no production run: its end and its steps are
// kept out of the run and step metrics, which a production run's count.
func TestRegressionReplaysStayOutOfTheMetrics(t *testing.T) {
	finished := func() float64 { return testutil.ToFloat64(runsFinished.WithLabelValues("completed")) }
	stepSamples := func() uint64 {
		m := &dto.Metric{}
		if err := stepDuration.WithLabelValues("regression_probe", "completed").(prometheus.Histogram).Write(m); err != nil {
			t.Fatal(err)
		}
		return m.GetHistogram().GetSampleCount()
	}
	for _, c := range []struct {
		regression string
		want       float64
	}{{"01234567-89ab-7def-8123-456789abcdef", 0}, {"", 1}} {
		beforeRuns, beforeSteps := finished(), stepSamples()
		ctx, _ := StartRunExecution(context.Background(), Run{ID: "r", AgentID: "a", AccountID: "x", RegressionID: c.regression, CreatedAt: time.Now()}, 1)
		sctx, step := StartStep(ctx, "s", "s", "regression_probe", 1)
		step.End(sctx, "completed", 0, nil, false)
		RunEnded(ctx, Run{ID: "r", AgentID: "a", AccountID: "x", RegressionID: c.regression, CreatedAt: time.Now()}, RunOutcome{Status: "completed"})
		if got := finished() - beforeRuns; got != c.want {
			t.Errorf("regression %q: runs finished counted %v, want %v", c.regression, got, c.want)
		}
		if got := stepSamples() - beforeSteps; float64(got) != c.want {
			t.Errorf("regression %q: steps counted %v, want %v", c.regression, got, c.want)
		}
	}
}
