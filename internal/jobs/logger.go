package jobs

import (
	"context"
	"log/slog"
	"strings"
)

// quietShutdown passes River's log records on, except those whose cause is
// a cancelled context: River logs them at ERROR while stopping, which would
// make every clean SIGTERM look like a fault. It also lowers River's
// routine chatter (the producer's job counts every few seconds, each
// maintenance pass that "ran successfully") from INFO to DEBUG, so the
// server's INFO log says what happened rather than that nothing did.
type quietShutdown struct{ slog.Handler }

// routineMessages are substrings of River's INFO messages that a healthy
// queue repeats on a timer.
var routineMessages = []string{
	": Producer job counts",
	": Ran successfully",
}

func (h quietShutdown) Handle(ctx context.Context, r slog.Record) error {
	cancelled := false
	r.Attrs(func(a slog.Attr) bool {
		if strings.Contains(a.Value.String(), context.Canceled.Error()) {
			cancelled = true
			return false
		}
		return true
	})
	if cancelled {
		return nil
	}
	if r.Level == slog.LevelInfo && isRoutine(r.Message) {
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r = r.Clone()
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func isRoutine(msg string) bool {
	for _, m := range routineMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

func (h quietShutdown) WithAttrs(as []slog.Attr) slog.Handler {
	return quietShutdown{h.Handler.WithAttrs(as)}
}

func (h quietShutdown) WithGroup(name string) slog.Handler {
	return quietShutdown{h.Handler.WithGroup(name)}
}
