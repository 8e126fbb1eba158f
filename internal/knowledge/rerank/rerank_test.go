package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/llm"
)

func TestOfflineOrdersByCoverageAndProximity(t *testing.T) {
	r := Offline()
	q := "How long does a refund take to reach my card?"
	docs := []string{
		"Shipping is free on orders over fifty dollars within the country.",                              // unrelated
		"Refunds reach your card within five business days after the returned item is received.",         // answers it
		"A card can be added in settings. Much later, after long review, a refund may be issued to you.", // scattered terms
		"Our refund policy covers damaged goods only.",                                                   // partial
	}
	s, err := r.Rerank(context.Background(), q, docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != len(docs) {
		t.Fatalf("%d scores", len(s))
	}
	if !(s[1] > s[2] && s[2] > s[0] && s[1] > s[3] && s[3] > s[0]) {
		t.Errorf("ordering: %v", s)
	}
	for _, x := range s {
		if x < 0 || x > 1 {
			t.Errorf("score %v outside [0,1]", x)
		}
	}
	again, _ := r.Rerank(context.Background(), q, docs)
	for i := range s {
		if s[i] != again[i] {
			t.Fatal("not deterministic")
		}
	}
	// Degenerate input.
	if s, err := r.Rerank(context.Background(), "", []string{"", "text"}); err != nil || len(s) != 2 {
		t.Errorf("empty query: %v %v", s, err)
	}
	if s, err := r.Rerank(context.Background(), "q", nil); err != nil || len(s) != 0 {
		t.Errorf("no docs: %v %v", s, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Rerank(ctx, q, docs); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// rerankServer answers like a rerank endpoint: it scores each document by
// how many query words it contains, and returns results best first.
func rerankServer(t *testing.T, wantPath, wantKey string, field string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != wantPath {
			http.Error(w, `{"error":{"message":"no route `+r.URL.Path+`"}}`, http.StatusNotFound)
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+wantKey {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"message":"invalid api token"}`)
			return
		}
		var req rerankRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "rr-1" || req.TopN != len(req.Documents) {
			http.Error(w, `{"detail":"bad request"}`, http.StatusBadRequest)
			return
		}
		var out []map[string]any
		for i, d := range req.Documents {
			n := 0
			for _, qw := range strings.Fields(strings.ToLower(req.Query)) {
				if strings.Contains(strings.ToLower(d), qw) {
					n++
				}
			}
			out = append(out, map[string]any{"index": i, "relevance_score": float64(n) / 10})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "x", field: out})
	}))
}

func TestHTTPKinds(t *testing.T) {
	cases := []struct {
		kind, base, path, field string
	}{
		{"openai", "/v1", "/v1/rerank", "results"},
		{"openai-compatible", "/v1/", "/v1/rerank", "data"},
		{"cohere", "", "/v1/rerank", "results"},
		{"Cohere", "/v1", "/v1/rerank", "results"},
	}
	for _, c := range cases {
		srv := rerankServer(t, c.path, "k3y", c.field)
		r := HTTP(c.kind, srv.URL+c.base, "k3y", "rr-1", srv.Client())
		s, err := r.Rerank(context.Background(), "red apples", []string{"green pears", "red apples", "red cars"})
		srv.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.kind, err)
		}
		if !(s[1] > s[2] && s[2] > s[0]) {
			t.Errorf("%s: scores %v", c.kind, s)
		}
	}
}

func TestHTTPErrors(t *testing.T) {
	srv := rerankServer(t, "/v1/rerank", "right", "results")
	defer srv.Close()
	_, err := HTTP("cohere", srv.URL, "wrong", "rr-1", nil).Rerank(context.Background(), "q", []string{"d"})
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 401 || ae.Message != "invalid api token" {
		t.Errorf("auth failure: %v", err)
	}
	_, err = HTTP("openai", srv.URL+"/v2", "right", "rr-1", nil).Rerank(context.Background(), "q", []string{"d"})
	if !errors.As(err, &ae) || ae.StatusCode != 404 || !strings.Contains(ae.Message, "no route /v2/rerank") {
		t.Errorf("not found: %v", err)
	}
	if _, err := HTTP("bogus", srv.URL, "", "", nil).Rerank(context.Background(), "q", []string{"d"}); err == nil || !strings.Contains(err.Error(), "unknown endpoint kind") {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := HTTP("cohere", srv.URL, "right", "rr-1", nil).Rerank(context.Background(), "q", make([]string, MaxDocs+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("too many docs: %v", err)
	}
	if _, err := HTTP("cohere", srv.URL, "right", "rr-1", nil).Rerank(context.Background(), "q", []string{strings.Repeat("x", MaxRequestBytes)}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("too many bytes: %v", err)
	}
	if s, err := HTTP("cohere", srv.URL, "right", "rr-1", nil).Rerank(context.Background(), "q", nil); err != nil || len(s) != 0 {
		t.Errorf("no docs: %v %v", s, err)
	}
}

func TestHTTPBadServers(t *testing.T) {
	// mode is read by handler goroutines that may outlive a request the
	// client gave up on (the slow case), so it is atomic.
	var mode atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load() {
		case "slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case "huge":
			_, _ = io.WriteString(w, `{"results":[`)
			chunk := strings.Repeat(`{"index":0,"relevance_score":1},`, 1000)
			for range (MaxResponseBytes / len(chunk)) + 2 {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		case "garbage":
			_, _ = io.WriteString(w, "<html>not json</html>")
		case "badindex":
			_, _ = io.WriteString(w, `{"results":[{"index":7,"relevance_score":0.5}]}`)
		case "partial":
			_, _ = io.WriteString(w, `{"results":[{"index":1,"score":0.25}]}`)
		case "ratelimited":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"error":"slow down"}`)
		}
	}))
	defer srv.Close()
	r := HTTP("cohere", srv.URL, "", "m", srv.Client())
	docs := []string{"a", "b", "c"}

	mode.Store("slow")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	start := time.Now()
	_, err := r.Rerank(ctx, "q", docs)
	cancel()
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Errorf("slow server: %v after %v", err, time.Since(start))
	}
	mode.Store("huge")
	if _, err := r.Rerank(context.Background(), "q", docs); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("huge response: %v", err)
	}
	mode.Store("garbage")
	if _, err := r.Rerank(context.Background(), "q", docs); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("garbage: %v", err)
	}
	mode.Store("badindex")
	if _, err := r.Rerank(context.Background(), "q", docs); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("bad index: %v", err)
	}
	mode.Store("partial")
	s, err := r.Rerank(context.Background(), "q", docs)
	if err != nil || s[1] != 0.25 || s[0] >= s[1] || s[2] >= s[1] {
		t.Errorf("partial: %v %v", s, err)
	}
	mode.Store("ratelimited")
	_, err = r.Rerank(context.Background(), "q", docs)
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 429 || ae.RetryAfter != 7*time.Second || ae.Message != "slow down" {
		t.Errorf("rate limited: %v", err)
	}
	// A refused connection is an error, not a hang.
	srv.Close()
	if _, err := r.Rerank(context.Background(), "q", docs); err == nil {
		t.Error("closed server answered")
	}
}

func FuzzParseResponse(f *testing.F) {
	f.Add([]byte(`{"results":[{"index":0,"relevance_score":0.9},{"index":1,"relevance_score":0.1}]}`), 2)
	f.Add([]byte(`{"data":[{"index":1,"score":3}]}`), 3)
	f.Add([]byte(`{"results":[{"index":-1,"score":3}]}`), 1)
	f.Add([]byte(`{}`), 0)
	f.Add([]byte(`[1,2]`), 2)
	f.Fuzz(func(t *testing.T, raw []byte, n int) {
		if n < 0 || n > 10000 {
			return
		}
		s, err := ParseResponse(raw, n)
		if err == nil && len(s) != n {
			t.Fatalf("%d scores for %d docs", len(s), n)
		}
	})
}
