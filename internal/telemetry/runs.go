package telemetry

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Run names a run for its span, its log lines and its metrics.
type Run struct {
	ID, AgentID, AgentName, AccountID string
	// Trigger is the run's trigger type (dynamic_input, schedule,
	// email_received, call_agent…).
	Trigger   string
	Trace     RunTrace
	CreatedAt time.Time
	// ChangeID is the workflow version the run executes; RerunOf the run
	// it was rerun from ("" for none).
	ChangeID, RerunOf string
	// RegressionID names the regression a replay belongs to: such a run
	// is no production run, so it is kept out of the run and step metrics
	// (its span and log lines stay, marked with it).
	RegressionID string
}

// RunStats counts what one execution of a run did: the steps it ran and
// the tokens its model calls used. Spans started in the execution's
// context add to it.
type RunStats struct {
	Steps, InputTokens, OutputTokens atomic.Int64
	started                          time.Time
}

type runKey struct{}

type runState struct {
	run   Run
	stats *RunStats
}

// RunCreated counts a new run, by trigger.
func RunCreated(trigger string) {
	runsStarted.WithLabelValues(triggerLabel(trigger)).Inc()
}

// StartRunExecution is where a worker begins (attempt 1) or resumes
// (later attempts: a crash, a decided review) a run: ctx comes back
// inside the run's span, naming the run to every log line, and the
// returned stats count the execution's steps and tokens.
func StartRunExecution(ctx context.Context, r Run, attempt int) (context.Context, *RunStats) {
	st := &RunStats{started: time.Now()}
	ctx = context.WithValue(ctx, runKey{}, &runState{run: r, stats: st})
	ctx = WithLogFields(ctx, LogFields{RunID: r.ID, AgentID: r.AgentID, AccountID: r.AccountID})
	ctx = r.Trace.Resume(ctx)
	if attempt <= 1 {
		slog.InfoContext(ctx, "run started", "trigger", r.Trigger)
	} else {
		slog.InfoContext(ctx, "run resumed", "trigger", r.Trigger, "attempt", attempt)
	}
	return ctx, st
}

// RunOf returns the run ctx executes, if any.
func RunOf(ctx context.Context) (Run, bool) {
	if s, ok := ctx.Value(runKey{}).(*runState); ok {
		return s.run, true
	}
	return Run{}, false
}

func statsOf(ctx context.Context) *RunStats {
	if s, ok := ctx.Value(runKey{}).(*runState); ok {
		return s.stats
	}
	return nil
}

// RunOutcome is how a run's execution ended.
type RunOutcome struct {
	Status     string // completed, failed, or waiting_human (parked)
	Error      string
	Credits    float64 // of this execution
	ErrorCount int
}

// RunEnded records the end of an execution of r: parked for a review, it
// logs that; ended (completed or failed), it sends the run's span, whose
// time spans the run's life from its creation, counts the run and its
// duration, and logs the run's end with what this execution did.
func RunEnded(ctx context.Context, r Run, out RunOutcome) {
	ctx = WithLogFields(ctx, LogFields{RunID: r.ID, AgentID: r.AgentID, AccountID: r.AccountID})
	ctx = r.Trace.Resume(ctx)
	st := statsOf(ctx)
	var steps, in, outTok int64
	var exec time.Duration
	if st != nil {
		steps, in, outTok, exec = st.Steps.Load(), st.InputTokens.Load(), st.OutputTokens.Load(), time.Since(st.started)
	}
	end := time.Now()
	if out.Status != "completed" && out.Status != "failed" {
		slog.InfoContext(ctx, "run parked", "status", out.Status, "steps", steps, "input_tokens", in, "output_tokens", outTok,
			"credits", out.Credits, "execution_ms", exec.Milliseconds())
		return
	}
	dur := end.Sub(r.CreatedAt)
	if r.CreatedAt.IsZero() {
		dur = exec
	}
	if r.RegressionID == "" {
		runsFinished.WithLabelValues(out.Status).Inc()
		runDuration.WithLabelValues(out.Status).Observe(dur.Seconds())
	}
	attrs := []any{"status", out.Status, "trigger", r.Trigger, "duration_ms", dur.Milliseconds(), "steps", steps,
		"input_tokens", in, "output_tokens", outTok, "credits", out.Credits}
	if r.RegressionID != "" {
		attrs = append(attrs, "regression_id", r.RegressionID)
	}
	if out.Error != "" {
		attrs = append(attrs, "error", clip(out.Error, maxLogError))
	}
	slog.InfoContext(ctx, "run finished", attrs...)
	emitRunSpan(ctx, r, out, end)
}

// emitRunSpan sends the run's span under the ids chosen at its creation.
func emitRunSpan(ctx context.Context, r Run, out RunOutcome, end time.Time) {
	sc, parent, ok := r.Trace.parse()
	tr, on := tracer(ctx)
	if !ok || !on || !sc.IsSampled() {
		return
	}
	// The span starts from its stored parent (or none), taking the ids
	// stored for it.
	base := trace.ContextWithSpanContext(ctx, trace.SpanContext{})
	if parent.IsValid() {
		base = trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: sc.TraceID(), SpanID: parent, TraceFlags: sc.TraceFlags(), Remote: true}))
	}
	base = context.WithValue(base, forcedKey{}, &forcedIDs{tid: sc.TraceID(), sid: sc.SpanID()})
	name := "invoke_agent"
	if r.AgentName != "" {
		name += " " + clip(r.AgentName, 128)
	}
	start := r.CreatedAt
	if start.IsZero() {
		start = end
	}
	_, span := tr.Start(base, name, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.id", r.AgentID),
		attribute.String("gen_ai.agent.name", r.AgentName),
		attribute.String("agentry.run.id", r.ID),
		attribute.String("agentry.account.id", r.AccountID),
		attribute.String("agentry.run.trigger", r.Trigger),
		attribute.String("agentry.run.status", out.Status),
		attribute.Float64("agentry.run.credits", out.Credits),
		attribute.Int("agentry.run.error_count", out.ErrorCount),
		attribute.String("agentry.agent.change_id", r.ChangeID),
	))
	if r.RerunOf != "" {
		span.SetAttributes(attribute.String("agentry.run.rerun_of", r.RerunOf))
	}
	if r.RegressionID != "" {
		span.SetAttributes(attribute.String("agentry.run.regression_id", r.RegressionID))
	}
	if out.Status == "failed" {
		span.SetStatus(codes.Error, clip(out.Error, maxLogError))
	}
	span.End(trace.WithTimestamp(end))
}

// triggerLabel bounds the trigger label to the known trigger types.
func triggerLabel(t string) string {
	switch t {
	case "dynamic_input", "template_input", "schedule", "new_content", "email_received", "call_agent", "webhook":
		return t
	case "":
		return "unknown"
	}
	return "other"
}

// SetAgentName names the agent of the run ctx executes, once it is known
// (the run's span is named after it).
func SetAgentName(ctx context.Context, name string) {
	if s, ok := ctx.Value(runKey{}).(*runState); ok {
		s.run.AgentName = name
	}
}
