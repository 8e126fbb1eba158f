package jobs

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/telemetry"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// traceKey is the key of a job's metadata that carries the traceparent
// of the context it was enqueued from.
const traceKey = "trace"

// traced carries trace context through jobs: an insert writes the
// inserting context's traceparent into the job's metadata; a worker
// starts the job's span under it, with the server's telemetry in the
// job's context, and counts the attempt (wait, duration, outcome). So a
// job enqueued by a run, on any replica, continues the run's trace.
type traced struct {
	river.MiddlewareDefaults
	t *telemetry.T
}

func (m *traced) InsertMany(ctx context.Context, params []*rivertype.JobInsertParams, doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	if h := telemetry.TraceHeaders(ctx); len(h) > 0 {
		for _, p := range params {
			md := map[string]any{}
			if len(p.Metadata) > 0 {
				if err := json.Unmarshal(p.Metadata, &md); err != nil {
					continue // not ours to rewrite
				}
			}
			md[traceKey] = h
			if b, err := json.Marshal(md); err == nil {
				p.Metadata = b
			}
		}
	}
	return doInner(ctx)
}

func (m *traced) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	ctx = telemetry.With(ctx, m.t)
	if len(job.Metadata) > 0 {
		var md struct {
			Trace map[string]string `json:"trace"`
		}
		if json.Unmarshal(job.Metadata, &md) == nil {
			ctx = telemetry.FromTraceHeaders(ctx, md.Trace)
		}
	}
	ctx, span := telemetry.StartJob(ctx, job.Kind, job.ID, job.Attempt)
	began := time.Now()
	waited := time.Duration(0)
	if job.AttemptedAt != nil && job.AttemptedAt.After(job.ScheduledAt) {
		waited = job.AttemptedAt.Sub(job.ScheduledAt)
	}
	if job.Attempt > 1 {
		args := []any{"kind", job.Kind, "job_id", job.ID, "attempt", job.Attempt}
		if n := len(job.Errors); n > 0 {
			args = append(args, "previous_error", clipError(job.Errors[n-1].Error))
		}
		slog.InfoContext(ctx, "job retry", args...)
	}
	err := doInner(ctx)
	telemetry.JobWorked(job.Kind, waited.Seconds(), time.Since(began).Seconds(), err != nil)
	span.End(err)
	return err
}

func clipError(s string) string {
	if len(s) > 512 {
		return s[:512] + "…"
	}
	return s
}

// depthCollector reports the jobs waiting in the queue by kind and state
// (agentry_job_queue_depth), read from River's table at scrape time and
// kept a few seconds, so frequent scrapes cost one query.
type depthCollector struct {
	db   *store.DB
	desc *prometheus.Desc

	mu   sync.Mutex
	at   time.Time
	rows []depthRow
	// seen are the kind and state pairs reported before: one that no
	// longer has jobs reads 0, rather than vanishing from the graphs.
	seen map[[2]string]bool
}

type depthRow struct {
	kind, state string
	n           float64
}

// depthTTL is how long a reading of the queue's depth is reused.
const depthTTL = 5 * time.Second

func newDepthCollector(db *store.DB) *depthCollector {
	return &depthCollector{db: db, desc: prometheus.NewDesc("agentry_job_queue_depth",
		"Jobs waiting in the queue (shared by all replicas), by kind and state (available, scheduled, retryable, running).",
		[]string{"kind", "state"}, nil)}
}

func (c *depthCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *depthCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.at) > depthTTL {
		if rows, err := c.read(); err == nil {
			c.rows, c.at = rows, time.Now()
		} else {
			slog.Debug("job queue depth", "err", err)
		}
	}
	if c.seen == nil {
		c.seen = map[[2]string]bool{}
	}
	now := map[[2]string]bool{}
	for _, r := range c.rows {
		k := [2]string{r.kind, r.state}
		now[k], c.seen[k] = true, true
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, r.n, r.kind, r.state)
	}
	for k := range c.seen {
		if !now[k] {
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, 0, k[0], k[1])
		}
	}
}

func (c *depthCollector) read() ([]depthRow, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return queueDepth(ctx, c.db.R)
}

// Collector returns the queue's depth metric, for a server's /metrics.
func (q *Queue) Collector() prometheus.Collector { return q.depth }
