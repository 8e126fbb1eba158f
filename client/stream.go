package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// StreamRequest is the request that opens an event stream.
type StreamRequest struct {
	Method string // GET when empty
	Path   string
	Query  url.Values
	Body   any // sent as JSON when not nil
}

// ResumeState is what a Resume function gets to build the reconnecting
// request.
type ResumeState struct {
	LastEventID string // sent as Last-Event-ID
	First       Event  // the first event of the stream (e.g. init, with the run id)
	Attempt     int    // 1 for the first reconnection after progress
}

// StreamOptions tune an event stream.
type StreamOptions struct {
	// Until reports whether an event ends the stream (done, error…). With
	// Until set, a stream that ends before such an event was dropped and is
	// resumed; without it, a clean end of the body ends the stream.
	Until func(Event) bool
	// Resume returns the request that continues the stream after a drop;
	// it is sent with Last-Event-ID. When nil, a GET stream is reopened
	// with the same request, and any other method (a POST that started
	// the work) is not resumed. Return false to give up.
	Resume func(ResumeState) (StreamRequest, bool)
	// MaxReconnects bounds consecutive reconnections without a new event
	// (5 when zero; negative disables reconnection).
	MaxReconnects int
	// ReconnectDelay is the wait before the first reconnection, unless the
	// server sent a retry field (1s when zero). It doubles with each
	// reconnection that brings no new event, up to MaxReconnectDelay (30s
	// when zero), so a server that restarts has time to come back.
	ReconnectDelay    time.Duration
	MaxReconnectDelay time.Duration
}

// EventReconnect is sent by a server that is shutting down, as the last
// event of a stream: reconnect (with Last-Event-ID) after the retry delay
// it carries. Stream handles it and does not yield it.
const EventReconnect = "reconnect"

// ErrStreamDropped is returned when a stream broke and could not be resumed.
var ErrStreamDropped = errors.New("event stream dropped")

var errServerReconnect = errors.New("the server asked to reconnect (it is shutting down)")

// Stream opens an event stream and yields its events, reconnecting after a
// dropped connection, or a reconnect event from a server shutting down,
// with Last-Event-ID so that no event is lost. While reconnecting, a 429,
// 502, 503 or 504 is waited out like a refused connection. Events
// whose ids are numbered (a number, or "<scope>:<number>" as in run
// streams) at or below the last one seen are skipped, so a server that
// replays on reconnection produces no duplicates. The iteration ends
// at an Until event, at a clean end of the stream, or with an error
// (yielded last).
func (c *Client) Stream(ctx context.Context, sr StreamRequest, o StreamOptions, opts ...CallOption) iter.Seq2[Event, error] {
	if o.MaxReconnects == 0 {
		o.MaxReconnects = 5
	}
	if o.ReconnectDelay == 0 {
		o.ReconnectDelay = time.Second
	}
	if o.MaxReconnectDelay == 0 {
		o.MaxReconnectDelay = 30 * time.Second
	}
	window := streamReconnectWindow(opts)
	return func(yield func(Event, error) bool) {
		var (
			outage    time.Time // when the stream last stopped making progress
			lastID    string
			lastScope string // what precedes the number in the ids ("<run_id>:")
			lastNum   int64  = -1
			first     *Event
			failures  int
			delay     = o.ReconnectDelay
			req       = sr
			lastError error
		)
		for {
			extra := opts
			if lastID != "" {
				extra = append(append([]CallOption(nil), opts...), WithRequestHeader("Last-Event-ID", lastID))
			}
			body, err := c.openStream(ctx, req, extra)
			wait := time.Duration(0) // a Retry-After longer than the backoff
			if err != nil {
				var apiErr *APIError
				// Resuming a stream, a refusal that passes (429, 503) is waited
				// out; within a reconnect window (WithReconnectFor), so are a
				// restarting server's proxy answers, even before the first event.
				resuming := lastID != "" && Temporary(err)
				restarting := window > 0 && errors.As(err, &apiErr) && transientStatus(apiErr.StatusCode)
				if !resuming && !restarting && (errors.As(err, &apiErr) || ctx.Err() != nil || errors.As(err, new(*VersionError))) {
					yield(Event{}, err) // the server said no: retrying changes nothing
					return
				}
				if apiErr != nil {
					if secs, perr := strconv.Atoi(apiErr.Header.Get("Retry-After")); perr == nil && secs > 0 {
						wait = time.Duration(secs) * time.Second
					}
				}
				lastError = err
			} else {
				r := NewEventReader(body)
				for {
					ev, err := r.Next()
					if err != nil {
						lastError = err
						break
					}
					if ev.Retry > 0 {
						delay = ev.Retry
					}
					if ev.Event == EventReconnect {
						// The server is going away: resume from the last id
						// on the next one, or on it after its restart.
						lastError = errServerReconnect
						break
					}
					if ev.ID != "" {
						if scope, n, ok := eventSeq(ev.ID); ok {
							if scope == lastScope && n <= lastNum {
								continue // replayed: already delivered
							}
							lastScope, lastNum = scope, n
						}
						lastID = ev.ID
					}
					if first == nil {
						f := ev
						first = &f
					}
					failures = 0
					if !yield(ev, nil) {
						body.Close()
						return
					}
					if o.Until != nil && o.Until(ev) {
						body.Close()
						return
					}
				}
				body.Close()
				if errors.Is(lastError, io.EOF) && o.Until == nil {
					return // the server ended the stream
				}
			}
			if ctx.Err() != nil {
				yield(Event{}, ctx.Err())
				return
			}
			failures++
			if failures == 1 {
				outage = time.Now()
			}
			next, ok := c.resumeRequest(sr, o, ResumeState{LastEventID: lastID, First: deref(first), Attempt: failures})
			givenUp := o.MaxReconnects < 0 || failures > o.MaxReconnects
			// Back off: the delay doubles with each reconnection that
			// brought no new event.
			pause := delay
			for i := 1; i < failures && pause < o.MaxReconnectDelay; i++ {
				pause *= 2
			}
			pause = max(min(pause, o.MaxReconnectDelay), wait)
			if window > 0 {
				// A server restart takes longer than a few quick retries:
				// keep trying, backing off, until the window has passed.
				left := window - time.Since(outage)
				givenUp = left <= 0
				pause = min(max(reconnectBackoff(failures, left), wait), max(left, 0))
			}
			if !ok || givenUp {
				yield(Event{}, fmt.Errorf("%w after event %q: %v", ErrStreamDropped, lastID, lastError))
				return
			}
			req = next
			select {
			case <-time.After(pause):
			case <-ctx.Done():
				yield(Event{}, ctx.Err())
				return
			}
		}
	}
}

// eventSeq reads the sequence number of an event id: the id itself when
// it is a number, or the number after its last colon ("<run_id>:<seq>",
// as run streams number their events), with the part before it as the
// scope the number counts in. Numbers are compared only within a scope.
func eventSeq(id string) (scope string, n int64, ok bool) {
	i := strings.LastIndexByte(id, ':')
	n, err := strconv.ParseInt(id[i+1:], 10, 64)
	if err != nil {
		return "", 0, false
	}
	return id[:i+1], n, true
}

func (c *Client) resumeRequest(sr StreamRequest, o StreamOptions, st ResumeState) (StreamRequest, bool) {
	if o.Resume != nil {
		return o.Resume(st)
	}
	if sr.Method == "" || sr.Method == http.MethodGet {
		return sr, true
	}
	return StreamRequest{}, false
}

func (c *Client) openStream(ctx context.Context, sr StreamRequest, opts []CallOption) (io.ReadCloser, error) {
	method := sr.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	ct := ""
	if sr.Body != nil {
		b, err := json.Marshal(sr.Body)
		if err != nil {
			return nil, err
		}
		body, ct = bytes.NewReader(b), "application/json"
	}
	if len(sr.Query) > 0 {
		opts = append([]CallOption{WithQuery(sr.Query)}, opts...)
	}
	opts = append([]CallOption{WithRequestHeader("Accept", "text/event-stream")}, opts...)
	req, co, err := c.newRequest(ctx, method, sr.Path, body, ct, opts)
	if err != nil {
		return nil, err
	}
	resp, err := c.send(req, co)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

func deref(e *Event) Event {
	if e == nil {
		return Event{}
	}
	return *e
}

// Chan turns an iterator into channels for select loops: values arrive on
// the first channel; an error, if any, on the second; both close at the
// end. Cancel ctx to stop early.
func Chan[T any](ctx context.Context, seq iter.Seq2[T, error]) (<-chan T, <-chan error) {
	values, errs := make(chan T), make(chan error, 1)
	go func() {
		defer close(values)
		defer close(errs)
		for v, err := range seq {
			if err != nil {
				errs <- err
				return
			}
			select {
			case values <- v:
			case <-ctx.Done():
				return
			}
		}
	}()
	return values, errs
}
