package jobs

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestRoutineQueueMessagesLogAtDebug(t *testing.T) {
	for _, tc := range []struct {
		level   slog.Level
		want    string // substring of the output; "" means no output
		message string
	}{
		{slog.LevelInfo, "", "producer: Producer job counts"},
		{slog.LevelInfo, "", "JobCleaner: Ran successfully"},
		{slog.LevelDebug, "level=DEBUG msg=\"producer: Producer job counts\"", "producer: Producer job counts"},
		{slog.LevelInfo, "level=INFO msg=\"River client started\"", "River client started"},
	} {
		var buf bytes.Buffer
		log := slog.New(quietShutdown{slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: tc.level})})
		log.InfoContext(context.Background(), tc.message, slog.Int("num_jobs_running", 0))
		got := buf.String()
		if tc.want == "" && got != "" {
			t.Errorf("at %v, %q logged %q; want nothing", tc.level, tc.message, got)
		}
		if tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("at %v, %q logged %q; want %q", tc.level, tc.message, got, tc.want)
		}
	}
}

func TestCancelledContextErrorsAreDropped(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(quietShutdown{slog.NewTextHandler(&buf, nil)})
	log.Error("producer: Error fetching jobs", slog.String("err", errors.Join(context.Canceled).Error()))
	log.Error("producer: Error fetching jobs", slog.String("err", "connection refused"))
	if n := strings.Count(buf.String(), "\n"); n != 1 || !strings.Contains(buf.String(), "connection refused") {
		t.Fatalf("got %q; want only the connection error", buf.String())
	}
}
