// Package feeds fetches and reads syndication feeds (RSS 0.9x–2.0, RSS 1.0,
// Atom and JSON Feed) for RSS sources. It owns the conditional GET that
// lets a poll of an unchanged feed cost one small response, the bounds on
// what one poll may cost (body size, item count, text per item, time), and
// the conversion of each item's HTML to plain text with the server's own
// extractors. Parsing is github.com/mmcdole/gofeed: a well-kept parser of
// every feed dialect, so this package does not hand-read XML.
//
// The caller supplies the HTTP client: RSS sources pass the outbound
// guard's client (internal/outbound), so a feed URL cannot reach private
// addresses the operator has not allowed.
package feeds

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"

	"github.com/agentry/agentry/internal/extract"
)

// Validators are the cache validators of the last successful fetch, sent
// back on the next one so an unchanged feed answers 304 Not Modified.
type Validators struct {
	ETag         string
	LastModified string
}

// Result is one fetch. When NotModified is true the feed has not changed
// since the validators given to Fetch, and Title and Items are empty.
type Result struct {
	NotModified bool
	Validators
	Title string
	Items []Item
}

// Item is one entry of a feed. Content is plain text (the item's HTML
// content, or its summary when it has no content, turned into text).
// GUID is the item's own identifier, else its link, else a hash of its
// title and date, so the same item keeps the same GUID across polls.
type Item struct {
	GUID, Title, Link, Content, Author string
	Published                          *time.Time
}

// Bounds of one fetch. A feed is a document a stranger controls, so each
// of these stops a poll from costing more than a real feed ever needs.
const (
	// MaxBodyBytes bounds the feed document; larger ones are ErrTooLarge.
	MaxBodyBytes = 10 << 20
	// MaxItemTextBytes bounds the text of one item's content.
	MaxItemTextBytes = 1 << 20
	// DefaultMaxItems is used when maxItems is zero or negative;
	// MaxItems is the most any caller may ask for.
	DefaultMaxItems = 100
	MaxItems        = 1000
	// DefaultTimeout bounds a fetch (request and body), whatever the
	// caller's deadline.
	DefaultTimeout = 30 * time.Second
	maxFieldBytes  = 2048 // title, link, author, GUID
)

// fetchTimeout is DefaultTimeout; a test shortens it.
var fetchTimeout = DefaultTimeout

// Errors of Fetch and Parse.
var (
	ErrTooLarge   = fmt.Errorf("the feed is larger than %d bytes", MaxBodyBytes)
	ErrNotAFeed   = errors.New("the document is not an RSS, Atom or JSON feed")
	ErrBadURL     = errors.New("the feed URL must be an absolute http or https URL")
	ErrHTTPStatus = errors.New("the feed server answered an error")
)

// Fetch gets the feed at rawURL with c, conditionally when prev holds
// validators, and returns its newest maxItems items (all items in
// document order when they carry no dates).
func Fetch(ctx context.Context, c *http.Client, rawURL string, prev Validators, maxItems int) (*Result, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, ErrBadURL
	}
	// Bounded on its own, whatever the caller's deadline: a poll job's
	// context has the job timeout's, far longer, and a server trickling
	// its feed would hold the worker that long.
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, ErrBadURL
	}
	req.Header.Set("User-Agent", "Agentry-feed-reader/1.0")
	req.Header.Set("Accept", "application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.5")
	if prev.ETag != "" {
		req.Header.Set("If-None-Match", prev.ETag)
	}
	if prev.LastModified != "" {
		req.Header.Set("If-Modified-Since", prev.LastModified)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	got := Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
	if resp.StatusCode == http.StatusNotModified {
		// A 304 may omit the validators; the previous ones still hold.
		if got.ETag == "" {
			got.ETag = prev.ETag
		}
		if got.LastModified == "" {
			got.LastModified = prev.LastModified
		}
		return &Result{NotModified: true, Validators: got}, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("%w: %s", ErrHTTPStatus, resp.Status)
	}
	if resp.ContentLength > MaxBodyBytes {
		return nil, ErrTooLarge
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the feed: %w", err)
	}
	if len(body) > MaxBodyBytes {
		return nil, ErrTooLarge
	}
	res, err := parse(ctx, body, maxItems)
	if err != nil {
		return nil, err
	}
	res.Validators = got
	return res, nil
}

// Parse reads a feed document already in hand (at most MaxBodyBytes).
func Parse(ctx context.Context, doc []byte, maxItems int) (*Result, error) {
	if len(doc) > MaxBodyBytes {
		return nil, ErrTooLarge
	}
	return parse(ctx, doc, maxItems)
}

func parse(ctx context.Context, doc []byte, maxItems int) (res *Result, err error) {
	if maxItems <= 0 {
		maxItems = DefaultMaxItems
	}
	maxItems = min(maxItems, MaxItems)
	f, err := gofeed.NewParser().Parse(bytes.NewReader(doc))
	if err != nil {
		if errors.Is(err, gofeed.ErrFeedTypeNotDetected) {
			return nil, ErrNotAFeed
		}
		return nil, fmt.Errorf("%w: %v", ErrNotAFeed, err)
	}
	items := newestFirst(f.Items)
	if len(items) > maxItems {
		items = items[:maxItems]
	}
	res = &Result{Title: clip(oneLine(f.Title)), Items: make([]Item, 0, len(items))}
	for _, it := range items {
		if it == nil {
			continue
		}
		item, err := convert(ctx, it)
		if err != nil {
			return nil, err
		}
		res.Items = append(res.Items, item)
	}
	return res, nil
}

// newestFirst orders items by date, newest first, when every item has one;
// otherwise the document's own order stands (feeds list newest first).
func newestFirst(items []*gofeed.Item) []*gofeed.Item {
	for _, it := range items {
		if it == nil || date(it) == nil {
			return items
		}
	}
	out := append([]*gofeed.Item(nil), items...)
	sort.SliceStable(out, func(i, j int) bool { return date(out[i]).After(*date(out[j])) })
	return out
}

func date(it *gofeed.Item) *time.Time {
	if it.PublishedParsed != nil {
		return it.PublishedParsed
	}
	return it.UpdatedParsed
}

func convert(ctx context.Context, it *gofeed.Item) (Item, error) {
	out := Item{Title: clip(oneLine(it.Title)), Link: clip(strings.TrimSpace(it.Link))}
	if it.Title != "" && strings.ContainsAny(it.Title, "<&") {
		out.Title = clip(oneLine(htmlToText(ctx, it.Title, maxFieldBytes)))
	}
	if d := date(it); d != nil {
		t := d.UTC()
		out.Published = &t
	}
	switch {
	case it.Author != nil && it.Author.Name != "":
		out.Author = clip(oneLine(it.Author.Name))
	case len(it.Authors) > 0 && it.Authors[0] != nil:
		out.Author = clip(oneLine(it.Authors[0].Name))
	}
	html := it.Content
	if strings.TrimSpace(html) == "" {
		html = it.Description
	}
	out.Content = htmlToText(ctx, html, MaxItemTextBytes)
	out.GUID = clip(strings.TrimSpace(it.GUID))
	if out.GUID == "" {
		out.GUID = out.Link
	}
	if out.GUID == "" {
		h := sha256.New()
		io.WriteString(h, out.Title)
		h.Write([]byte{0})
		if out.Published != nil {
			io.WriteString(h, out.Published.Format(time.RFC3339))
		}
		h.Write([]byte{0})
		io.WriteString(h, out.Content)
		out.GUID = "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	return out, ctx.Err()
}

// htmlToText turns an item's HTML into text with the server's HTML
// extractor, keeping what fits in max bytes: a feed item longer than that
// is cut, not refused, because the rest of the feed is still worth reading.
func htmlToText(ctx context.Context, s string, max int64) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	var b strings.Builder
	_, err := extract.Limits{MaxTextBytes: max}.Extract(ctx, "text/html", extract.Source{R: strings.NewReader(s)}, &b)
	if err != nil && !errors.Is(err, extract.ErrLimit) {
		// A malformed fragment still yields what was read before the fault.
		return strings.TrimSpace(b.String())
	}
	return strings.TrimSpace(b.String())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts a short field to maxFieldBytes on a rune boundary.
func clip(s string) string {
	if len(s) <= maxFieldBytes {
		return s
	}
	i := maxFieldBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
