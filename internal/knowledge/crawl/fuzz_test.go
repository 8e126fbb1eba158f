package crawl

import (
	"net/url"
	"testing"
)

// FuzzScan reads arbitrary pages for links: never a panic, every link
// canonical (http or https, no fragment), and no more than the page bound.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`<html><head><title>t</title><base href="/dir/"><meta name="robots" content="noindex, nofollow"></head><body><a href="x#f">x</a><a href="//h:80/">h</a><area href="HTTP://EXAMPLE.org:80"></body></html>`,
		`<a href="http://[::1]:443/p?q#r">`, `<a href=":::">`, `<a href="https://u:p@h/">`, `<title>`, "",
	} {
		f.Add([]byte(s))
	}
	base, _ := url.Parse("https://example.org/start/")
	f.Fuzz(func(t *testing.T, doc []byte) {
		m := scan(doc, base)
		if len(m.links) > maxLinksPerPage || len(m.title) > maxTitleBytes {
			t.Fatalf("%d links, title of %d bytes", len(m.links), len(m.title))
		}
		for _, l := range m.links {
			if (l.Scheme != "http" && l.Scheme != "https") || l.Fragment != "" || l.User != nil || l.Host == "" {
				t.Fatalf("not canonical: %s", l)
			}
			again, ok := canonical(l)
			if !ok || again.String() != l.String() {
				t.Fatalf("canonical is not stable: %s → %v", l, again)
			}
		}
	})
}
