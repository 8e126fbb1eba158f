// Package crawl walks a web site for website sources: a polite,
// breadth-first crawler confined to the start URL's site (same scheme and
// host), that honours robots.txt (and its Crawl-delay), waits between
// requests, bounds depth, pages, bytes and time, skips what is not HTML,
// and hands each page to the caller as plain text (the server's own HTML
// extractor) with a content hash, so a re-crawl can tell which pages
// changed. robots.txt is read by github.com/temoto/robotstxt, a well-kept
// parser of the de-facto rules (RFC 9309 groups, wildcards, longest match).
//
// The caller supplies the HTTP client: website sources pass the outbound
// guard's client (internal/outbound), so neither the start URL, nor a
// link, nor a redirect can reach an address the operator has not allowed.
package crawl

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/temoto/robotstxt"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/agentry/agentry/internal/extract"
)

// Limits bound one crawl. The zero value of a field means its default.
type Limits struct {
	// MaxDepth is how many links away from the start page the crawl goes
	// (DefaultMaxDepth when zero; a negative value crawls the start page
	// only).
	MaxDepth int
	// MaxPages bounds the pages handed to visit (DefaultMaxPages when
	// zero, at most HardMaxPages).
	MaxPages int
	// MaxBytesPerPage bounds the HTML read of one page; a longer page is
	// read up to the limit (DefaultMaxBytesPerPage when zero).
	MaxBytesPerPage int64
	// PageTimeout bounds one request, robots.txt included
	// (DefaultPageTimeout when zero).
	PageTimeout time.Duration
	// Delay is the pause between two requests to the site
	// (DefaultDelay when zero, none when negative). A longer Crawl-delay
	// in robots.txt wins, up to MaxCrawlDelay.
	Delay time.Duration
}

// Page is one HTML page of the site. Text is the page's visible text;
// ContentHash is the hex SHA-256 of Text, so a page whose text has not
// changed keeps its hash across crawls. URL is canonical: the address the
// page was served from after redirects, without fragment.
type Page struct {
	URL, Title, Text, ContentHash string
	Depth                         int
}

// Defaults and hard bounds.
const (
	DefaultMaxDepth        = 3
	DefaultMaxPages        = 100
	HardMaxPages           = 10_000
	DefaultMaxBytesPerPage = 5 << 20
	DefaultPageTimeout     = 30 * time.Second
	DefaultDelay           = 250 * time.Millisecond
	MaxCrawlDelay          = 10 * time.Second
	// UserAgent names the crawler to sites and to their robots.txt.
	UserAgent = "Agentry-crawler/1.0"
	// robotsAgent is the token matched against robots.txt groups.
	robotsAgent      = "agentry-crawler"
	maxRobotsBytes   = 512 << 10 // RFC 9309 asks crawlers to read at least 500 KiB
	maxLinksPerPage  = 1000
	maxTitleBytes    = 1024
	maxPageTextBytes = 10 << 20
)

// Errors of Crawl. A page that fails after the start page is skipped, not
// an error: one broken link does not stop a crawl.
var (
	ErrBadURL     = errors.New("the start URL must be an absolute http or https URL")
	ErrDisallowed = errors.New("robots.txt does not allow crawling the start URL")
	ErrStartPage  = errors.New("the start page could not be crawled")
)

// Crawl walks the site of start with c, breadth first, calling visit for
// each HTML page within lim. It returns visit's first error, the
// context's error, or an error when the start page itself cannot be read.
func Crawl(ctx context.Context, c *http.Client, start string, lim Limits, visit func(Page) error) error {
	lim = lim.withDefaults()
	su, err := url.Parse(start)
	if err != nil || (su.Scheme != "http" && su.Scheme != "https") || su.Host == "" {
		return ErrBadURL
	}
	first, ok := canonical(su)
	if !ok {
		return ErrBadURL
	}
	cr := &crawler{lim: lim, site: first, visit: visit}
	cr.client = confined(c, cr)
	if err := cr.readRobots(ctx); err != nil {
		return err
	}
	if !cr.allowed(first) {
		return ErrDisallowed
	}
	return cr.run(ctx, first)
}

func (l Limits) withDefaults() Limits {
	if l.MaxDepth == 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxDepth < 0 {
		l.MaxDepth = 0
	}
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultMaxPages
	}
	l.MaxPages = min(l.MaxPages, HardMaxPages)
	if l.MaxBytesPerPage <= 0 {
		l.MaxBytesPerPage = DefaultMaxBytesPerPage
	}
	if l.PageTimeout <= 0 {
		l.PageTimeout = DefaultPageTimeout
	}
	if l.Delay == 0 {
		l.Delay = DefaultDelay
	}
	if l.Delay < 0 {
		l.Delay = 0
	}
	return l
}

type crawler struct {
	lim    Limits
	site   *url.URL // scheme and host the crawl is confined to
	client *http.Client
	robots *robotstxt.RobotsData
	visit  func(Page) error
	last   time.Time // when the previous request was answered (or failed)
	// seen holds the canonical URLs queued or crawled, so neither a link
	// nor a redirect fetches a page twice.
	seen map[string]bool
}

type queued struct {
	u     *url.URL
	depth int
}

func (cr *crawler) run(ctx context.Context, first *url.URL) error {
	seen := map[string]bool{first.String(): true}
	cr.seen = seen
	queue := []queued{{first, 0}}
	// Requests are bounded apart from pages: links that turn out to be
	// images or broken cost a request each but are no page.
	maxRequests := 2*cr.lim.MaxPages + 10
	maxQueued := 20*cr.lim.MaxPages + 100
	pages, requests := 0, 0
	for len(queue) > 0 && pages < cr.lim.MaxPages && requests < maxRequests {
		q := queue[0]
		queue = queue[1:]
		requests++
		pg, links, err := cr.fetch(ctx, q.u, q.depth)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if q.depth == 0 && pages == 0 {
				return fmt.Errorf("%w: %w", ErrStartPage, err)
			}
			continue // a broken link, a timeout, an off-site redirect: skip the page
		}
		if pg != nil {
			seen[pg.URL] = true
			pages++
			if err := cr.visit(*pg); err != nil {
				return err
			}
		}
		if q.depth >= cr.lim.MaxDepth {
			continue
		}
		for _, l := range links {
			k := l.String()
			if seen[k] || len(queue) >= maxQueued || !cr.allowed(l) {
				continue
			}
			seen[k] = true
			queue = append(queue, queued{l, q.depth + 1})
		}
	}
	return nil
}

// errOffSite stops a redirect that leaves the site or that robots.txt
// disallows.
var errOffSite = errors.New("redirect leaves the crawled site")

// errAlreadySeen stops a redirect to a page the crawl already has.
var errAlreadySeen = errors.New("redirect to a page already crawled")

// confined wraps the caller's client so redirects stay on the site and
// within robots.txt, while keeping the client's own redirect checks (the
// outbound guard's included) and its transport.
func confined(c *http.Client, cr *crawler) *http.Client {
	cc := *c
	inner := c.CheckRedirect
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		u, ok := canonical(req.URL)
		if !ok || !cr.sameSite(u) {
			return errOffSite
		}
		if cr.robots != nil && !cr.allowed(u) {
			return fmt.Errorf("%w: robots.txt disallows %s", errOffSite, u.Path)
		}
		if cr.seen[u.String()] {
			return errAlreadySeen
		}
		if inner != nil {
			return inner(req, via)
		}
		if len(via) >= 10 {
			return errors.New("too many redirects")
		}
		return nil
	}
	return &cc
}

func (cr *crawler) sameSite(u *url.URL) bool {
	return u.Scheme == cr.site.Scheme && u.Host == cr.site.Host
}

// readRobots reads the site's robots.txt. As RFC 9309 says: a missing one
// (4xx) allows everything, a server error (5xx) or an unreachable file
// disallows everything.
func (cr *crawler) readRobots(ctx context.Context) error {
	ru := &url.URL{Scheme: cr.site.Scheme, Host: cr.site.Host, Path: "/robots.txt"}
	resp, cancel, err := cr.get(ctx, ru)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: robots.txt: %w", ErrStartPage, err)
	}
	defer cancel()
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsBytes))
	if err != nil {
		return fmt.Errorf("%w: robots.txt: %w", ErrStartPage, err)
	}
	status := resp.StatusCode
	if status >= 300 && status < 400 {
		status = http.StatusNotFound // a redirect off the site: treat as absent
	}
	rd, err := robotstxt.FromStatusAndBytes(status, body)
	if err != nil {
		// Unparseable lines are skipped by the parser; only an unexpected
		// status lands here, and it allows nothing.
		rd, _ = robotstxt.FromStatusAndBytes(http.StatusServiceUnavailable, nil)
	}
	cr.robots = rd
	if g := rd.FindGroup(robotsAgent); g != nil && g.CrawlDelay > cr.lim.Delay {
		cr.lim.Delay = min(g.CrawlDelay, MaxCrawlDelay)
	}
	return nil
}

func (cr *crawler) allowed(u *url.URL) bool {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return cr.robots.TestAgent(p, robotsAgent)
}

// get sends one request after the politeness delay, bounded by the page
// timeout. The caller closes the body, then calls cancel.
func (cr *crawler) get(ctx context.Context, u *url.URL) (*http.Response, context.CancelFunc, error) {
	if !cr.last.IsZero() && cr.lim.Delay > 0 {
		wait := time.Until(cr.last.Add(cr.lim.Delay))
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, nil, ctx.Err()
			case <-t.C:
			}
		}
	}
	rctx, cancel := context.WithTimeout(ctx, cr.lim.PageTimeout)
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u.String(), nil)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "text/html, application/xhtml+xml;q=0.9, */*;q=0.1")
	resp, err := cr.client.Do(req)
	// The delay counts from the answer, not the send: the site has had
	// this request by then, so the next one reaches it at least Delay
	// later however long this one took to arrive (counted from the send,
	// the site saw 73 ms between two requests 80 ms apart).
	cr.last = time.Now()
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return resp, cancel, nil
}

// fetch reads one page. It returns no page (and no error) for a response
// that is not HTML or a page that asks not to be indexed, and the page's
// links unless it asks for them not to be followed.
func (cr *crawler) fetch(ctx context.Context, u *url.URL, depth int) (*Page, []*url.URL, error) {
	resp, cancel, err := cr.get(ctx, u)
	if err != nil {
		return nil, nil, err
	}
	defer cancel()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("%s answered %s", u, resp.Status)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "text/html" && mt != "application/xhtml+xml" {
		return nil, nil, nil // not a page: not read at all
	}
	final, ok := canonical(resp.Request.URL)
	if !ok || !cr.sameSite(final) {
		return nil, nil, errOffSite
	}
	doc, err := io.ReadAll(io.LimitReader(resp.Body, cr.lim.MaxBytesPerPage))
	if err != nil {
		return nil, nil, err
	}
	meta := scan(doc, final)
	var links []*url.URL
	if !meta.nofollow {
		for _, l := range meta.links {
			if cr.sameSite(l) && !skippedByExtension(l) {
				links = append(links, l)
			}
		}
	}
	if meta.noindex {
		return nil, links, nil
	}
	var text bytes.Buffer
	tctx, tcancel := context.WithTimeout(ctx, cr.lim.PageTimeout)
	defer tcancel()
	_, err = extract.Limits{MaxTextBytes: maxPageTextBytes}.Extract(tctx, mt, extract.Source{R: bytes.NewReader(doc)}, &text)
	if err != nil && !errors.Is(err, extract.ErrLimit) {
		return nil, links, err
	}
	sum := sha256.Sum256(text.Bytes())
	return &Page{URL: final.String(), Title: meta.title, Text: text.String(), ContentHash: hex.EncodeToString(sum[:]), Depth: depth}, links, nil
}

// pageMeta is what the crawler needs from a page besides its text.
type pageMeta struct {
	title             string
	links             []*url.URL
	noindex, nofollow bool
}

// scan reads the title, the <base>, the robots meta tag and the links of
// a page with the streaming tokenizer.
func scan(doc []byte, pageURL *url.URL) pageMeta {
	var m pageMeta
	base := pageURL
	z := html.NewTokenizer(bytes.NewReader(doc))
	z.SetMaxBuf(len(doc) + 1)
	inTitle, titleDone := false, false
	var title strings.Builder
	var hrefs []string
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			m.title = clipTitle(strings.Join(strings.Fields(title.String()), " "))
			seen := map[string]bool{}
			for _, h := range hrefs {
				ref, err := url.Parse(strings.TrimSpace(h))
				if err != nil {
					continue
				}
				if l, ok := canonical(base.ResolveReference(ref)); ok && !seen[l.String()] {
					seen[l.String()] = true
					m.links = append(m.links, l)
				}
			}
			return m
		case html.TextToken:
			if inTitle && title.Len() < 4*maxTitleBytes {
				title.Write(z.Text())
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); atom.Lookup(name) == atom.Title {
				inTitle, titleDone = false, true
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			attrs := map[string]string{}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				key := string(k)
				if _, dup := attrs[key]; !dup && (key == "href" || key == "rel" || key == "name" || key == "content") {
					attrs[key] = string(v)
				}
			}
			switch a {
			case atom.Title:
				inTitle = !titleDone && tt == html.StartTagToken
			case atom.Base:
				if ref, err := url.Parse(strings.TrimSpace(attrs["href"])); err == nil && attrs["href"] != "" {
					base = pageURL.ResolveReference(ref)
				}
			case atom.Meta:
				if strings.EqualFold(attrs["name"], "robots") || strings.EqualFold(attrs["name"], robotsAgent) {
					for _, d := range strings.Split(strings.ToLower(attrs["content"]), ",") {
						switch strings.TrimSpace(d) {
						case "noindex":
							m.noindex = true
						case "nofollow":
							m.nofollow = true
						case "none":
							m.noindex, m.nofollow = true, true
						}
					}
				}
			case atom.A, atom.Area:
				if h, ok := attrs["href"]; ok && len(hrefs) < maxLinksPerPage && !hasToken(attrs["rel"], "nofollow") {
					hrefs = append(hrefs, h)
				}
			}
		}
	}
}

func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(strings.ToLower(list)) {
		if f == tok {
			return true
		}
	}
	return false
}

// canonical gives the one spelling of a URL the crawler keys pages by:
// http or https only, no user info, no fragment, lower-case scheme and
// host, no default port, and "/" for an empty path.
func canonical(u *url.URL) (*url.URL, bool) {
	if u == nil {
		return nil, false
	}
	c := *u
	c.Scheme = strings.ToLower(c.Scheme)
	if (c.Scheme != "http" && c.Scheme != "https") || c.Host == "" || c.User != nil || c.Opaque != "" {
		return nil, false
	}
	host := strings.ToLower(c.Hostname())
	if host == "" {
		return nil, false // "//:" parses with a host of ":" alone
	}
	port := c.Port()
	if (c.Scheme == "http" && port == "80") || (c.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	c.Host = host
	c.Fragment, c.RawFragment = "", ""
	if c.Path == "" {
		c.Path, c.RawPath = "/", ""
	}
	c.ForceQuery = false
	return &c, true
}

// skippedByExtension spares a request for links that plainly are not
// pages; anything else is judged by its Content-Type.
func skippedByExtension(u *url.URL) bool {
	switch strings.ToLower(path.Ext(u.Path)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".ico", ".bmp", ".tif", ".tiff",
		".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".tar",
		".mp3", ".mp4", ".m4a", ".wav", ".ogg", ".webm", ".mov", ".avi", ".mkv",
		".css", ".js", ".json", ".xml", ".rss", ".atom", ".woff", ".woff2", ".ttf", ".otf", ".eot",
		".exe", ".dmg", ".iso", ".bin", ".apk", ".deb", ".rpm", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx":
		return true
	}
	return false
}

func clipTitle(s string) string {
	if len(s) <= maxTitleBytes {
		return s
	}
	i := maxTitleBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
