package web

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The in-process transport streams: a reader sees each flushed event while
// the handler is still running (the live run page proxies event streams
// through it), and the handler sees the request's cancellation.
func TestInProcessTransportStreams(t *testing.T) {
	release := make(chan struct{})
	done := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "data: first\n\n")
		http.NewResponseController(w).Flush()
		select {
		case <-release:
			_, _ = io.WriteString(w, "data: second\n\n")
		case <-r.Context().Done():
			done <- r.Context().Err()
			return
		}
		done <- nil
	})
	hc := &http.Client{Transport: inProcess{h}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, consoleBaseURL+"/events", nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	rd := bufio.NewReader(resp.Body)
	line, err := rd.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "data: first" {
		t.Fatalf("first event before the handler finished: %q %v", line, err)
	}
	close(release)
	rest, err := io.ReadAll(rd)
	if err != nil || !strings.Contains(string(rest), "data: second") {
		t.Fatalf("second event: %q %v", rest, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// A caller that goes away cancels the handler's request.
	hc = &http.Client{Transport: inProcess{http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "data: waiting\n\n")
		<-r.Context().Done()
		done <- r.Context().Err()
	})}}
	ctx2, cancel2 := context.WithCancel(context.Background())
	req, _ = http.NewRequestWithContext(ctx2, http.MethodGet, consoleBaseURL+"/events", nil)
	resp, err = hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel2()
	resp.Body.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("handler finished without seeing the cancellation")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("handler did not see the caller go away")
	}
}
