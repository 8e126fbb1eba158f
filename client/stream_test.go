package client_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
)

// sseServer streams events 1..total then "done", dropping the connection
// mid-stream as told, and resumes after Last-Event-ID (unless replay is set,
// when it misbehaves and starts over).
type sseServer struct {
	*httptest.Server
	total  int
	drops  []int // per connection: abort after this many events (0: never)
	replay bool
	final  string // the terminal event: "done" unless set

	mu      sync.Mutex
	resumes []string // Last-Event-ID of each connection
	paths   []string
}

func newSSEServer(t *testing.T, total int, drops ...int) *sseServer {
	s := &sseServer{total: total, drops: drops, final: "done"}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *sseServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	conn := len(s.resumes)
	s.resumes = append(s.resumes, r.Header.Get("Last-Event-ID"))
	s.paths = append(s.paths, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	if r.URL.Path == "/missing" {
		http.Error(w, `{"detail":"Run not found"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	start := 1
	if last, err := strconv.Atoi(r.Header.Get("Last-Event-ID")); err == nil && !s.replay {
		start = last + 1
	}
	fmt.Fprint(w, ": keepalive\n\n")
	sent := 0
	for i := start; i <= s.total; i++ {
		if conn < len(s.drops) && s.drops[conn] > 0 && sent == s.drops[conn] {
			// Half an event, then a dropped connection.
			fmt.Fprintf(w, "id: %d\nevent: step\n", i)
			fl.Flush()
			panic(http.ErrAbortHandler)
		}
		name := "step"
		data := fmt.Sprintf(`{"seq":%d}`, i)
		if i == 1 {
			name, data = "init", `{"run_id":"r1","status":"pending"}`
		}
		fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", i, name, data)
		fl.Flush()
		sent++
	}
	fmt.Fprintf(w, "id: %d\nevent: %s\ndata: {\"run_id\":\"r1\",\"status\":\"completed\",\"output\":\"42\"}\n\n", s.total+1, s.final)
	fl.Flush()
}

func (s *sseServer) connections() ([]string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.resumes...), append([]string(nil), s.paths...)
}

func collect(t *testing.T, c *client.Client, sr client.StreamRequest, o client.StreamOptions) ([]client.Event, error) {
	t.Helper()
	var evs []client.Event
	for ev, err := range c.Stream(ctx, sr, o) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func assertSequence(t *testing.T, evs []client.Event, n int) {
	t.Helper()
	if len(evs) != n {
		t.Fatalf("got %d events, want %d: %+v", len(evs), n, evs)
	}
	for i, ev := range evs {
		if ev.ID != strconv.Itoa(i+1) {
			t.Fatalf("event %d has id %q: gap or duplicate in %+v", i, ev.ID, evs)
		}
	}
}

var fast = client.StreamOptions{ReconnectDelay: 5 * time.Millisecond}

func until(name string) client.StreamOptions {
	o := fast
	o.Until = func(e client.Event) bool { return e.Event == name }
	return o
}

func TestStreamResumesAfterDrops(t *testing.T) {
	isolate(t)
	s := newSSEServer(t, 8, 3, 2)
	c, _ := client.New(client.WithBaseURL(s.URL), client.WithAPIKey("k"))
	evs, err := collect(t, c, client.StreamRequest{Path: "/events"}, until("done"))
	if err != nil {
		t.Fatal(err)
	}
	assertSequence(t, evs, 9)
	if evs[8].Event != "done" {
		t.Fatalf("last event %+v", evs[8])
	}
	resumes, _ := s.connections()
	if fmt.Sprint(resumes) != "[ 3 5]" {
		t.Fatalf("Last-Event-ID per connection = %q", resumes)
	}
}

func TestStreamDropsReplayedEvents(t *testing.T) {
	isolate(t)
	s := newSSEServer(t, 6, 4)
	s.replay = true
	c, _ := client.New(client.WithBaseURL(s.URL), client.WithAPIKey("k"))
	evs, err := collect(t, c, client.StreamRequest{Path: "/events"}, until("done"))
	if err != nil {
		t.Fatal(err)
	}
	assertSequence(t, evs, 7)
}

func TestStreamEndsCleanlyWithoutUntil(t *testing.T) {
	isolate(t)
	s := newSSEServer(t, 3)
	c, _ := client.New(client.WithBaseURL(s.URL), client.WithAPIKey("k"))
	evs, err := collect(t, c, client.StreamRequest{Path: "/events"}, fast)
	if err != nil || len(evs) != 4 {
		t.Fatalf("%d events, %v", len(evs), err)
	}
	if resumes, _ := s.connections(); len(resumes) != 1 {
		t.Fatalf("a cleanly ended stream was reopened %d times", len(resumes)-1)
	}
}

func TestStreamDoesNotRepeatAPost(t *testing.T) {
	isolate(t)
	s := newSSEServer(t, 5, 2)
	c, _ := client.New(client.WithBaseURL(s.URL), client.WithAPIKey("k"))
	evs, err := collect(t, c, client.StreamRequest{Method: http.MethodPost, Path: "/agents/a1/runs/stream", Body: map[string]string{"input": "hi"}}, until("done"))
	if !errors.Is(err, client.ErrStreamDropped) || len(evs) != 2 {
		t.Fatalf("%d events, %v", len(evs), err)
	}
	if resumes, _ := s.connections(); len(resumes) != 1 {
		t.Fatal("a POST that starts work was sent again")
	}
}

func TestStreamGivesUpAfterMaxReconnects(t *testing.T) {
	isolate(t)
	s := newSSEServer(t, 5, 1, 1, 1, 1) // each connection delivers one event before it drops
	c, _ := client.New(client.WithBaseURL(s.URL), client.WithAPIKey("k"))
	o := until("done")
	o.MaxReconnects = 2
	evs, err := collect(t, c, client.StreamRequest{Path: "/events"}, o)
	if err != nil || len(evs) != 6 {
		t.Fatalf("progress between drops must keep the stream alive: %d events, %v", len(evs), err)
	}

	dead := newSSEServer(t, 5)
	dead.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dead.mu.Lock()
		dead.resumes = append(dead.resumes, r.Header.Get("Last-Event-ID"))
		dead.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	c, _ = client.New(client.WithBaseURL(dead.URL), client.WithAPIKey("k"))
	_, err = collect(t, c, client.StreamRequest{Path: "/events"}, o)
	if resumes, _ := dead.connections(); !errors.Is(err, client.ErrStreamDropped) || len(resumes) != 3 {
		t.Fatalf("%v after %d connections, want 3", err, len(resumes))
	}
}

func TestStreamAPIErrorIsNotRetried(t *testing.T) {
	isolate(t)
	s := newSSEServer(t, 1)
	c, _ := client.New(client.WithBaseURL(s.URL), client.WithAPIKey("k"))
	_, err := collect(t, c, client.StreamRequest{Path: "/missing"}, until("done"))
	if !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	if resumes, _ := s.connections(); len(resumes) != 1 {
		t.Fatal("an API error was retried")
	}
}

type runSnapshot struct {
	RunID  string `json:"run_id"`
	Status string `json:"status"`
	Output string `json:"output"`
}

// resumeRun continues a run's stream on its events endpoint, named by the
// run id of the init event: the POST that started the run is not repeated.
func resumeRun(st client.ResumeState) (client.StreamRequest, bool) {
	var init runSnapshot
	if st.First.Event != "init" || st.First.JSON(&init) != nil {
		return client.StreamRequest{}, false
	}
	return client.StreamRequest{Path: "/agents/runs/" + init.RunID + "/events"}, true
}

func TestRunAndWait(t *testing.T) {
	isolate(t)
	s := newSSEServer(t, 6, 2, 3)
	c, _ := client.New(client.WithBaseURL(s.URL), client.WithAPIKey("k"))
	var seen []string
	out, err := client.RunAndWait[runSnapshot](ctx, c,
		client.StreamRequest{Method: http.MethodPost, Path: "/agents/a1/runs/stream", Body: map[string]string{"input": "hi"}},
		client.WaitOptions{StreamOptions: client.StreamOptions{Resume: resumeRun, ReconnectDelay: 5 * time.Millisecond},
			OnEvent: func(e client.Event) { seen = append(seen, e.ID) }})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "completed" || out.Output != "42" || fmt.Sprint(seen) != "[1 2 3 4 5 6]" {
		t.Fatalf("out = %+v, events %v", out, seen)
	}
	resumes, paths := s.connections()
	if fmt.Sprint(paths) != "[POST /agents/a1/runs/stream GET /agents/runs/r1/events GET /agents/runs/r1/events]" || fmt.Sprint(resumes) != "[ 2 5]" {
		t.Fatalf("connections %v with Last-Event-ID %q", paths, resumes)
	}

	failing := newSSEServer(t, 2)
	failing.final = "error"
	c, _ = client.New(client.WithBaseURL(failing.URL), client.WithAPIKey("k"))
	_, err = client.RunAndWait[runSnapshot](ctx, c, client.StreamRequest{Path: "/events"}, client.WaitOptions{})
	var se *client.StreamEventError
	var snap runSnapshot
	if !errors.As(err, &se) || se.Event.JSON(&snap) != nil || snap.RunID != "r1" {
		t.Fatalf("error event: %v", err)
	}
}

func TestChan(t *testing.T) {
	isolate(t)
	s := newSSEServer(t, 3)
	c, _ := client.New(client.WithBaseURL(s.URL), client.WithAPIKey("k"))
	events, errs := client.Chan(ctx, c.Stream(ctx, client.StreamRequest{Path: "/events"}, until("done")))
	var ids []string
	for ev := range events {
		ids = append(ids, ev.ID)
	}
	if err := <-errs; err != nil || fmt.Sprint(ids) != "[1 2 3 4]" {
		t.Fatalf("ids %v, %v", ids, err)
	}
}
