package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/client"
)

// refusing is a loopback server that answers the first len(refusals)
// requests with the given status and Retry-After ("" sends none), then
// 200; it records when each request came and its body.
type refusing struct {
	*httptest.Server
	mu       sync.Mutex
	refusals []refusal
	at       []time.Time
	bodies   []string
}

type refusal struct {
	status     int
	retryAfter string
}

func newRefusing(t *testing.T, rs ...refusal) *refusing {
	t.Helper()
	s := &refusing{refusals: rs}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.at)
		s.at = append(s.at, time.Now())
		s.bodies = append(s.bodies, string(b))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n < len(s.refusals) {
			if ra := s.refusals[n].retryAfter; ra != "" {
				w.Header().Set("Retry-After", ra)
			}
			w.WriteHeader(s.refusals[n].status)
			io.WriteString(w, `{"detail":"not now"}`)
			return
		}
		io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *refusing) requests() ([]time.Time, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.at...), append([]string(nil), s.bodies...)
}

func newRetryClient(t *testing.T, url string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(append([]client.Option{client.WithBaseURL(url), client.WithAPIKey("k")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// By default a 429 and a 503 are sent again, body and all, and the caller
// sees only the answer that finally came.
func TestRetriesRateLimitAndUnavailableByDefault(t *testing.T) {
	isolate(t)
	s := newRefusing(t, refusal{http.StatusTooManyRequests, "0"}, refusal{http.StatusServiceUnavailable, "0"})
	c := newRetryClient(t, s.URL)
	var out struct{ OK bool }
	var info client.ResponseInfo
	if err := c.Do(ctx, "POST", "/things", map[string]string{"name": "x"}, &out, client.CaptureResponse(&info)); err != nil || !out.OK {
		t.Fatalf("Do = %+v, %v", out, err)
	}
	if info.StatusCode != http.StatusOK {
		t.Errorf("captured status %d, want the final 200", info.StatusCode)
	}
	_, bodies := s.requests()
	if len(bodies) != 3 {
		t.Fatalf("%d requests, want 3", len(bodies))
	}
	for i, b := range bodies {
		if b != `{"name":"x"}` {
			t.Errorf("request %d carried body %q", i, b)
		}
	}
}

// The wait is the one Retry-After asks for.
func TestRetryHonoursRetryAfter(t *testing.T) {
	isolate(t)
	s := newRefusing(t, refusal{http.StatusTooManyRequests, "1"})
	c := newRetryClient(t, s.URL)
	if err := c.Do(ctx, "GET", "/things", nil, nil); err != nil {
		t.Fatal(err)
	}
	at, _ := s.requests()
	if len(at) != 2 {
		t.Fatalf("%d requests, want 2", len(at))
	}
	if gap := at[1].Sub(at[0]); gap < time.Second {
		t.Fatalf("retried after %v; Retry-After asked for 1s", gap)
	}
}

// Without Retry-After the client backs off from BaseDelay, doubling.
func TestRetryBacksOffWithoutRetryAfter(t *testing.T) {
	isolate(t)
	s := newRefusing(t, refusal{http.StatusServiceUnavailable, ""}, refusal{http.StatusServiceUnavailable, ""})
	c := newRetryClient(t, s.URL, client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 2, MaxWait: time.Second, BaseDelay: 40 * time.Millisecond}))
	if err := c.Do(ctx, "GET", "/things", nil, nil); err != nil {
		t.Fatal(err)
	}
	at, _ := s.requests()
	if len(at) != 3 {
		t.Fatalf("%d requests, want 3", len(at))
	}
	if g1, g2 := at[1].Sub(at[0]), at[2].Sub(at[1]); g1 < 40*time.Millisecond || g2 < 80*time.Millisecond {
		t.Fatalf("waits %v and %v; want at least 40ms, then 80ms", g1, g2)
	}
}

// Retries are bounded: in number, and in the wait a Retry-After may ask.
func TestRetryIsBounded(t *testing.T) {
	isolate(t)
	t.Run("count", func(t *testing.T) {
		s := newRefusing(t, refusal{503, "0"}, refusal{503, "0"}, refusal{503, "0"}, refusal{503, "0"}, refusal{503, "0"})
		err := newRetryClient(t, s.URL).Do(ctx, "GET", "/things", nil, nil)
		if !errors.Is(err, client.ErrServiceUnavailable) {
			t.Fatalf("err = %v, want the last 503", err)
		}
		if at, _ := s.requests(); len(at) != 1+client.DefaultRetryPolicy().MaxRetries {
			t.Fatalf("%d requests, want %d", len(at), 1+client.DefaultRetryPolicy().MaxRetries)
		}
	})
	t.Run("wait", func(t *testing.T) {
		s := newRefusing(t, refusal{429, "3600"})
		start := time.Now()
		err := newRetryClient(t, s.URL).Do(ctx, "GET", "/things", nil, nil)
		var apiErr *client.APIError
		if !errors.Is(err, client.ErrRateLimited) || !errors.As(err, &apiErr) || apiErr.Header.Get("Retry-After") != "3600" {
			t.Fatalf("err = %v, want the 429 with its Retry-After", err)
		}
		if at, _ := s.requests(); len(at) != 1 || time.Since(start) > 5*time.Second {
			t.Fatalf("%d requests in %v: a wait past MaxWait must not be taken", len(at), time.Since(start))
		}
	})
	t.Run("context", func(t *testing.T) {
		s := newRefusing(t, refusal{429, "20"})
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		err := newRetryClient(t, s.URL).Do(cctx, "GET", "/things", nil, nil)
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, client.ErrRateLimited) {
			t.Fatalf("err = %v, want both the 429 and the context's end", err)
		}
	})
}

// What is not retried: other statuses, a body that cannot be read again,
// and anything once retries are off.
func TestNoRetry(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		name   string
		status int
		opts   []client.Option
		body   any
	}{
		{"500", http.StatusInternalServerError, nil, nil},
		{"502", http.StatusBadGateway, nil, nil},
		{"streamed body", http.StatusTooManyRequests, nil, io.MultiReader(strings.NewReader(`{"a":1}`))},
		{"WithoutRetries", http.StatusTooManyRequests, []client.Option{client.WithoutRetries()}, nil},
		{"zero policy", http.StatusServiceUnavailable, []client.Option{client.WithRetryPolicy(client.RetryPolicy{})}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRefusing(t, refusal{tc.status, "0"})
			if err := newRetryClient(t, s.URL, tc.opts...).Do(ctx, "POST", "/things", tc.body, nil); err == nil {
				t.Fatal("no error")
			}
			if at, _ := s.requests(); len(at) != 1 {
				t.Fatalf("%d requests, want 1", len(at))
			}
		})
	}
	if _, err := client.New(client.WithRetryPolicy(client.RetryPolicy{MaxRetries: -1})); err == nil {
		t.Fatal("a negative policy was accepted")
	}
}
