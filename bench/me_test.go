package bench

import (
	"net/http"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// BenchmarkGetMe measures the authenticated GET /me path in process —
// middleware, key verification (cached), version resolution, handler and
// JSON encoding — without sockets, so it isolates the server's own cost
// per request from the network and the client. Run on each database:
//
//	go test -bench . -benchmem ./bench
func BenchmarkGetMe(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) { benchGetMe(b, d) })
	}
}

func benchGetMe(b *testing.B, d store.Dialect) {
	ts := testserver.Start(b, d)
	h := ts.S.Handler()
	serve := func() int {
		req, _ := http.NewRequest(http.MethodGet, "/me", nil)
		req.Header.Set("X-API-Key", ts.Key)
		w := &sink{}
		h.ServeHTTP(w, req)
		return w.code
	}
	if code := serve(); code != http.StatusOK {
		b.Fatalf("GET /me: %d", code)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if code := serve(); code != http.StatusOK {
				b.Errorf("GET /me: %d", code)
				return
			}
		}
	})
}

// BenchmarkBare is the same measurement of a bare JSON handler, the floor
// BenchmarkGetMe is compared with.
func BenchmarkBare(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"message":"hello, world"}` + "\n"))
	})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodGet, "/", nil)
			h.ServeHTTP(&sink{}, req)
		}
	})
}

// sink is a ResponseWriter that keeps only the status. httptest's recorder
// and request builder allocate kilobytes per request of their own (a body
// buffer, a bufio.Reader, header snapshots), which would drown the
// allocations being measured.
type sink struct {
	header http.Header
	code   int
}

func (s *sink) Header() http.Header {
	if s.header == nil {
		s.header = http.Header{}
	}
	return s.header
}

func (s *sink) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
}

func (s *sink) Write(b []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	return len(b), nil
}
