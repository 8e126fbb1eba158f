// Package telemetry owns what an operator sees of a running Agentry: the
// OpenTelemetry traces of runs (off unless the standard OTEL_* variables
// ask for them), the run-level Prometheus metrics, and the log lines that
// name a run. Areas call its small helpers at their call sites (a span
// around a step, a model call, a tool call…); no other package imports the
// OpenTelemetry SDK.
//
// A server builds one T (Setup) and hands it to every context it starts
// from (With): HTTP requests, jobs, background loops. The helpers find it
// there, and do nothing when it is absent or tracing is off, so a call
// site costs next to nothing on a server that exports no traces.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Config is what a server tells Setup; everything else comes from the
// standard OTEL_* environment variables.
type Config struct {
	// Node is the replica's name (--node-name): the resource's
	// service.instance.id, so a trace shows which replica ran each part.
	Node string
	// ServiceVersion is the software version (service.version).
	ServiceVersion string
}

// T is one server's telemetry: its tracer (a no-op one when tracing is
// off) and the choices read from the environment.
type T struct {
	tracer   trace.Tracer
	provider *sdktrace.TracerProvider // nil when tracing is off
	sampler  sdktrace.Sampler
	content  bool
	node     string
}

// scope names the instrumentation in every span.
const scope = "github.com/agentry/agentry"

// Off is telemetry with tracing off: what Setup returns when no OTEL_*
// variable asks for traces.
func Off(node string) *T {
	return &T{tracer: noop.NewTracerProvider().Tracer(scope), sampler: sdktrace.NeverSample(), node: node}
}

// Setup reads the OTEL_* variables and starts exporting traces when they
// ask for it: OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT) set, or
// OTEL_TRACES_EXPORTER=otlp. OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none keep it off. The exporter reads its own
// variables (headers, timeout, compression, certificates); spans wait in
// a bounded queue (OTEL_BSP_*) and are dropped, and counted, when it is
// full, so exporting never holds up or fails a run.
func Setup(ctx context.Context, cfg Config) (*T, error) {
	t := Off(cfg.Node)
	t.content = strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")), "true")
	on, err := tracesWanted()
	if err != nil || !on {
		return t, err
	}
	exp, err := newExporter(ctx)
	if err != nil {
		return nil, err
	}
	sampler, err := samplerFromEnv()
	if err != nil {
		return nil, err
	}
	name := "agentry"
	base := []attribute.KeyValue{attribute.String("service.name", name)}
	if cfg.ServiceVersion != "" {
		base = append(base, attribute.String("service.version", cfg.ServiceVersion))
	}
	if cfg.Node != "" {
		base = append(base, attribute.String("service.instance.id", cfg.Node), attribute.String("host.name", cfg.Node))
	}
	// Later detectors win: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
	// override the defaults above.
	res, err := resource.New(ctx, resource.WithAttributes(base...), resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	proc, err := newQueueProcessor(exp)
	if err != nil {
		return nil, err
	}
	limits := sdktrace.NewSpanLimits()
	if limits.AttributeValueLengthLimit < 0 || limits.AttributeValueLengthLimit > maxAttributeBytes {
		// Prompt text can be long: no attribute value is kept whole past this.
		limits.AttributeValueLengthLimit = maxAttributeBytes
	}
	t.provider = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithSampler(sampler),
		sdktrace.WithSpanProcessor(proc), sdktrace.WithIDGenerator(idGenerator{}), sdktrace.WithRawSpanLimits(limits))
	t.tracer, t.sampler = t.provider.Tracer(scope), sampler
	return t, nil
}

// maxAttributeBytes bounds every attribute value a span carries.
const maxAttributeBytes = 16 << 10

// Enabled reports whether this server exports traces.
func (t *T) Enabled() bool { return t != nil && t.provider != nil }

// Node is the replica's name.
func (t *T) Node() string {
	if t == nil {
		return ""
	}
	return t.node
}

// Shutdown exports the spans still queued (until ctx ends) and stops.
func (t *T) Shutdown(ctx context.Context) error {
	if !t.Enabled() {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// ForceFlush exports the spans queued so far.
func (t *T) ForceFlush(ctx context.Context) error {
	if !t.Enabled() {
		return nil
	}
	return t.provider.ForceFlush(ctx)
}

type ctxKey struct{}

// With returns ctx carrying t, for everything started from it.
func With(ctx context.Context, t *T) context.Context {
	if t == nil {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, t)
}

// From returns the telemetry ctx carries, or nil.
func From(ctx context.Context) *T {
	t, _ := ctx.Value(ctxKey{}).(*T)
	return t
}

// tracer is the tracer of ctx's telemetry, or of the span it carries
// (its provider's), or a no-op one.
func tracer(ctx context.Context) (trace.Tracer, bool) {
	if t := From(ctx); t != nil {
		return t.tracer, t.Enabled()
	}
	if s := trace.SpanFromContext(ctx); s.IsRecording() {
		return s.TracerProvider().Tracer(scope), true
	}
	return nil, false
}

// captureContent reports whether spans of ctx may carry prompt and
// completion text (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true),
// unless WithoutContent withheld it.
func captureContent(ctx context.Context) bool {
	t := From(ctx)
	return t != nil && t.content && ctx.Value(noContentKey{}) == nil
}

type noContentKey struct{}

// WithoutContent returns ctx whose spans carry no message content even
// when content capture is on: for work whose text a governance policy may
// yet block, which must then be kept nowhere.
func WithoutContent(ctx context.Context) context.Context {
	return context.WithValue(ctx, noContentKey{}, true)
}

// tracesWanted reads whether the environment asks for traces.
func tracesWanted() (bool, error) {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	switch exp := strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER"))); exp {
	case "none":
		return false, nil
	case "otlp":
		return true, nil
	case "":
		return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "", nil
	default:
		return false, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: this server exports traces only by otlp (or none)", exp)
	}
}

// newExporter builds the OTLP exporter of OTEL_EXPORTER_OTLP_PROTOCOL
// (or _TRACES_PROTOCOL): http/protobuf, the standard's default, or grpc.
// Both read the rest of their OTEL_EXPORTER_OTLP_* variables themselves.
func newExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	proto := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch strings.TrimSpace(proto) {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx)
	case "grpc":
		return otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%s: use grpc or http/protobuf", proto)
	}
}

// samplerFromEnv reads OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG as
// the standard defines them (default parentbased_always_on). The server
// keeps the sampler to decide, when a run is created, whether its trace
// is sampled, so every replica that later works on the run agrees.
func samplerFromEnv() (sdktrace.Sampler, error) {
	name := strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_TRACES_SAMPLER")))
	arg := strings.TrimSpace(os.Getenv("OTEL_TRACES_SAMPLER_ARG"))
	ratio := func() (sdktrace.Sampler, error) {
		if arg == "" {
			return sdktrace.TraceIDRatioBased(1), nil
		}
		f, err := strconv.ParseFloat(arg, 64)
		if err != nil || f < 0 || f > 1 {
			return nil, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%s: want a ratio from 0 to 1", arg)
		}
		return sdktrace.TraceIDRatioBased(f), nil
	}
	switch name {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "traceidratio":
		return ratio()
	case "parentbased_traceidratio":
		r, err := ratio()
		if err != nil {
			return nil, err
		}
		return sdktrace.ParentBased(r), nil
	}
	return nil, fmt.Errorf("OTEL_TRACES_SAMPLER=%s: use always_on, always_off, traceidratio or their parentbased_ forms", name)
}

// envDuration reads a duration given in milliseconds (OTEL_BSP_*).
func envDuration(name string, def time.Duration) time.Duration {
	if v, err := strconv.Atoi(strings.TrimSpace(os.Getenv(name))); err == nil && v > 0 {
		return time.Duration(v) * time.Millisecond
	}
	return def
}

// envInt reads a positive count (OTEL_BSP_*).
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(strings.TrimSpace(os.Getenv(name))); err == nil && v > 0 {
		return v
	}
	return def
}
