package crawl_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/knowledge/crawl"
	"github.com/agentry/agentry/internal/outbound"
)

// site is a small web site served on loopback that records every request.
type site struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string
	times    []time.Time
	pages    map[string]string // path → HTML
	robots   string
	robotsSC int
}

func newSite(t *testing.T) *site {
	s := &site{pages: map[string]string{}, robots: "User-agent: *\nDisallow: /private\n", robotsSC: 200}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.record("OTHER " + r.URL.Path)
		fmt.Fprint(w, "<html><title>elsewhere</title></html>")
	}))
	t.Cleanup(other.Close)
	// Another host name for the same machine: a different site to the crawler.
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	s.pages["/"] = `<!doctype html><html><head><title>  Home
	page </title><script>var hidden = "script text";</script></head><body>
	<h1>Welcome</h1><p>Start here.</p>
	<a href="/a">A</a> <a href="b#section">B</a> <a href="/b#other">B again</a> <a href="/a?x=1">A with query</a>
	<a href="/private/secret">private</a> <a href="` + otherURL + `/page">other site</a>
	<a href="/image.png">image</a> <a href="/doc">doc</a> <a href="/missing">missing</a>
	<a href="mailto:x@example.org">mail</a> <a href="javascript:alert(1)">js</a>
	<a href="/noindex">noindex</a> <a href="/redirect">redirect</a> <a href="/offsite">offsite</a>
	<a href="/skip" rel="nofollow">skip</a>
	</body></html>`
	s.pages["/a"] = `<html><head><title>A</title></head><body><p>Page A text.</p><a href="/a/deep">deep</a><a href="/">home</a></body></html>`
	s.pages["/a?x=1"] = `<html><head><title>A query</title></head><body><p>Page A with a query.</p></body></html>`
	s.pages["/a/deep"] = `<html><head><title>Deep</title></head><body><p>Deep text.</p><a href="deeper">deeper</a></body></html>`
	s.pages["/a/deeper"] = `<html><head><title>Deeper</title></head><body><p>Deeper text.</p></body></html>`
	s.pages["/b"] = `<html><head><title>B</title><meta name="robots" content="nofollow"></head><body><p>Page B.</p><a href="/from-b">x</a></body></html>`
	s.pages["/noindex"] = `<html><head><meta name="robots" content="noindex"></head><body><p>hidden</p><a href="/from-noindex">x</a></body></html>`
	s.pages["/from-noindex"] = `<html><head><title>Reached through noindex</title></head><body>ok</body></html>`
	s.pages["/from-b"] = `<html><body>must not be crawled</body></html>`
	s.pages["/skip"] = `<html><body>must not be crawled</body></html>`
	s.pages["/private/secret"] = `<html><body>must not be crawled</body></html>`
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.Path
		if r.URL.RawQuery != "" {
			key += "?" + r.URL.RawQuery
		}
		s.record(key)
		s.mu.Lock()
		page, ok := s.pages[key]
		robots, robotsSC := s.robots, s.robotsSC
		s.mu.Unlock()
		switch {
		case key == "/robots.txt":
			w.WriteHeader(robotsSC)
			fmt.Fprint(w, robots)
		case key == "/doc":
			w.Header().Set("Content-Type", "application/pdf")
			fmt.Fprint(w, "%PDF-1.4")
		case key == "/image.png":
			w.Header().Set("Content-Type", "image/png")
		case key == "/redirect":
			http.Redirect(w, r, "/a", http.StatusFound)
		case key == "/offsite":
			http.Redirect(w, r, otherURL+"/landing", http.StatusFound)
		case key == "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case ok:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, page)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) record(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, p)
	s.times = append(s.times, time.Now())
}

func (s *site) requested() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *site) set(path, html string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = html
}

func client() *http.Client { return outbound.Policy{Allow: outbound.Loopback}.Client() }

var fast = crawl.Limits{Delay: -1, PageTimeout: 2 * time.Second}

func crawlAll(t *testing.T, s *site, lim crawl.Limits) map[string]crawl.Page {
	t.Helper()
	got := map[string]crawl.Page{}
	err := crawl.Crawl(context.Background(), client(), s.URL+"/", lim, func(p crawl.Page) error {
		if _, dup := got[p.URL]; dup {
			t.Errorf("page %s visited twice", p.URL)
		}
		got[p.URL] = p
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func paths(s *site, pages map[string]crawl.Page) []string {
	var out []string
	for u := range pages {
		out = append(out, strings.TrimPrefix(u, s.URL))
	}
	sort.Strings(out)
	return out
}

func TestCrawlStaysOnSiteAndHonoursRobots(t *testing.T) {
	s := newSite(t)
	pages := crawlAll(t, s, fast)
	want := []string{"/", "/a", "/a/deep", "/a/deeper", "/a?x=1", "/b", "/from-noindex"}
	if got := paths(s, pages); !slices.Equal(got, want) {
		t.Fatalf("pages %v, want %v", got, want)
	}
	home := pages[s.URL+"/"]
	if home.Title != "Home page" || home.Depth != 0 || !strings.Contains(home.Text, "Welcome") || strings.Contains(home.Text, "script text") || strings.Contains(home.Text, "<") {
		t.Errorf("home: %+v", home)
	}
	sum := sha256.Sum256([]byte(home.Text))
	if home.ContentHash != hex.EncodeToString(sum[:]) {
		t.Errorf("hash %s is not the SHA-256 of the text", home.ContentHash)
	}
	if d := pages[s.URL+"/a/deeper"].Depth; d != 3 {
		t.Errorf("deeper depth %d", d)
	}
	reqs := s.requested()
	if reqs[0] != "/robots.txt" {
		t.Errorf("robots.txt was not read first: %v", reqs)
	}
	for _, never := range []string{"/private/secret", "/image.png", "/from-b", "/skip", "OTHER /page", "OTHER /landing"} {
		if slices.Contains(reqs, never) {
			t.Errorf("%s was requested", never)
		}
	}
	// Each page once: the fragment variants of /b and the redirect to /a
	// do not fetch those pages again.
	for _, once := range []string{"/", "/a", "/b", "/doc"} {
		n := 0
		for _, r := range reqs {
			if r == once {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s requested %d times", once, n)
		}
	}
}

func TestRecrawlFindsChangedPagesByHash(t *testing.T) {
	s := newSite(t)
	first := crawlAll(t, s, fast)
	s.set("/a", `<html><head><title>A</title></head><body><p>Page A text, edited.</p><a href="/a/deep">deep</a></body></html>`)
	// Markup that does not change the text keeps the hash.
	s.set("/b", `<html><head><title>B</title><meta name="robots" content="nofollow"></head><body><div>Page B.</div><a href="/from-b">x</a></body></html>`)
	second := crawlAll(t, s, fast)
	var changed []string
	for u, p := range second {
		if first[u].ContentHash != p.ContentHash {
			changed = append(changed, strings.TrimPrefix(u, s.URL))
		}
	}
	if !slices.Equal(changed, []string{"/a"}) {
		t.Fatalf("changed pages %v, want [/a]", changed)
	}
}

func TestLimits(t *testing.T) {
	s := newSite(t)
	if got := paths(s, crawlAll(t, s, crawl.Limits{MaxDepth: -1, Delay: -1})); !slices.Equal(got, []string{"/"}) {
		t.Errorf("depth -1: %v", got)
	}
	if got := paths(s, crawlAll(t, s, crawl.Limits{MaxDepth: 1, Delay: -1})); slices.Contains(got, "/a/deep") || !slices.Contains(got, "/a") {
		t.Errorf("depth 1: %v", got)
	}
	if got := crawlAll(t, s, crawl.Limits{MaxPages: 2, Delay: -1}); len(got) != 2 {
		t.Errorf("max pages 2: %d pages", len(got))
	}
	big := "<html><head><title>Big</title></head><body><p>" + strings.Repeat("word ", 100_000) + "</p><p>TAIL</p></body></html>"
	s.set("/", big)
	p := crawlAll(t, s, crawl.Limits{MaxBytesPerPage: 32 << 10, Delay: -1})[s.URL+"/"]
	if p.Title != "Big" || len(p.Text) > 32<<10 || len(p.Text) < 16<<10 || strings.Contains(p.Text, "TAIL") {
		t.Errorf("a page over the byte limit is read up to it: %d bytes of text", len(p.Text))
	}
}

func TestSlowPageIsSkippedAfterItsTimeout(t *testing.T) {
	s := newSite(t)
	s.set("/", `<html><body><a href="/slow">slow</a><a href="/a">a</a></body></html>`)
	start := time.Now()
	pages := crawlAll(t, s, crawl.Limits{MaxDepth: 1, PageTimeout: 300 * time.Millisecond, Delay: -1})
	if got := paths(s, pages); !slices.Equal(got, []string{"/", "/a"}) {
		t.Errorf("pages %v", got)
	}
	if time.Since(start) > 4*time.Second {
		t.Errorf("the page timeout was not honoured")
	}
}

func TestDelayBetweenRequests(t *testing.T) {
	s := newSite(t)
	crawlAll(t, s, crawl.Limits{MaxDepth: 1, MaxPages: 3, Delay: 80 * time.Millisecond})
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.times) < 4 {
		t.Fatalf("%d requests", len(s.times))
	}
	for i := 1; i < len(s.times); i++ {
		if gap := s.times[i].Sub(s.times[i-1]); gap < 75*time.Millisecond {
			t.Errorf("request %d came %v after the previous one", i, gap)
		}
	}
}

func TestCrawlDelayFromRobots(t *testing.T) {
	s := newSite(t)
	s.robots = "User-agent: *\nCrawl-delay: 0.3\n"
	crawlAll(t, s, crawl.Limits{MaxDepth: 1, MaxPages: 2, Delay: -1})
	s.mu.Lock()
	defer s.mu.Unlock()
	if gap := s.times[2].Sub(s.times[1]); gap < 280*time.Millisecond {
		t.Errorf("Crawl-delay not honoured: %v", gap)
	}
}

func TestRobotsRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sc     int
		robots string
		want   error
	}{
		{"disallow all", 200, "User-agent: *\nDisallow: /\n", crawl.ErrDisallowed},
		{"our agent only", 200, "User-agent: agentry-crawler\nDisallow: /\n\nUser-agent: *\nAllow: /\n", crawl.ErrDisallowed},
		{"server error", 503, "", crawl.ErrDisallowed},
		{"missing", 404, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t)
			s.robots, s.robotsSC = tc.robots, tc.sc
			n := 0
			err := crawl.Crawl(context.Background(), client(), s.URL, crawl.Limits{MaxDepth: -1, Delay: -1}, func(crawl.Page) error { n++; return nil })
			if !errors.Is(err, tc.want) || (tc.want == nil) != (n == 1) {
				t.Fatalf("err %v, %d pages", err, n)
			}
			if tc.want != nil && len(s.requested()) != 1 {
				t.Errorf("requests %v", s.requested())
			}
		})
	}
}

func TestErrors(t *testing.T) {
	s := newSite(t)
	for _, bad := range []string{"ftp://x/", "/rel", "http://", "http://user:pw@example.org/"} {
		if err := crawl.Crawl(context.Background(), client(), bad, fast, func(crawl.Page) error { return nil }); !errors.Is(err, crawl.ErrBadURL) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if err := crawl.Crawl(context.Background(), client(), s.URL+"/missing", fast, func(crawl.Page) error { return nil }); !errors.Is(err, crawl.ErrStartPage) {
		t.Errorf("missing start page: %v", err)
	}
	stop := errors.New("stop")
	n := 0
	if err := crawl.Crawl(context.Background(), client(), s.URL, fast, func(crawl.Page) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("visit error: %v after %d pages", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n = 0
	err := crawl.Crawl(ctx, client(), s.URL, fast, func(crawl.Page) error { n++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("cancel: %v after %d pages", err, n)
	}
}

// The guard's default policy refuses the loopback site before any request.
func TestGuardRefusesLoopbackByDefault(t *testing.T) {
	s := newSite(t)
	err := crawl.Crawl(context.Background(), outbound.Policy{}.Client(), s.URL, fast, func(crawl.Page) error { return nil })
	if !errors.Is(err, outbound.ErrForbiddenAddress) {
		t.Fatalf("got %v", err)
	}
	if r := s.requested(); len(r) != 0 {
		t.Fatalf("requests reached the site: %v", r)
	}
}
