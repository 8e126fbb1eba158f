package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says how a request the server turned away with 429 Too Many
// Requests or 503 Service Unavailable is sent again. Both say the request
// was not acted on, so any method may be retried; a request whose body
// cannot be read again (a streamed upload, an io.Reader passed to Do that
// is not a *bytes.Reader, *bytes.Buffer or *strings.Reader) is not.
type RetryPolicy struct {
	// MaxRetries is how many times one request is sent again (0: never).
	MaxRetries int
	// MaxWait bounds each wait. A Retry-After asking for longer is not
	// waited out: its 429 or 503 is returned at once, so a caller is never
	// held longer than MaxRetries × MaxWait.
	MaxWait time.Duration
	// BaseDelay is the wait before the first retry when the response has
	// no Retry-After; each further retry doubles it (capped at MaxWait),
	// and a random part of up to a quarter spreads clients apart.
	BaseDelay time.Duration
}

// DefaultRetryPolicy is what New uses unless WithRetryPolicy or
// WithoutRetries says otherwise: 3 retries, waiting what Retry-After asks
// up to 30s, else 0.5s, 1s and 2s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, MaxWait: 30 * time.Second, BaseDelay: 500 * time.Millisecond}
}

// WithRetryPolicy sets how 429 and 503 answers are retried.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(s *settings) error {
		if p.MaxRetries < 0 || p.MaxWait < 0 || p.BaseDelay < 0 {
			return errors.New("WithRetryPolicy: MaxRetries, MaxWait and BaseDelay must not be negative")
		}
		s.retry = &p
		return nil
	}
}

// WithoutRetries turns retries off: a 429 or 503 is returned at once.
func WithoutRetries() Option { return WithRetryPolicy(RetryPolicy{}) }

// retryableStatus is what the policy retries.
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable
}

// delay is how long to wait before retry number n (0-based) of a response
// with the given Retry-After header, and whether to retry at all.
func (p RetryPolicy) delay(n int, retryAfter string, now time.Time) (time.Duration, bool) {
	if n >= p.MaxRetries {
		return 0, false
	}
	if d, ok := parseRetryAfter(retryAfter, now); ok {
		return d, d <= p.MaxWait
	}
	d := p.BaseDelay << min(n, 30)
	if d <= 0 || d > p.MaxWait {
		d = p.MaxWait
	}
	if q := int64(d / 4); q > 0 {
		d += time.Duration(rand.Int64N(q))
	}
	return min(d, p.MaxWait), true
}

// parseRetryAfter reads a Retry-After value: a number of seconds or an
// HTTP date (a date already past is no wait). Anything else is ignored.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second) // far past any MaxWait; avoids overflow
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// rewindable reports whether req's body can be sent again.
func rewindable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
