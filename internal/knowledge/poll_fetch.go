package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/knowledge/crawl"
	"github.com/agentry/agentry/internal/knowledge/feeds"
	"github.com/agentry/agentry/internal/outbound"
	"github.com/agentry/agentry/internal/store"
)

// maxPolledBytes bounds the text one feed item or page becomes.
const maxPolledBytes = 10 << 20

// client is the outbound-guarded HTTP client feeds and crawls use: it
// refuses private, loopback and link-local addresses after DNS resolution
// and on every redirect, unless the operator allows them.
func (s *Service) client() *http.Client {
	return outbound.Policy{AllowPrivate: s.cfg.AllowPrivateFetch}.Client()
}

func pollMax(src Source) int {
	if src.PollingMaxItems != nil && *src.PollingMaxItems > 0 {
		return *src.PollingMaxItems
	}
	return 50
}

func pollUpdates(src Source) bool {
	return src.PollingAction != nil && *src.PollingAction == PollUpdate
}

// pollFeed fetches an RSS, Atom or JSON feed (conditionally, with the
// validators of the last poll) and makes each new item a content; with
// polling_action update, an item whose text changed gets a new version.
func (s *Service) pollFeed(ctx context.Context, src Source, state map[string]string) (int, error) {
	if src.URL == nil {
		return 0, errors.New("the source has no URL")
	}
	res, err := feeds.Fetch(ctx, s.client(), *src.URL, feeds.Validators{ETag: state["etag"], LastModified: state["last_modified"]}, pollMax(src))
	if err != nil {
		return 0, err
	}
	state["etag"], state["last_modified"] = res.ETag, res.LastModified
	if res.NotModified {
		return 0, nil
	}
	n := 0
	// Oldest first, so contents are created in publication order.
	for i := len(res.Items) - 1; i >= 0; i-- {
		it := res.Items[i]
		key := it.GUID
		if key == "" {
			key = it.Link
		}
		text := strings.TrimSpace(it.Title + "\n\n" + it.Content)
		if key == "" {
			key = hashText(text)
		}
		meta := map[string]any{}
		if it.Author != "" {
			meta["author"] = it.Author
		}
		if it.Link != "" {
			meta["link"] = it.Link
		}
		added, err := s.ingestPolled(ctx, src, key, it.Title, it.Link, it.Published, text, meta)
		if err != nil {
			return n, err
		}
		if added {
			n++
		}
	}
	return n, nil
}

// pollSite crawls the site (robots.txt, same host, depth, page and byte
// limits) and makes each new page a content; a page whose text hash
// changed since the last crawl gets a new version (polling_action update,
// the default for websites).
func (s *Service) pollSite(ctx context.Context, src Source, state map[string]string) (int, error) {
	if src.URL == nil {
		return 0, errors.New("the source has no URL")
	}
	n := 0
	err := crawl.Crawl(ctx, s.client(), *src.URL, crawl.Limits{MaxPages: pollMax(src), MaxDepth: 3}, func(p crawl.Page) error {
		meta := map[string]any{"url": p.URL, "depth": p.Depth}
		added, err := s.ingestPolled(ctx, src, p.URL, p.Title, p.URL, nil, p.Text, meta)
		if added {
			n++
		}
		return err
	})
	return n, err
}

func hashText(t string) string {
	h := sha256.Sum256([]byte(t))
	return hex.EncodeToString(h[:])
}

// ingestPolled records one polled item: new (a content), changed (a new
// version, when the source updates), or unchanged (nothing). It reports
// whether it queued indexing.
func (s *Service) ingestPolled(ctx context.Context, src Source, key, title, link string, published *time.Time, text string, meta map[string]any) (bool, error) {
	if strings.TrimSpace(text) == "" {
		return false, nil
	}
	if len(text) > maxPolledBytes {
		text = strings.ToValidUTF8(text[:maxPolledBytes], "")
	}
	h := hashText(text)
	var prev *Content
	cur, err := s.repo().ContentByItem(ctx, src.AccountID, src.ID, key)
	switch {
	case err == nil:
		if cur.TextHash != nil && *cur.TextHash == h {
			return false, nil
		}
		if !pollUpdates(src) {
			return false, nil
		}
		prev = &cur
	case !errors.Is(err, store.ErrNotFound):
		return false, err
	}
	var t *string
	if title = strings.TrimSpace(title); title != "" {
		meta["title"] = title
		t = &title
	}
	name := "item.txt"
	if title != "" {
		name = cleanName(title) + ".txt"
	}
	_, err = s.store(ctx, src, prev, Upload{Filename: name, DeclaredType: "text/plain", Body: strings.NewReader(text), Title: t,
		Metadata: meta, ItemKey: key, ContentURL: link, PublishedAt: published, TextHash: &h}, InlineTypes, maxPolledBytes)
	return err == nil, err
}
