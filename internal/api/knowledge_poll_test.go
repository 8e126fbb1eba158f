package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// contentsOf lists a source's content rows straight from the store.
func contentsOf(t *testing.T, s *testserver.Server, sourceID string) []knowledge.Content {
	t.Helper()
	cs, err := knowledge.TestRows(s.DB).ContentsOfSources(context.Background(), s.AccountID, []string{sourceID}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func waitAllIndexed(t *testing.T, s *testserver.Server, sourceID string, n int) []knowledge.Content {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		cs := contentsOf(t, s, sourceID)
		done := 0
		for _, c := range cs {
			if c.Status == knowledge.ContentIndexed {
				done++
			}
		}
		if len(cs) == n && done == n {
			return cs
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %d indexed contents, have %d of %d", n, done, len(cs))
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// A local RSS feed and a local web site, served on loopback, are indexed
// by the scheduler's polls and re-polled: the feed with conditional GET,
// the site finding its changed page by content hash.
func TestKnowledgePollsFeedsAndSites(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		var mu sync.Mutex
		items := []string{"<item><guid>1</guid><title>Launch day</title><description>The rocket launched at dawn.</description></item>"}
		var notModified atomic.Int32
		feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			body := `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>` + strings.Join(items, "") + `</channel></rss>`
			mu.Unlock()
			etag := fmt.Sprintf(`"%d"`, len(body))
			if r.Header.Get("If-None-Match") == etag {
				notModified.Add(1)
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", etag)
			w.Header().Set("Content-Type", "application/rss+xml")
			fmt.Fprint(w, body)
		}))
		defer feed.Close()
		pages := map[string]string{
			"/":  `<html><head><title>Home</title></head><body><p>Welcome to the garden.</p><a href="/a">A</a> <a href="/b">B</a></body></html>`,
			"/a": `<html><head><title>Roses</title></head><body><p>Roses need sun.</p></body></html>`,
			"/b": `<html><head><title>Ferns</title></head><body><p>Ferns like shade.</p></body></html>`,
		}
		site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			p, ok := pages[r.URL.Path]
			mu.Unlock()
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, p)
		}))
		defer site.Close()

		s := testserver.Start(t, d, func(c *server.Config) { c.AllowPrivateWebhooks = true })
		ctx := context.Background()
		r := s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "News", "source_type": "rss", "url_id": feed.URL + "/rss", "polling": "hourly"})
		wantStatus(t, r, http.StatusCreated)
		var rss map[string]any
		r.JSON(t, &rss)
		r = s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "Garden", "source_type": "website", "url_id": site.URL + "/", "polling": "daily"})
		wantStatus(t, r, http.StatusCreated)
		var web map[string]any
		r.JSON(t, &web)

		// The first polls are due at once.
		if n, err := s.S.Knowledge.QueueDuePolls(ctx, time.Now()); err != nil || n != 2 {
			t.Fatalf("queued %d polls: %v", n, err)
		}
		// A second tick at the same time finds nothing due: one poll each.
		if n, _ := s.S.Knowledge.QueueDuePolls(ctx, time.Now()); n != 0 {
			t.Fatalf("polled twice: %d", n)
		}
		waitAllIndexed(t, s, rss["id"].(string), 1)
		pagesIndexed := waitAllIndexed(t, s, web["id"].(string), 3)

		// New feed item and a changed page; the next polls an hour and a day on.
		mu.Lock()
		items = append([]string{"<item><guid>2</guid><title>Landing</title><description>The probe landed on the moon.</description></item>"}, items...)
		pages["/a"] = `<html><head><title>Roses</title></head><body><p>Roses need sun and water every morning.</p></body></html>`
		mu.Unlock()
		round2 := time.Now()
		if n, _ := s.S.Knowledge.QueueDuePolls(ctx, time.Now().Add(25*time.Hour)); n != 2 {
			t.Fatalf("second round queued %d", n)
		}
		cs := waitAllIndexed(t, s, rss["id"].(string), 2)
		titles := []string{*cs[0].Title, *cs[1].Title}
		if !strings.Contains(strings.Join(titles, ","), "Landing") {
			t.Fatalf("feed contents: %v", titles)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			changed := 0
			for _, c := range contentsOf(t, s, web["id"].(string)) {
				if c.Version == 2 && c.Status == knowledge.ContentIndexed && strings.HasSuffix(c.ItemKey, "/a") {
					changed++
				}
				if c.Version != 1 && !strings.HasSuffix(c.ItemKey, "/a") {
					t.Fatalf("unchanged page got a new version: %+v", c)
				}
			}
			if changed == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("changed page not re-indexed: %+v", contentsOf(t, s, web["id"].(string)))
			}
			time.Sleep(30 * time.Millisecond)
		}
		_ = pagesIndexed
		waitPolled(t, s, web["id"].(string), round2)
		waitPolled(t, s, rss["id"].(string), round2)
		// A third poll of the unchanged feed is answered 304.
		if n, _ := s.S.Knowledge.QueueDuePolls(ctx, time.Now().Add(50*time.Hour)); n != 2 {
			t.Fatalf("third round queued %d", n)
		}
		deadline = time.Now().Add(20 * time.Second)
		for notModified.Load() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the feed was not fetched conditionally")
			}
			time.Sleep(30 * time.Millisecond)
		}
		r = s.Do(t, "GET", "/sources/"+rss["id"].(string), s.Key, nil)
		if !strings.Contains(string(r.Body), `"pulled_at":"`) {
			t.Errorf("source after polls: %s", r.Body)
		}
	})
}

// Without the operator's permission, a feed on loopback is refused by the
// outbound guard, and the source shows why.
func TestKnowledgePollRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, store.SQLite)
	feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("the guard let a loopback fetch through") }))
	defer feed.Close()
	r := s.Do(t, "POST", "/sources", s.Key, map[string]any{"name": "News", "source_type": "rss", "url_id": feed.URL})
	wantStatus(t, r, http.StatusCreated)
	var src map[string]any
	r.JSON(t, &src)
	if _, err := s.S.Knowledge.QueueDuePolls(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := knowledge.TestRows(s.DB).Source(context.Background(), s.AccountID, src["id"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if e := got.PollState["last_error"]; e != "" {
			if !strings.Contains(e, "private") && !strings.Contains(e, "loopback") {
				t.Errorf("poll error: %s", e)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no poll error: %+v", got.PollState)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitPolled waits until a source's last poll finished after t.
func waitPolled(t *testing.T, s *testserver.Server, sourceID string, after time.Time) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		src, err := knowledge.TestRows(s.DB).Source(context.Background(), s.AccountID, sourceID)
		if err != nil {
			t.Fatal(err)
		}
		if src.PulledAt != nil && src.PulledAt.After(after) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("source %s not polled since %v", sourceID, after)
		}
		time.Sleep(30 * time.Millisecond)
	}
}
