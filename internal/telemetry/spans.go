package telemetry

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span names and attributes follow the OpenTelemetry GenAI semantic
// conventions where they apply (gen_ai.*: invoke_agent, chat,
// embeddings, execute_tool, retrieval); what they do not cover is under
// agentry.*. No span carries a secret, a request's headers or a full URL
// (a webhook's path can be its credential); prompt, completion, tool and
// query text only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.

// start opens a span when ctx's telemetry traces, else returns ctx and a
// no-op span. kv builds the attributes, only for a span that records.
func start(ctx context.Context, name string, kind trace.SpanKind, kv func() []attribute.KeyValue) (context.Context, trace.Span) {
	tr, on := tracer(ctx)
	if !on {
		return ctx, trace.SpanFromContext(context.Background())
	}
	ctx, span := tr.Start(ctx, name, trace.WithSpanKind(kind))
	if span.IsRecording() && kv != nil {
		span.SetAttributes(kv()...)
	}
	return ctx, span
}

// fail marks span as failed with err's message (clipped).
func fail(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		span.SetStatus(codes.Error, clip(err.Error(), maxLogError))
		span.SetAttributes(attribute.String("error.type", errorType(err)))
	}
}

// errorType names an error's kind for error.type, without its text.
func errorType(err error) string {
	if err == context.Canceled || err == context.DeadlineExceeded {
		return err.Error()
	}
	return "_OTHER"
}

// Step is the span of one step attempt.
type Step struct {
	span  trace.Span
	typ   string
	start time.Time
}

// StartStep opens the span of one attempt of a step (a child of the run's
// span) and names the step in ctx's log lines.
func StartStep(ctx context.Context, id, key, typ string, attempt int) (context.Context, *Step) {
	if st := statsOf(ctx); st != nil {
		st.Steps.Add(1)
	}
	ctx = WithLogFields(ctx, LogFields{Step: key})
	ctx, span := start(ctx, "step "+id, trace.SpanKindInternal, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("agentry.step.id", id), attribute.String("agentry.step.key", key),
			attribute.String("agentry.step.type", typ), attribute.Int("agentry.step.attempt", attempt)}
	})
	return ctx, &Step{span: span, typ: typ, start: time.Now()}
}

// End closes the step's span with its status (completed, failed,
// waiting), counts its duration, and logs a failure. blocked says an
// overseer (a policy, an evaluation) stopped the output: the line then
// names no error text, which could describe what was blocked.
func (s *Step) End(ctx context.Context, status string, outputBytes int, err error, blocked bool) {
	if r, ok := RunOf(ctx); !ok || r.RegressionID == "" { // a regression's replay is no production run
		stepDuration.WithLabelValues(s.typ, status).Observe(time.Since(s.start).Seconds())
	}
	if s.span.IsRecording() {
		s.span.SetAttributes(attribute.String("agentry.step.status", status), attribute.Int("agentry.step.output_bytes", outputBytes))
		if blocked {
			s.span.SetStatus(codes.Error, "blocked by oversight")
		} else {
			fail(s.span, err)
		}
	}
	s.span.End()
	if status != "failed" {
		return
	}
	if blocked {
		slog.InfoContext(ctx, "step blocked", "type", s.typ)
	} else if err != nil {
		slog.InfoContext(ctx, "step failed", "type", s.typ, "error", clip(err.Error(), maxLogError))
	}
}

// StepRetry logs that a failed step attempt is tried again after wait.
func StepRetry(ctx context.Context, attempt int, wait time.Duration, err error) {
	slog.InfoContext(ctx, "step retry", "next_attempt", attempt, "backoff_ms", wait.Milliseconds(), "error", clip(err.Error(), maxLogError))
}

// EvaluationRetry logs that a step runs again with an evaluation's feedback.
func EvaluationRetry(ctx context.Context, attempt int) {
	slog.InfoContext(ctx, "step retry after failed evaluation", "next_attempt", attempt)
}

// RetryFrom logs a retry step sending the run back to step target.
func RetryFrom(ctx context.Context, target string, n, max int) {
	slog.InfoContext(ctx, "retry from step", "target", target, "retry", n, "max_retries", max)
}

// Tool is the span of one tool call.
type Tool struct {
	span trace.Span
	ctx  context.Context
}

// StartTool opens an execute_tool span for a call the model asked for.
// kind is the gen_ai.tool.type: function (a built-in tool), extension
// (an MCP server's), datastore (retrieval).
func StartTool(ctx context.Context, name, callID, kind string) (context.Context, *Tool) {
	ctx, span := start(ctx, "execute_tool "+name, trace.SpanKindInternal, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", name),
			attribute.String("gen_ai.tool.call.id", callID), attribute.String("gen_ai.tool.type", kind)}
	})
	return ctx, &Tool{span: span, ctx: ctx}
}

// End closes the tool's span; arguments and result are kept only when
// message content is captured.
func (t *Tool) End(arguments, result string, err error) {
	if t.span.IsRecording() {
		if captureContent(t.ctx) {
			t.span.SetAttributes(attribute.String("gen_ai.tool.call.arguments", arguments), attribute.String("gen_ai.tool.call.result", result))
		}
		fail(t.span, err)
	}
	t.span.End()
}

// Op is a span around one operation (retrieval, memory, evaluation,
// policy check, job) that its caller annotates and ends.
type Op struct {
	span trace.Span
	ctx  context.Context
}

// Set adds attributes (only to a span that records).
func (o *Op) Set(kv ...attribute.KeyValue) {
	if o.span.IsRecording() {
		o.span.SetAttributes(kv...)
	}
}

// Content adds text attributes only when message content is captured.
func (o *Op) Content(key, text string) {
	if o.span.IsRecording() && captureContent(o.ctx) {
		o.span.SetAttributes(attribute.String(key, text))
	}
}

// End closes the span, failed when err is not nil.
func (o *Op) End(err error) {
	fail(o.span, err)
	o.span.End()
}

// StartRetrieval opens a retrieval span over a knowledge base (the
// query text only when content is captured).
func StartRetrieval(ctx context.Context, knowledgeBaseID, query string, topK int) (context.Context, *Op) {
	ctx, span := start(ctx, "retrieval "+knowledgeBaseID, trace.SpanKindInternal, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("gen_ai.operation.name", "retrieval"), attribute.String("gen_ai.data_source.id", knowledgeBaseID),
			attribute.Int("gen_ai.request.top_k", topK)}
	})
	o := &Op{span: span, ctx: ctx}
	o.Content("gen_ai.retrieval.query.text", query)
	return ctx, o
}

// Hits records how many passages a retrieval returned.
func (o *Op) Hits(n int) { o.Set(attribute.Int("agentry.retrieval.hits", n)) }

// StartMemory opens the span of a memory read or write (op: search,
// add, load_history, add_turn) on a bank.
func StartMemory(ctx context.Context, op, bankID string) (context.Context, *Op) {
	ctx, span := start(ctx, "memory "+op, trace.SpanKindInternal, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("agentry.memory.operation", op), attribute.String("agentry.memory.bank_id", bankID)}
	})
	return ctx, &Op{span: span, ctx: ctx}
}

// StartPolicyCheck opens the span of a governance check of a run's input
// or a step's output.
func StartPolicyCheck(ctx context.Context, stage string) (context.Context, *Op) {
	ctx, span := start(ctx, "policy_check "+stage, trace.SpanKindInternal, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("agentry.policy.stage", stage)}
	})
	return ctx, &Op{span: span, ctx: ctx}
}

// PolicyOutcome records a check's outcome: allow, flag, block or error.
// A block is logged, naming the policy and the rule, never the text.
func (o *Op) PolicyOutcome(stage, outcome, policyID, rule string) {
	policyChecks.WithLabelValues(stage, outcome).Inc()
	o.Set(attribute.String("agentry.policy.outcome", outcome))
	if policyID != "" {
		o.Set(attribute.String("agentry.policy.id", policyID), attribute.String("agentry.policy.rule", rule))
	}
	if outcome == "block" {
		slog.InfoContext(o.ctx, "policy blocked", "stage", stage, "policy_id", policyID, "rule", rule)
	}
}

// StartEvaluation opens the span of one criterion's judgment of a step's
// output.
func StartEvaluation(ctx context.Context, criterionID string) (context.Context, *Op) {
	ctx, span := start(ctx, "evaluation "+criterionID, trace.SpanKindInternal, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("gen_ai.evaluation.name", criterionID)}
	})
	return ctx, &Op{span: span, ctx: ctx}
}

// EvaluationOutcome records a judgment: status passed, failed, error or
// skipped, and its score when it has one. A failure is logged.
func (o *Op) EvaluationOutcome(criterionID, status string, score *float64) {
	evaluations.WithLabelValues(evaluationLabel(status)).Inc()
	o.Set(attribute.String("gen_ai.evaluation.score.label", status))
	args := []any{"criterion_id", criterionID, "status", status}
	if score != nil {
		o.Set(attribute.Float64("gen_ai.evaluation.score.value", *score))
		args = append(args, "score", *score)
	}
	if status == "failed" || status == "error" {
		slog.InfoContext(o.ctx, "evaluation failed", args...)
	}
}

func evaluationLabel(s string) string {
	switch s {
	case "passed", "failed", "error", "skipped":
		return s
	}
	return "other"
}

// StartJob opens the span of one attempt of a job of kind (its parent is
// the context the job was enqueued from, carried in the job's metadata).
func StartJob(ctx context.Context, kind string, id int64, attempt int) (context.Context, *Op) {
	ctx, span := start(ctx, "job "+kind, trace.SpanKindConsumer, func() []attribute.KeyValue {
		return []attribute.KeyValue{attribute.String("agentry.job.kind", kind), attribute.String("agentry.job.id", strconv.FormatInt(id, 10)),
			attribute.Int("agentry.job.attempt", attempt)}
	})
	return ctx, &Op{span: span, ctx: ctx}
}
