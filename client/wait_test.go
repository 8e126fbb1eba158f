package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
)

type runStatus struct {
	Status string `json:"status"`
}

func TestPoll(t *testing.T) {
	isolate(t)
	var calls atomic.Int32
	rec := newRecorder(t)
	rec.body = func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch {
		case r.URL.Path == "/gone":
			http.Error(w, `{"detail":"Run not found"}`, http.StatusNotFound)
		case r.URL.Path == "/forever":
			_ = json.NewEncoder(w).Encode(runStatus{"running"})
		case n == 2: // one transient failure in the middle is retried
			http.Error(w, `{"detail":"busy"}`, http.StatusServiceUnavailable)
		case n < 4:
			_ = json.NewEncoder(w).Encode(runStatus{"running"})
		default:
			_ = json.NewEncoder(w).Encode(runStatus{"completed"})
		}
	}
	c, _ := client.New(client.WithBaseURL(rec.URL), client.WithAPIKey("k"))
	fetch := func(path string) func(context.Context) (runStatus, error) {
		return func(ctx context.Context) (runStatus, error) {
			var s runStatus
			return s, c.Do(ctx, http.MethodGet, path, nil, &s)
		}
	}
	finished := func(s runStatus) bool { return s.Status == "completed" }

	got, err := client.Poll(ctx, client.PollOptions{Interval: 5 * time.Millisecond, Timeout: 5 * time.Second}, fetch("/runs/r1"), finished)
	if err != nil || got.Status != "completed" || calls.Load() != 4 {
		t.Fatalf("poll = %+v, %v after %d calls", got, err, calls.Load())
	}

	calls.Store(0)
	_, err = client.Poll(ctx, client.PollOptions{Interval: 5 * time.Millisecond, Timeout: time.Second}, fetch("/gone"), finished)
	if !errors.Is(err, client.ErrNotFound) || calls.Load() != 1 {
		t.Fatalf("a 404 must end the poll at once: %v after %d calls", err, calls.Load())
	}

	start := time.Now()
	got, err = client.Poll(ctx, client.PollOptions{Interval: 10 * time.Millisecond, Timeout: 80 * time.Millisecond}, fetch("/forever"), finished)
	if !errors.Is(err, client.ErrPollTimeout) || got.Status != "running" || time.Since(start) > 2*time.Second {
		t.Fatalf("timeout: %+v, %v after %v", got, err, time.Since(start))
	}
}
