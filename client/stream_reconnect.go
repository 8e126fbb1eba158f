package client

import (
	"net/http"
	"time"
)

// WithReconnectFor makes a stream (StreamRun, FollowRun, Stream) that
// breaks keep reconnecting, with exponential backoff and Last-Event-ID,
// for up to d from the moment it stopped making progress, instead of a
// few quick attempts: long enough to ride out a server restart. Answers
// 502, 503 and 504 (a proxy in front of a restarting server, a server
// shutting down) are retried too. When d passes without the stream
// resuming, it ends with ErrStreamDropped. Other requests ignore it.
func WithReconnectFor(d time.Duration) CallOption {
	return func(o *callOptions) { o.reconnectFor = d }
}

// The bounds of the backoff between reconnection attempts.
const (
	reconnectFirstDelay = 250 * time.Millisecond
	reconnectMaxDelay   = 8 * time.Second
)

// reconnectBackoff is the wait before reconnection attempt n (1-based):
// 250ms, 500ms, 1s, … up to 8s, and never past what is left of the window.
func reconnectBackoff(n int, left time.Duration) time.Duration {
	d := reconnectFirstDelay
	for i := 1; i < n && d < reconnectMaxDelay; i++ {
		d *= 2
	}
	d = min(d, reconnectMaxDelay)
	if left > 0 && d > left {
		d = left
	}
	return max(d, 0)
}

func transientStatus(code int) bool {
	return code == http.StatusBadGateway || code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout
}

func streamReconnectWindow(opts []CallOption) time.Duration {
	var co callOptions
	for _, o := range opts {
		o(&co)
	}
	return co.reconnectFor
}
