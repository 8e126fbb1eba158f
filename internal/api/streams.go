package api

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/agentry/agentry/internal/telemetry"
)

// streams keeps count of the event streams this process holds open, per
// credential and per account, and tells them all to end when the process
// shuts down. Each open stream holds a connection and a file descriptor for
// as long as its run lasts, so one credential must not be able to hold
// them all. The counts are per process: N replicas allow N times the caps.
type streams struct {
	perCredential int // 0: no cap
	perAccount    int

	mu        sync.Mutex
	byCred    map[string]int
	byAccount map[string]int
	draining  chan struct{} // closed when the process shuts down
	drainOnce sync.Once
}

// streamRetryAfter is the Retry-After of a refused stream: streams end
// when their runs do, which the server cannot predict.
const streamRetryAfter = 5 * time.Second

func newStreams(perCredential, perAccount int) *streams {
	return &streams{perCredential: max(perCredential, 0), perAccount: max(perAccount, 0),
		byCred: map[string]int{}, byAccount: map[string]int{}, draining: make(chan struct{})}
}

// acquire takes a slot for a new stream of credential in account, or
// answers the 429 that refuses it. The returned release gives the slot back;
// calling it more than once is harmless.
func (s *streams) acquire(credential, account string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var refused string
	switch {
	case s.perCredential > 0 && s.byCred[credential] >= s.perCredential:
		refused = "Too many open event streams for this credential (" + strconv.Itoa(s.perCredential) + "); close one or retry after the time in Retry-After"
	case s.perAccount > 0 && s.byAccount[account] >= s.perAccount:
		refused = "Too many open event streams for this account (" + strconv.Itoa(s.perAccount) + "); close one or retry after the time in Retry-After"
	}
	if refused != "" {
		e := Fail(http.StatusTooManyRequests, "%s", refused)
		e.Headers = http.Header{"Retry-After": {strconv.Itoa(int(streamRetryAfter.Seconds()))}}
		return nil, e
	}
	s.byCred[credential]++
	s.byAccount[account]++
	telemetry.StreamOpened()
	var once sync.Once
	return func() {
		once.Do(func() {
			telemetry.StreamClosed()
			s.mu.Lock()
			defer s.mu.Unlock()
			decrement(s.byCred, credential)
			decrement(s.byAccount, account)
		})
	}, nil
}

func decrement(m map[string]int, k string) {
	if m[k] <= 1 {
		delete(m, k) // the maps hold only the keys with open streams
		return
	}
	m[k]--
}

// open reports how many streams a credential and an account hold (tests).
func (s *streams) open(credential, account string) (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byCred[credential], s.byAccount[account]
}

// drain tells every open stream, and every stream opened from now on, to
// send its client the reconnect event and end.
func (s *streams) drain() { s.drainOnce.Do(func() { close(s.draining) }) }

// DrainStreams ends the process's open event streams with a reconnect
// event, so that clients resume them (with Last-Event-ID) on another
// replica or after the restart, and HTTP shutdown is not held up by them.
// The server calls it when it begins to shut down.
func (s *Server) DrainStreams() { s.streams.drain() }

// OpenStreams reports how many event streams a credential and an account
// hold open on this process.
func (s *Server) OpenStreams(credential, accountID string) (perCredential, perAccount int) {
	return s.streams.open(credential, accountID)
}
