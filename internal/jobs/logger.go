package jobs

import (
	"context"
	"log/slog"
	"strings"
)

// quietShutdown passes River's log records on, except those whose cause is
// a cancelled context: River logs them at ERROR while stopping, which would
// make every clean SIGTERM look like a fault.
type quietShutdown struct{ slog.Handler }

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
	return h.Handler.Handle(ctx, r)
}

func (h quietShutdown) WithAttrs(as []slog.Attr) slog.Handler {
	return quietShutdown{h.Handler.WithAttrs(as)}
}

func (h quietShutdown) WithGroup(name string) slog.Handler {
	return quietShutdown{h.Handler.WithGroup(name)}
}
