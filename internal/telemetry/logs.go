package telemetry

import (
	"context"
	"log/slog"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"
)

// LogFields name what a log line is about. They travel in the context, so
// a line logged with slog.…Context anywhere below (a step, a model call,
// a job) names its run without each call site repeating it.
type LogFields struct {
	RunID, AgentID, AccountID string
	// Step is the key of the step being executed.
	Step string
}

type logKey struct{}

// WithLogFields returns ctx whose log lines carry f (fields left empty keep
// what ctx had).
func WithLogFields(ctx context.Context, f LogFields) context.Context {
	if old, ok := ctx.Value(logKey{}).(LogFields); ok {
		if f.RunID == "" {
			f.RunID = old.RunID
		}
		if f.AgentID == "" {
			f.AgentID = old.AgentID
		}
		if f.AccountID == "" {
			f.AccountID = old.AccountID
		}
		if f.Step == "" {
			f.Step = old.Step
		}
	}
	return context.WithValue(ctx, logKey{}, f)
}

// LogHandler wraps h so that every line carries the replica's name
// (node), and a line logged with a context carries that context's run,
// agent, account and step, and its trace and span ids.
func LogHandler(h slog.Handler, node string) slog.Handler {
	if node != "" {
		h = h.WithAttrs([]slog.Attr{slog.String("node", node)})
	}
	return logHandler{h}
}

type logHandler struct{ next slog.Handler }

func (l logHandler) Enabled(ctx context.Context, lv slog.Level) bool { return l.next.Enabled(ctx, lv) }

func (l logHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx != nil {
		if f, ok := ctx.Value(logKey{}).(LogFields); ok {
			add := func(k, v string) {
				if v != "" {
					r.AddAttrs(slog.String(k, v))
				}
			}
			add("run_id", f.RunID)
			add("agent_id", f.AgentID)
			add("account_id", f.AccountID)
			add("step", f.Step)
		}
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
		}
	}
	return l.next.Handle(ctx, r)
}

func (l logHandler) WithAttrs(as []slog.Attr) slog.Handler { return logHandler{l.next.WithAttrs(as)} }
func (l logHandler) WithGroup(name string) slog.Handler    { return logHandler{l.next.WithGroup(name)} }

// maxLogError bounds an error message in a log line or span status: an
// error may quote a large response.
const maxLogError = 1024

// clip shortens s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
