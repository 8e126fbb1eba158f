package feeds_test

import (
	"context"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/knowledge/feeds"
)

// FuzzParse feeds arbitrary documents to the parsing entry point: every
// input is a feed or an error, never a panic, and what comes out is
// bounded valid text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{rssDoc, atomDoc, jsonDoc, "", "{}", "<rss", `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><item><title>x</title></item></rdf:RDF>`,
		`{"version":"https://jsonfeed.org/version/1","items":[{"id":1}]}`, `<feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="xhtml"><div>x</div></content></entry></feed>`} {
		f.Add([]byte(s), 5)
	}
	f.Fuzz(func(t *testing.T, doc []byte, maxItems int) {
		var res *feeds.Result
		var err error
		done := make(chan struct{})
		go func() { defer close(done); res, err = feeds.Parse(context.Background(), doc, maxItems) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Parse did not return within 10 s for %q", doc)
		}
		if err != nil {
			return
		}
		if len(res.Items) > feeds.MaxItems {
			t.Fatalf("%d items", len(res.Items))
		}
		for _, it := range res.Items {
			if len(it.Content) > feeds.MaxItemTextBytes+4 || len(it.Title) > 2048 || len(it.GUID) > 2048 {
				t.Fatalf("unbounded field: %d %d %d", len(it.Content), len(it.Title), len(it.GUID))
			}
			if !utf8.ValidString(it.Content) {
				t.Fatalf("invalid UTF-8 content")
			}
		}
	})
}
