package client_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentry/agentry/client"
)

// fakeRunStream is a run stream server that numbers events "r1:<seq>" and
// misbehaves as told: it cuts connections, replays from the start on a
// resume, or ends a connection with a timeout event.
type fakeRunStream struct {
	*httptest.Server
	total   int
	cutAt   []int // per connection: cut after this many events (0: never)
	replay  bool  // ignore Last-Event-ID and send everything again
	timeout bool  // end the first connection with a timeout event instead of cutting

	mu    sync.Mutex
	resum []string
}

func newFakeRunStream(t *testing.T, f *fakeRunStream) *fakeRunStream {
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeRunStream) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	conn := len(f.resum)
	f.resum = append(f.resum, r.Header.Get("Last-Event-ID"))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	from := 0
	if _, seq, ok := strings.Cut(r.Header.Get("Last-Event-ID"), ":"); ok && !f.replay {
		n, _ := strconv.Atoi(seq)
		from = n + 1
	}
	sent := 0
	for i := from; i <= f.total; i++ {
		if conn < len(f.cutAt) && f.cutAt[conn] > 0 && sent == f.cutAt[conn] {
			if f.timeout {
				fmt.Fprint(w, "event: timeout\ndata: {\"run_id\":\"r1\",\"detail\":\"stream time limit reached\"}\n\n")
				return
			}
			fmt.Fprintf(w, "id: r1:%d\nevent: sta", i) // half an event
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
		switch {
		case i == 0:
			fmt.Fprint(w, "id: r1:0\nevent: init\ndata: {\"run_id\":\"r1\",\"status\":\"pending\"}\n\n")
		case i == f.total:
			fmt.Fprintf(w, "id: r1:%d\nevent: done\ndata: {\"run_id\":\"r1\",\"status\":\"completed\",\"output\":\"ok\"}\n\n", i)
		default:
			fmt.Fprintf(w, "id: r1:%d\nevent: stream_token\ndata: {\"run_id\":\"r1\",\"token\":\"t%d \"}\n\n", i, i)
		}
		w.(http.Flusher).Flush()
		sent++
	}
}

func (f *fakeRunStream) connections() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.resum...)
}

func collectRun(t *testing.T, c *client.Client) ([]int64, error) {
	t.Helper()
	var seqs []int64
	for ev, err := range c.StreamRun(ctx, "a1", client.AgentRunRequest{Input: "x"}) {
		if err != nil {
			return seqs, err
		}
		seqs = append(seqs, ev.Seq)
	}
	return seqs, nil
}

func contiguous(seqs []int64, n int) bool {
	if len(seqs) != n {
		return false
	}
	for i, s := range seqs {
		if s != int64(i) {
			return false
		}
	}
	return true
}

// TestRunStreamIDs checks the client core's handling of run_id:seq ids
// against servers that misbehave in ways the real one does not.
func TestRunStreamIDs(t *testing.T) {
	isolate(t)
	// A server that replays the whole stream on a resume: the repeats are
	// recognised by their sequence number and dropped.
	f := newFakeRunStream(t, &fakeRunStream{total: 6, cutAt: []int{3}, replay: true})
	c, _ := client.New(client.WithBaseURL(f.URL), client.WithAPIKey("k"))
	seqs, err := collectRun(t, c)
	if err != nil || !contiguous(seqs, 7) {
		t.Fatalf("replaying server: %v, %v", seqs, err)
	}
	if conns := f.connections(); len(conns) != 2 || conns[1] != "r1:2" {
		t.Fatalf("connections: %q", conns)
	}

	// A timeout event ends one connection, not the run: the stream resumes
	// after the last event and the timeout is not shown to the caller.
	f = newFakeRunStream(t, &fakeRunStream{total: 5, cutAt: []int{2}, timeout: true})
	c, _ = client.New(client.WithBaseURL(f.URL), client.WithAPIKey("k"))
	seqs, err = collectRun(t, c)
	if err != nil || !contiguous(seqs, 6) {
		t.Fatalf("timeout: %v, %v", seqs, err)
	}
	if conns := f.connections(); len(conns) != 2 || conns[1] != "r1:1" {
		t.Fatalf("connections after a timeout: %q", conns)
	}

	// A drop before the first event: re-posting would start a second run,
	// so the stream gives up instead.
	var mu sync.Mutex
	n := 0
	early := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: r1:0\nevent: in")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	defer early.Close()
	c, _ = client.New(client.WithBaseURL(early.URL), client.WithAPIKey("k"))
	if _, err := collectRun(t, c); !errors.Is(err, client.ErrStreamDropped) {
		t.Fatalf("drop before init: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if n != 1 {
		t.Fatalf("a drop before any event was retried: %d posts", n)
	}
}
