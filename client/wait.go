package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"
)

// Event names of a run stream.
const (
	EventDone    = "done"
	EventError   = "error"
	EventTimeout = "timeout"
)

// StreamEventError is returned when a stream ends with an error or timeout
// event. The event's data usually names the run, to poll it afterwards.
type StreamEventError struct{ Event Event }

func (e *StreamEventError) Error() string {
	return fmt.Sprintf("stream ended with a %s event: %s", e.Event.Event, e.Event.Data)
}

// ErrStreamEnded is returned when a stream ends without a done event.
var ErrStreamEnded = errors.New("event stream ended without a done event")

// WaitOptions tune RunAndWait.
type WaitOptions struct {
	StreamOptions
	// OnEvent sees every event before the terminal one (progress display).
	OnEvent func(Event)
	// Done and Failed name the terminal events ("done"; "error", "timeout").
	Done   string
	Failed []string
}

// RunAndWait opens a stream (typically a POST that starts a run), follows
// it across reconnections, and returns the data of its done event decoded
// into T. An error or timeout event is a *StreamEventError.
func RunAndWait[T any](ctx context.Context, c *Client, sr StreamRequest, o WaitOptions, opts ...CallOption) (T, error) {
	var zero T
	if o.Done == "" {
		o.Done = EventDone
	}
	if o.Failed == nil {
		o.Failed = []string{EventError, EventTimeout}
	}
	so := o.StreamOptions
	so.Until = func(e Event) bool { return e.Event == o.Done || slices.Contains(o.Failed, e.Event) }
	for ev, err := range c.Stream(ctx, sr, so, opts...) {
		if err != nil {
			return zero, err
		}
		switch {
		case ev.Event == o.Done:
			var out T
			if err := ev.JSON(&out); err != nil {
				return zero, fmt.Errorf("decode the %s event: %w", o.Done, err)
			}
			return out, nil
		case slices.Contains(o.Failed, ev.Event):
			return zero, &StreamEventError{Event: ev}
		case o.OnEvent != nil:
			o.OnEvent(ev)
		}
	}
	return zero, ErrStreamEnded
}

// PollOptions tune Poll.
type PollOptions struct {
	Interval time.Duration // between fetches; 1s when zero
	Timeout  time.Duration // overall; none when zero (ctx still applies)
}

// ErrPollTimeout is returned (wrapped) when Poll's timeout passes first.
var ErrPollTimeout = errors.New("timed out waiting")

// Poll fetches until done reports true, and returns that value. Transient
// failures (429, 502–504, network errors) are retried until the timeout;
// any other error ends the poll. On timeout it returns the last value
// fetched with an error wrapping ErrPollTimeout.
func Poll[T any](ctx context.Context, o PollOptions, fetch func(context.Context) (T, error), done func(T) bool) (T, error) {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	var deadline <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	var last T
	var lastErr error
	for {
		v, err := fetch(ctx)
		switch {
		case err == nil:
			last, lastErr = v, nil
			if done(v) {
				return v, nil
			}
		case ctx.Err() != nil:
			return last, ctx.Err()
		case !Temporary(err):
			return last, err
		default:
			lastErr = err
		}
		select {
		case <-time.After(o.Interval):
		case <-deadline:
			if lastErr != nil {
				return last, fmt.Errorf("%w after %s (last error: %v)", ErrPollTimeout, o.Timeout, lastErr)
			}
			return last, fmt.Errorf("%w after %s", ErrPollTimeout, o.Timeout)
		case <-ctx.Done():
			return last, ctx.Err()
		}
	}
}

// Temporary reports whether err is worth retrying: a rate limit, an
// unavailable gateway or server, or a network failure.
func Temporary(err error) bool {
	if errors.Is(err, ErrRateLimited) || errors.Is(err, ErrServiceUnavailable) {
		return true
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne)
}
