package mcptools

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/agents/definition"
	"github.com/agentry/agentry/internal/outbound"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileBodyCap stops a hostile server after this much, so that the test
// stays survivable on the unbounded code it guards against (which read it
// all: 256 MiB of reply made the old connector allocate well over 512 MiB).
const hostileBodyCap = 256 << 20

// startFlooder is an MCP server on loopback answering every POST with a
// reply that does not end (up to hostileBodyCap), as JSON or as an event
// stream whose one event never ends.
func startFlooder(t *testing.T, contentType, prefix string) (string, *atomic.Int64) {
	t.Helper()
	var sent atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		if _, err := w.Write([]byte(prefix)); err != nil {
			return
		}
		chunk := []byte(strings.Repeat("A", 64<<10))
		for sent.Load() < hostileBodyCap {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(hs.Close)
	return hs.URL, &sent
}

// allocatedDuring reports the bytes the process allocated while fn ran:
// an upper bound of how much its heap can have grown.
func allocatedDuring(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func loopbackConnector() *Connector {
	return New(outbound.Policy{Allow: outbound.Loopback}.Client())
}

// TestHostileServerRepliesAreCapped: an MCP server answering initialize
// with a huge JSON body or a never-ending event costs the engine at most
// about MaxMessageBytes, not the whole reply (issue 30 item 1: a 1 GiB
// reply took the old connector from 77 MiB to 2.7 GiB).
func TestHostileServerRepliesAreCapped(t *testing.T) {
	for _, tc := range []struct{ name, contentType, prefix string }{
		{"json", "application/json", `{"jsonrpc":"2.0","id":1,"result":{"padding":"`},
		{"event-stream", "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"padding\":\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, sent := startFlooder(t, tc.contentType, tc.prefix)
			c := loopbackConnector()
			srv := definition.MCPServer{Label: "flood", URL: url, Timeout: time.Minute}
			var err error
			start := time.Now()
			alloc := allocatedDuring(func() {
				_, err = c.list(context.Background(), "run_1", srv, http.Header{})
			})
			took := time.Since(start)
			t.Logf("%s: allocated %d MiB while the server sent %d MiB, in %s", tc.name, alloc>>20, sent.Load()>>20, took.Round(time.Millisecond))
			if err == nil {
				t.Fatal("listing a flooding server succeeded")
			}
			if alloc > 64<<20 {
				t.Errorf("allocated %d MiB reading a flooding server's reply; want under 64 MiB", alloc>>20)
			}
			t.Logf("error: %v", err)
		})
	}
}

// TestSilentServerIsBoundedPerExchange: a server that accepts a tool call
// and never answers is given up on after HeaderTimeout, well before the
// tool object's five minutes.
func TestSilentServerIsBoundedPerExchange(t *testing.T) {
	old := headerTimeout
	headerTimeout = 500 * time.Millisecond
	t.Cleanup(func() { headerTimeout = old })
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); hs.Close() })
	c := loopbackConnector()
	srv := definition.MCPServer{Label: "silent", URL: hs.URL, Timeout: definition.MaxMCPCallTimeout}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := c.call(context.Background(), srv, http.Header{}, "anything", nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a call to a silent server succeeded")
		}
		t.Logf("gave up after %s: %v", time.Since(start).Round(time.Millisecond), err)
	case <-time.After(20 * time.Second):
		t.Fatal("a call to a silent server still waits after 20 s")
	}
}

// TestLargeToolResultIsTruncated: a result the server may legitimately
// send (under MaxMessageBytes) reaches the model cut to MaxResultBytes.
func TestLargeToolResultIsTruncated(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "big"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 3<<20)}}}, nil, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	out, err := loopbackConnector().call(context.Background(), definition.MCPServer{Label: "big", URL: hs.URL, Timeout: time.Minute}, http.Header{}, "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != MaxResultBytes {
		t.Fatalf("result of %d bytes reached the model; want %d", len(out), MaxResultBytes)
	}
}
