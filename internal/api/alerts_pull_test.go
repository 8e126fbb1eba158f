package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestSourcePullAlertsAreRaised: a scheduled pull of an rss source that
// fails raises the pull_failed alert configured for the source, and two
// failed pulls in a row consecutive_pull_failures (count 2). Nothing
// reported pulls to the alerts area before: these types could be
// configured but were never raised.
func TestSourcePullAlertsAreRaised(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		var broken atomic.Bool
		broken.Store(true)
		feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if broken.Load() {
				http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
				return
			}
			w.Header().Set("Content-Type", "application/rss+xml")
			_, _ = w.Write([]byte(`<?xml version="1.0"?><rss version="2.0"><channel><title>N</title></channel></rss>`))
		}))
		defer feed.Close()
		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		ctx := context.Background()
		src := mustID(t, s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "News", "source_type": "rss", "url_id": feed.URL + "/rss", "polling": "hourly"}))
		wantStatus(t, s.Do(t, "POST", "/alerts/configs", s.Key, map[string]any{"alert_type": "pull_failed", "source_connection_id": src}), http.StatusCreated)
		wantStatus(t, s.Do(t, "POST", "/alerts/configs", s.Key, map[string]any{"alert_type": "consecutive_pull_failures", "source_connection_id": src,
			"threshold": map[string]any{"count": 2}}), http.StatusCreated)

		alertsOf := func(typ string) []map[string]any {
			var page struct {
				Data []map[string]any `json:"data"`
			}
			s.Do(t, "GET", "/alerts?limit=100", s.Key, nil).JSON(t, &page)
			var out []map[string]any
			for _, a := range page.Data {
				if a["alert_type"] == typ {
					out = append(out, a)
				}
			}
			return out
		}
		waitAlert := func(typ string) map[string]any {
			t.Helper()
			deadline := time.Now().Add(20 * time.Second)
			for {
				if as := alertsOf(typ); len(as) > 0 {
					return as[0]
				}
				if time.Now().After(deadline) {
					t.Fatalf("no %s alert", typ)
				}
				time.Sleep(30 * time.Millisecond)
			}
		}
		if n, err := s.S.Knowledge.QueueDuePolls(ctx, time.Now()); err != nil || n != 1 {
			t.Fatalf("queued %d polls: %v", n, err)
		}
		a := waitAlert("pull_failed")
		desc, _ := a["description"].(string)
		if a["source_connection_id"] != src || !strings.Contains(desc+" "+a["title"].(string), "503") {
			t.Fatalf("pull_failed alert: %v", a)
		}
		if len(alertsOf("consecutive_pull_failures")) != 0 {
			t.Fatal("consecutive_pull_failures after one failed pull")
		}
		if n, _ := s.S.Knowledge.QueueDuePolls(ctx, time.Now().Add(2*time.Hour)); n != 1 {
			t.Fatalf("second poll queued %d", n)
		}
		waitAlert("consecutive_pull_failures")
	})
}
