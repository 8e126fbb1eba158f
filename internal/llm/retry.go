package llm

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RetryPolicy retries transient failures with exponential backoff and full
// jitter, honouring the server's Retry-After. We retry here rather than in
// the SDKs (whose retries we switch off) so that OpenAI-compatible and
// Anthropic endpoints behave the same and the policy is tested once.
type RetryPolicy struct {
	// MaxAttempts counts the first try; 1 disables retries.
	MaxAttempts int
	BaseDelay   time.Duration // first backoff step
	MaxDelay    time.Duration // cap on one computed backoff
	// MaxRetryAfter caps how long we will wait when the server asks; a
	// longer Retry-After fails fast instead of parking a worker.
	MaxRetryAfter time.Duration
	// Sleep waits d or until ctx ends; tests replace it. nil = real timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultRetryPolicy is used when a provider configures none.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 4, BaseDelay: 500 * time.Millisecond,
	MaxDelay: 20 * time.Second, MaxRetryAfter: 60 * time.Second}

// Do runs fn until it succeeds, fails permanently, attempts run out, or ctx
// ends. The error of the last attempt is returned.
func (p RetryPolicy) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	attempts := max(p.MaxAttempts, 1)
	var err error
	for attempt := 0; attempt < attempts; attempt++ {
		if err = fn(ctx); err == nil {
			return nil
		}
		if ctx.Err() != nil || !IsRetryable(err) || attempt == attempts-1 {
			return err
		}
		wait, ok := p.delay(attempt, err)
		if !ok {
			return err
		}
		if dl, has := ctx.Deadline(); has && time.Until(dl) < wait {
			// Waiting would outlive the caller's deadline: report the real
			// cause now rather than a deadline error later.
			return err
		}
		if serr := p.sleep(ctx, wait); serr != nil {
			return err
		}
	}
	return err
}

// delay is the wait before retry number attempt+1. ok is false when the
// server asked for longer than MaxRetryAfter.
func (p RetryPolicy) delay(attempt int, err error) (time.Duration, bool) {
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
		if p.MaxRetryAfter > 0 && apiErr.RetryAfter > p.MaxRetryAfter {
			return 0, false
		}
		return apiErr.RetryAfter, true
	}
	base := p.BaseDelay
	if base <= 0 {
		base = 100 * time.Millisecond
	}
	d := base << min(attempt, 20)
	if p.MaxDelay > 0 && d > p.MaxDelay {
		d = p.MaxDelay
	}
	// Full jitter: uniform in [d/2, d], so a herd of clients spreads out
	// but nobody retries immediately.
	return d/2 + rand.N(d/2+1), true
}

func (p RetryPolicy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// IsRetryable reports whether err is worth another attempt: a retryable
// APIError or a transport failure (reset, refused, unexpected EOF). Context
// cancellation and deadlines are never retried.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var perm permanentError
	if errors.As(err, &perm) {
		return false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.Retryable()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr)
}

// maxRetryAfterHeader caps what ParseRetryAfter reports: a server asking
// for longer is treated as asking for a day, which every policy refuses.
const maxRetryAfterHeader = 24 * time.Hour

// ParseRetryAfter reads the wait a server requested: retry-after-ms (sent
// by OpenAI), then Retry-After as delay-seconds or an HTTP date. now is
// used for dates. Absent or unparsable headers give zero; waits are capped
// at 24 hours.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	return min(parseRetryAfter(h, now), maxRetryAfterHeader)
}

func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		// Written so that NaN fails every comparison and is rejected.
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e9 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if !(secs > 0 && secs <= 1e6) { // also rejects NaN
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// WithTimeout derives the context for one call: the request's timeout, else
// the provider default, else no extra bound.
func WithTimeout(ctx context.Context, reqTimeout, def time.Duration) (context.Context, context.CancelFunc) {
	d := reqTimeout
	if d <= 0 {
		d = def
	}
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// permanentError stops the retry loop: used once a stream has delivered
// deltas, because replaying the request would duplicate them downstream.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// DoStream is Do for streaming calls: it retries only while nothing has
// been handed to fn. call receives the emit function to use for deltas.
func (p RetryPolicy) DoStream(ctx context.Context, fn StreamFunc,
	call func(ctx context.Context, emit StreamFunc) (*ChatResponse, error)) (*ChatResponse, error) {
	var resp *ChatResponse
	delivered := false
	emit := func(d Delta) error {
		delivered = true
		return fn(d)
	}
	err := p.Do(ctx, func(ctx context.Context) error {
		r, err := call(ctx, emit)
		if err != nil && delivered {
			return permanentError{err}
		}
		resp = r
		return err
	})
	var perm permanentError
	if errors.As(err, &perm) {
		err = perm.err
	}
	return resp, err
}
