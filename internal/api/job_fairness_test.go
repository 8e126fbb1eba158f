package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/runs"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// trickler is a real HTTP server on loopback that answers with a byte
// every two seconds and never finishes, until the test ends: a feed or a
// webhook receiver that holds whoever reads it.
type trickler struct {
	*httptest.Server
	open atomic.Int32 // requests being answered now
}

func startTrickler(t *testing.T, contentType, first string) *trickler {
	t.Helper()
	tr := &trickler{}
	stop := make(chan struct{})
	tr.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr.open.Add(1)
		defer tr.open.Add(-1)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, first)
		w.(http.Flusher).Flush()
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-tick.C:
				if _, err := w.Write([]byte(" ")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}
	}))
	t.Cleanup(func() { close(stop); tr.Close() })
	return tr
}

// waitTrickling waits until at least n requests are held by the tricklers.
func waitTrickling(t *testing.T, n int32, ts ...*trickler) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var open int32
		for _, tr := range ts {
			open += tr.open.Load()
		}
		if open >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d slow requests open, want %d", open, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// timeRun starts a one-step run of tenant's and reports how long it took
// from the request to its completion.
func timeRun(t *testing.T, s *testserver.Server, tenant testserver.Tenant) time.Duration {
	t.Helper()
	agent := makeAgent(t, s, tenant.AccountID, `{"child_steps":[{"id":"hi","step_type":"text","text":"hello {{input}}"}]}`)
	began := time.Now()
	r := s.Do(t, "POST", "/agents/"+agent+"/runs", tenant.Key, map[string]any{"input": "there"})
	var start runs.RunResponse
	r.JSON(t, &start)
	if r.Status != http.StatusOK {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	done := waitRun(t, s, tenant.Key, start.RunID)
	took := time.Since(began)
	if done.Status != runs.RunCompleted {
		t.Fatalf("run: %+v", done)
	}
	return took
}

// TestSlowFeedsLeaveRunWorkers (issue 30 item 2): sixteen RSS sources
// trickling a byte every two seconds used to hold all sixteen job workers
// (the feed timeout did not apply under the job's deadline), and another
// account's run waited minutes to start. Polls now run on the background
// queue, each fetch bounded on its own, and the other account's run
// completes within 2 s.
func TestSlowFeedsLeaveRunWorkers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		var feeds []*trickler
		for i := 0; i < 16; i++ {
			f := startTrickler(t, "application/rss+xml", `<?xml version="1.0"?><rss version="2.0"><channel>`)
			feeds = append(feeds, f)
			r := s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": fmt.Sprint("Slow ", i), "source_type": "rss", "url_id": f.URL + "/rss", "polling": "hourly"})
			wantStatus(t, r, http.StatusCreated)
		}
		// The server's own first poll tick (run at start) may have claimed
		// some of the sixteen already; between the two, every one is
		// queued, and nothing is left due.
		if _, err := s.S.Knowledge.QueueDuePolls(context.Background(), time.Now()); err != nil {
			t.Fatal(err)
		}
		if n, err := s.S.Knowledge.QueueDuePolls(context.Background(), time.Now()); err != nil || n != 0 {
			t.Fatalf("%d polls still due after queueing: %v", n, err)
		}
		waitTrickling(t, 3, feeds...) // the polls hold their workers now (the account's share of them)
		other := s.NewTenant(t, "other")
		took := timeRun(t, s, other)
		t.Logf("another account's run took %s while 16 feeds trickle", took.Round(time.Millisecond))
		if took > 2*time.Second {
			t.Errorf("another account's run took %s while 16 feeds trickle; want under 2 s", took)
		}
	})
}

// TestOneAccountsSlowRunsLeaveWorkers: an account whose runs all wait on
// a slow webhook holds at most its share of the run workers; another
// account's run completes within 2 s.
func TestOneAccountsSlowRunsLeaveWorkers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		hook := startTrickler(t, "application/json", `{"a":"`)
		agent := makeAgent(t, s, s.AccountID, `{"child_steps":[{"id":"hook","step_type":"webhook_call","url":"`+hook.URL+`","timeout_seconds":120}]}`)
		for i := 0; i < 24; i++ {
			r := s.Do(t, "POST", "/agents/"+agent+"/runs", s.Key, map[string]any{"input": "x"})
			if r.Status != http.StatusOK {
				t.Fatalf("start: %d %s", r.Status, r.Body)
			}
		}
		waitTrickling(t, 12, hook) // 75 % of the 16 run workers
		other := s.NewTenant(t, "other")
		took := timeRun(t, s, other)
		t.Logf("another account's run took %s while 24 of one account's runs wait on a slow webhook", took.Round(time.Millisecond))
		if took > 2*time.Second {
			t.Errorf("another account's run took %s; want under 2 s", took)
		}
		if open := hook.open.Load(); open > 12 {
			t.Errorf("one account holds %d run workers; its share is 12", open)
		}
	})
}
