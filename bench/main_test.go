package bench

import (
	"log/slog"
	"os"
	"testing"
)

// TestMain keeps the servers' start and stop lines out of benchmark output,
// where they would split a benchmark's name from its figures.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	os.Exit(m.Run())
}
