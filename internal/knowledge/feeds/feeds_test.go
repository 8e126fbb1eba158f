package feeds_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/knowledge/feeds"
	"github.com/agentry/agentry/internal/outbound"
)

// loopbackClient is the outbound guard's client, told to allow loopback
// because the test feeds are served on this machine.
func loopbackClient() *http.Client { return outbound.Policy{Allow: outbound.Loopback}.Client() }

const rssDoc = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel>
  <title>Release notes</title>
  <link>https://example.org/</link>
  <item>
    <title>Version 2 &amp; friends</title>
    <link>https://example.org/v2</link>
    <guid>urn:release:2</guid>
    <dc:creator>Ada</dc:creator>
    <pubDate>Tue, 10 Nov 2026 10:00:00 GMT</pubDate>
    <description><![CDATA[<p>Faster <b>indexing</b>.</p><script>alert(1)</script><p>Second&nbsp;paragraph</p>]]></description>
  </item>
  <item>
    <title>Version 1</title>
    <link>https://example.org/v1</link>
    <pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate>
    <description>First release</description>
  </item>
</channel>
</rss>`

const atomDoc = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Engineering log</title>
  <updated>2026-11-20T12:00:00Z</updated>
  <id>urn:uuid:feed</id>
  <entry>
    <title>Old entry</title>
    <id>urn:uuid:old</id>
    <link href="https://example.org/old"/>
    <updated>2026-11-01T12:00:00Z</updated>
    <summary>old summary</summary>
  </entry>
  <entry>
    <title>New entry</title>
    <id>urn:uuid:new</id>
    <link href="https://example.org/new"/>
    <updated>2026-11-20T12:00:00Z</updated>
    <author><name>Grace</name></author>
    <content type="html">&lt;h1&gt;Heading&lt;/h1&gt;&lt;p&gt;Body text&lt;/p&gt;</content>
  </entry>
</feed>`

const jsonDoc = `{
  "version": "https://jsonfeed.org/version/1.1",
  "title": "JSON news",
  "items": [
    {"id": "j1", "url": "https://example.org/j1", "title": "HTML item", "content_html": "<ul><li>one</li><li>two</li></ul>", "date_published": "2026-11-21T08:00:00Z", "authors": [{"name": "Linus"}]},
    {"id": "j2", "url": "https://example.org/j2", "title": "Text item", "content_text": "plain words", "date_published": "2026-11-19T08:00:00Z"}
  ]
}`

func TestRSSConditionalGetWithETag(t *testing.T) {
	var full, notModified atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full.Add(1)
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, rssDoc)
	}))
	defer srv.Close()
	c := loopbackClient()
	ctx := context.Background()

	res, err := feeds.Fetch(ctx, c, srv.URL+"/feed.xml", feeds.Validators{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if res.NotModified || res.Title != "Release notes" || res.ETag != `"v1"` || len(res.Items) != 2 {
		t.Fatalf("first fetch: %+v", res)
	}
	it := res.Items[0]
	if it.GUID != "urn:release:2" || it.Title != "Version 2 & friends" || it.Link != "https://example.org/v2" || it.Author != "Ada" {
		t.Errorf("item: %+v", it)
	}
	if it.Published == nil || !it.Published.Equal(time.Date(2026, 11, 10, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("published %v", it.Published)
	}
	if strings.Contains(it.Content, "<") || strings.Contains(it.Content, "alert") || !strings.Contains(it.Content, "Faster indexing.") || !strings.Contains(it.Content, "Second paragraph") {
		t.Errorf("content not turned into text: %q", it.Content)
	}
	// An item without a guid is known by its link.
	if res.Items[1].GUID != "https://example.org/v1" || res.Items[1].Content != "First release" {
		t.Errorf("second item: %+v", res.Items[1])
	}

	again, err := feeds.Fetch(ctx, c, srv.URL+"/feed.xml", res.Validators, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !again.NotModified || len(again.Items) != 0 || again.ETag != `"v1"` {
		t.Fatalf("second fetch: %+v", again)
	}
	if full.Load() != 1 || notModified.Load() != 1 {
		t.Errorf("server saw %d full and %d conditional answers", full.Load(), notModified.Load())
	}
}

func TestAtomConditionalGetWithLastModified(t *testing.T) {
	lastMod := "Fri, 20 Nov 2026 12:00:00 GMT"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-Modified-Since") == lastMod {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Last-Modified", lastMod)
		w.Header().Set("Content-Type", "application/atom+xml")
		fmt.Fprint(w, atomDoc)
	}))
	defer srv.Close()
	res, err := feeds.Fetch(context.Background(), loopbackClient(), srv.URL, feeds.Validators{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// maxItems 1 keeps the newest entry, though the document lists it last.
	if res.Title != "Engineering log" || len(res.Items) != 1 || res.LastModified != lastMod {
		t.Fatalf("%+v", res)
	}
	it := res.Items[0]
	if it.GUID != "urn:uuid:new" || it.Author != "Grace" || it.Content != "Heading\n\nBody text" {
		t.Errorf("%+v", it)
	}
	again, err := feeds.Fetch(context.Background(), loopbackClient(), srv.URL, res.Validators, 1)
	if err != nil || !again.NotModified || again.LastModified != lastMod {
		t.Fatalf("%+v %v", again, err)
	}
}

func TestJSONFeed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/feed+json")
		fmt.Fprint(w, jsonDoc)
	}))
	defer srv.Close()
	res, err := feeds.Fetch(context.Background(), loopbackClient(), srv.URL, feeds.Validators{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Title != "JSON news" || len(res.Items) != 2 {
		t.Fatalf("%+v", res)
	}
	if got := res.Items[0]; got.GUID != "j1" || got.Content != "one\n\ntwo" || got.Author != "Linus" {
		t.Errorf("%+v", got)
	}
	if got := res.Items[1]; got.GUID != "j2" || got.Content != "plain words" {
		t.Errorf("%+v", got)
	}
}

func TestManyItemsAreCutToMaxItems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<rss version="2.0"><channel><title>many</title>`)
	for i := range 50 {
		fmt.Fprintf(&b, `<item><title>n%d</title><guid>g%d</guid><pubDate>%s</pubDate></item>`, i, i,
			time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Hour).Format(time.RFC1123Z))
	}
	b.WriteString(`</channel></rss>`)
	res, err := feeds.Parse(context.Background(), []byte(b.String()), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 3 || res.Items[0].GUID != "g49" || res.Items[2].GUID != "g47" {
		t.Fatalf("%+v", res.Items)
	}
	if res, _ := feeds.Parse(context.Background(), []byte(b.String()), 1<<30); len(res.Items) != 50 {
		t.Fatalf("an over-large maxItems is capped, not refused: %d", len(res.Items))
	}
}

func TestOversizedFeedIsRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<rss version="2.0"><channel><title>big</title><item><description>`)
		chunk := strings.Repeat("x", 64<<10)
		for range (feeds.MaxBodyBytes / len(chunk)) + 2 {
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	_, err := feeds.Fetch(context.Background(), loopbackClient(), srv.URL, feeds.Validators{}, 10)
	if !errors.Is(err, feeds.ErrTooLarge) {
		t.Fatalf("got %v", err)
	}
}

func TestSlowFeedTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := feeds.Fetch(ctx, loopbackClient(), srv.URL, feeds.Validators{}, 10)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("the deadline was not honoured")
	}
}

// TestTricklingFeedTimesOutUnderALongDeadline (issue 30 item 2): a poll
// job's context carries the job timeout (10 minutes); the fetch is still
// bounded by its own timeout, so a server trickling a byte every 100 ms
// does not hold the worker past it. The old code applied its timeout only
// to a context without a deadline.
func TestTricklingFeedTimesOutUnderALongDeadline(t *testing.T) {
	defer feeds.SetFetchTimeout(500 * time.Millisecond)()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		w.WriteHeader(http.StatusOK)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-tick.C:
				w.Write([]byte(" "))
				w.(http.Flusher).Flush()
			}
		}
	}))
	defer srv.Close()
	defer close(stop)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := feeds.Fetch(ctx, loopbackClient(), srv.URL, feeds.Validators{}, 10)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a trickling feed was read")
		}
		t.Logf("gave up after %s: %v", time.Since(start).Round(time.Millisecond), err)
	case <-time.After(10 * time.Second):
		t.Fatal("a trickling feed still holds the fetch after 10 s, under a one-hour deadline")
	}
}

func TestErrorsAreReported(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/html":
			fmt.Fprint(w, "<html><body>not a feed</body></html>")
		default:
			http.Error(w, "boom", http.StatusBadGateway)
		}
	}))
	defer srv.Close()
	c := loopbackClient()
	if _, err := feeds.Fetch(context.Background(), c, srv.URL+"/html", feeds.Validators{}, 10); !errors.Is(err, feeds.ErrNotAFeed) {
		t.Errorf("html page: %v", err)
	}
	if _, err := feeds.Fetch(context.Background(), c, srv.URL+"/fail", feeds.Validators{}, 10); !errors.Is(err, feeds.ErrHTTPStatus) || !strings.Contains(err.Error(), "502") {
		t.Errorf("502: %v", err)
	}
	for _, bad := range []string{"ftp://example.org/feed", "/relative", "http://", "::"} {
		if _, err := feeds.Fetch(context.Background(), c, bad, feeds.Validators{}, 10); !errors.Is(err, feeds.ErrBadURL) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// The guard's default policy refuses the loopback feed, by address and
// by a host name that resolves to it.
func TestGuardRefusesLoopbackByDefault(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, rssDoc)
	}))
	defer srv.Close()
	guarded := outbound.Policy{}.Client()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	for _, u := range []string{srv.URL, "http://localhost" + port} {
		if _, err := feeds.Fetch(context.Background(), guarded, u, feeds.Validators{}, 10); !errors.Is(err, outbound.ErrForbiddenAddress) {
			t.Errorf("%s: got %v", u, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the server was reached %d times", hits.Load())
	}
}
