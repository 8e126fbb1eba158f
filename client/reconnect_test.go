package client_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
)

// restartingServer plays a process that shuts down mid-stream: its first
// connection sends three run events and a reconnect event; the next two
// are answered 503, as a balancer answers while the process restarts; the
// fourth resumes after Last-Event-ID.
type restartingServer struct {
	*httptest.Server
	mu      sync.Mutex
	resumes []string
	at      []time.Time
}

func (s *restartingServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	conn := len(s.resumes)
	s.resumes = append(s.resumes, r.Header.Get("Last-Event-ID"))
	s.at = append(s.at, time.Now())
	s.mu.Unlock()
	if conn == 1 || conn == 2 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"detail":"restarting"}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	from, to := 1, 3
	if conn > 0 {
		from, to = 4, 5
	}
	for i := from; i <= to; i++ {
		fmt.Fprintf(w, "id: r1:%d\nevent: status\ndata: {\"run_id\":\"r1\",\"status\":\"processing\"}\n\n", i)
	}
	if conn == 0 {
		fmt.Fprint(w, "retry: 100\nevent: reconnect\ndata: {\"run_id\":\"r1\",\"last_event_id\":\"r1:3\",\"detail\":\"shutting down\"}\n\n")
		return
	}
	fmt.Fprint(w, "id: r1:6\nevent: done\ndata: {\"run_id\":\"r1\",\"status\":\"completed\",\"output\":\"ok\"}\n\n")
}

// TestFollowRunAcrossRestart follows a run whose server shuts down: the
// reconnect event is not passed on, the stream resumes with Last-Event-ID
// once the server is back, waiting out the 503s in between with a delay
// that starts at the server's retry hint and doubles, and no event is lost
// or repeated.
func TestFollowRunAcrossRestart(t *testing.T) {
	isolate(t)
	s := &restartingServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	c, _ := client.New(client.WithBaseURL(s.URL), client.WithAPIKey("k"))
	var ids []string
	var last client.RunEvent
	for ev, err := range c.FollowRun(ctx, "a1", "r1") {
		if err != nil {
			t.Fatalf("after %v: %v", ids, err)
		}
		ids = append(ids, ev.ID)
		last = ev
	}
	if fmt.Sprint(ids) != "[r1:1 r1:2 r1:3 r1:4 r1:5 r1:6]" || last.Type != client.EventDone || last.Snapshot.OutputText() != "ok" {
		t.Fatalf("events %v, last %+v", ids, last)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if fmt.Sprint(s.resumes) != "[r1:0 r1:3 r1:3 r1:3]" {
		t.Fatalf("Last-Event-ID per connection: %q", s.resumes)
	}
	for i, least := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond} {
		if gap := s.at[i+1].Sub(s.at[i]); gap < least {
			t.Errorf("reconnection %d came after %v, want at least %v", i+1, gap, least)
		}
	}
}
