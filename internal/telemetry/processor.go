package telemetry

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// queueProcessor hands ended spans to the exporter in batches, from a
// bounded queue: a span that finds the queue full is dropped and counted
// (agentry_trace_spans_dropped_total), so a slow or absent collector
// never holds up a run. The SDK's batch processor behaves the same but
// keeps its drop count to itself; an operator needs to see it.
type queueProcessor struct {
	exp       sdktrace.SpanExporter
	queue     chan sdktrace.ReadOnlySpan
	batchSize int
	delay     time.Duration
	timeout   time.Duration

	flush    chan chan struct{}
	stop     chan struct{}
	done     chan struct{}
	stopping atomic.Bool
	once     sync.Once
	// lastWarn rate-limits the log line of failed exports.
	lastWarn atomic.Int64
}

// newQueueProcessor reads the standard OTEL_BSP_* variables: queue size
// (2048), batch size (512), delay between exports (5000 ms) and the time
// one export may take (30000 ms).
func newQueueProcessor(exp sdktrace.SpanExporter) (*queueProcessor, error) {
	size := envInt("OTEL_BSP_MAX_QUEUE_SIZE", 2048)
	batch := min(envInt("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512), size)
	p := &queueProcessor{exp: exp, queue: make(chan sdktrace.ReadOnlySpan, size), batchSize: batch,
		delay: envDuration("OTEL_BSP_SCHEDULE_DELAY", 5*time.Second), timeout: envDuration("OTEL_BSP_EXPORT_TIMEOUT", 30*time.Second),
		flush: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p, nil
}

func (p *queueProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues a sampled span, or drops it when the queue is full.
func (p *queueProcessor) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	if p.stopping.Load() {
		spansDropped.WithLabelValues("shutdown").Inc()
		return
	}
	select {
	case p.queue <- s:
	default:
		spansDropped.WithLabelValues("queue_full").Inc()
	}
}

func (p *queueProcessor) loop() {
	defer close(p.done)
	batch := make([]sdktrace.ReadOnlySpan, 0, p.batchSize)
	tick := time.NewTimer(p.delay)
	defer tick.Stop()
	export := func() {
		if len(batch) > 0 {
			p.export(batch)
			batch = batch[:0]
		}
	}
	drain := func() {
		for {
			select {
			case s := <-p.queue:
				batch = append(batch, s)
				if len(batch) >= p.batchSize {
					export()
				}
			default:
				export()
				return
			}
		}
	}
	for {
		select {
		case s := <-p.queue:
			batch = append(batch, s)
			if len(batch) >= p.batchSize {
				export()
			}
		case <-tick.C:
			export()
			tick.Reset(p.delay)
		case ack := <-p.flush:
			drain()
			close(ack)
		case <-p.stop:
			drain()
			return
		}
	}
}

func (p *queueProcessor) export(batch []sdktrace.ReadOnlySpan) {
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
	defer cancel()
	if err := p.exp.ExportSpans(ctx, batch); err != nil {
		spansDropped.WithLabelValues("export_failed").Add(float64(len(batch)))
		now := time.Now().UnixNano()
		if last := p.lastWarn.Load(); now-last > int64(time.Minute) && p.lastWarn.CompareAndSwap(last, now) {
			slog.Warn("trace export failed; spans dropped (agentry_trace_spans_dropped_total counts them)", "spans", len(batch), "err", err)
		}
		return
	}
	spansExported.Add(float64(len(batch)))
}

// ForceFlush exports everything queued, waiting until ctx ends at most.
func (p *queueProcessor) ForceFlush(ctx context.Context) error {
	if p.stopping.Load() {
		return nil
	}
	ack := make(chan struct{})
	select {
	case p.flush <- ack:
	case <-p.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports what is queued and stops the exporter.
func (p *queueProcessor) Shutdown(ctx context.Context) error {
	var err error
	p.once.Do(func() {
		p.stopping.Store(true)
		close(p.stop)
		select {
		case <-p.done:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if e := p.exp.Shutdown(ctx); err == nil {
			err = e
		}
	})
	return err
}
