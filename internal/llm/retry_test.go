package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		h    map[string]string
		want time.Duration
	}{
		{map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{map[string]string{"Retry-After": now.Add(3 * time.Second).Format(http.TimeFormat)}, 3 * time.Second},
		{map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "-4"}, 0},
		{map[string]string{}, 0},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.h {
			h.Set(k, v)
		}
		if got := ParseRetryAfter(h, now); got != c.want {
			t.Errorf("%v: got %v want %v", c.h, got, c.want)
		}
	}
}

func TestRetryPolicy(t *testing.T) {
	var waits []time.Duration
	p := RetryPolicy{MaxAttempts: 5, BaseDelay: 100 * time.Millisecond, MaxDelay: 300 * time.Millisecond, MaxRetryAfter: time.Minute,
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	calls := 0
	err := p.Do(context.Background(), func(context.Context) error {
		calls++
		switch calls {
		case 1:
			return &APIError{StatusCode: 500}
		case 2:
			return &APIError{StatusCode: 429, RetryAfter: 7 * time.Second}
		case 3:
			return fmt.Errorf("wrapped: %w", io.ErrUnexpectedEOF)
		case 4:
			return &APIError{StatusCode: 502}
		}
		return nil
	})
	if err != nil || calls != 5 {
		t.Fatalf("err %v calls %d", err, calls)
	}
	// Backoff doubles with jitter in [d/2, d], capped; Retry-After is exact.
	bounds := [][2]time.Duration{{50, 100}, {7000, 7000}, {100, 300}, {150, 300}}
	for i, w := range waits {
		lo, hi := bounds[i][0]*time.Millisecond, bounds[i][1]*time.Millisecond
		if w < lo || w > hi {
			t.Errorf("wait %d = %v, want [%v, %v]", i, w, lo, hi)
		}
	}

	// Permanent errors and exhausted attempts stop the loop.
	calls = 0
	err = p.Do(context.Background(), func(context.Context) error { calls++; return &APIError{StatusCode: 400} })
	if calls != 1 || err == nil {
		t.Errorf("400 retried: %d", calls)
	}
	calls = 0
	err = p.Do(context.Background(), func(context.Context) error { calls++; return &APIError{StatusCode: 503} })
	var apiErr *APIError
	if calls != 5 || !errors.As(err, &apiErr) {
		t.Errorf("attempts %d err %v", calls, err)
	}
	// A Retry-After beyond the cap, or beyond the deadline, fails at once.
	calls = 0
	_ = p.Do(context.Background(), func(context.Context) error { calls++; return &APIError{StatusCode: 429, RetryAfter: time.Hour} })
	if calls != 1 {
		t.Errorf("hour-long Retry-After retried")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	calls = 0
	err = p.Do(ctx, func(context.Context) error { calls++; return &APIError{StatusCode: 429, RetryAfter: 30 * time.Second} })
	if calls != 1 || !errors.As(err, &apiErr) {
		t.Errorf("retry past deadline: calls %d err %v", calls, err)
	}
	// Cancellation is never retried.
	calls = 0
	_ = p.Do(context.Background(), func(context.Context) error { calls++; return context.Canceled })
	if calls != 1 {
		t.Error("cancellation retried")
	}
}

func TestDoStreamRetriesOnlyBeforeDelivery(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
	calls := 0
	_, err := p.DoStream(context.Background(), func(Delta) error { return nil }, func(ctx context.Context, emit StreamFunc) (*ChatResponse, error) {
		calls++
		if calls == 1 {
			return nil, &APIError{StatusCode: 503}
		}
		_ = emit(Delta{Text: "x"})
		return nil, &APIError{StatusCode: 503}
	})
	if calls != 2 || err == nil {
		t.Errorf("calls %d err %v", calls, err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Errorf("error type lost: %T", err)
	}
}

func TestEstimateTokens(t *testing.T) {
	cases := map[string]int{"": 0, "hello": 1, "hello world": 2, "internationalization": 4, "Hi, there!": 4, "日本語": 3, "café au lait": 3}
	for s, want := range cases {
		if got := EstimateTokens(s); got != want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", s, got, want)
		}
	}
}
