package api_test

import (
	"crypto/sha512"
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestDocsPageNeedsNoNetwork: /docs loads nothing from another origin;
// every script and style it names is served by the server, with the bytes
// its integrity attribute promises.
func TestDocsPageNeedsNoNetwork(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		r := s.Do(t, "GET", "/docs", "", nil)
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), "<elements-api") {
			t.Fatalf("GET /docs: %d %s", r.Status, r.Body)
		}
		page := string(r.Body)
		if strings.Contains(page, "http://") || strings.Contains(page, "https://") || strings.Contains(page, "//unpkg") {
			t.Errorf("the page refers to another origin:\n%s", page)
		}
		if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "https:") {
			t.Errorf("CSP %q", csp)
		}
		refs := regexp.MustCompile(`(?:src|href)="([^"]+)" integrity="sha384-([^"]+)"`).FindAllStringSubmatch(page, -1)
		if len(refs) != 2 {
			t.Fatalf("want a script and a stylesheet with integrity, got %v", refs)
		}
		for _, ref := range refs {
			a := s.Do(t, "GET", ref[1], "", nil)
			sum := sha512.Sum384(a.Body)
			if a.Status != http.StatusOK || base64.StdEncoding.EncodeToString(sum[:]) != ref[2] {
				t.Errorf("GET %s: %d, %d bytes not matching its integrity", ref[1], a.Status, len(a.Body))
			}
			ct := a.Header.Get("Content-Type")
			if strings.HasSuffix(ref[1], ".js") && !strings.Contains(ct, "javascript") || strings.HasSuffix(ref[1], ".css") && !strings.Contains(ct, "text/css") {
				t.Errorf("GET %s: Content-Type %q", ref[1], ct)
			}
		}
		// The description the page renders is served too.
		if r := s.Do(t, "GET", "/openapi.yaml", "", nil); r.Status != http.StatusOK {
			t.Errorf("GET /openapi.yaml: %d", r.Status)
		}
		for _, p := range []string{"/docs/assets/nope.js", "/docs/assets/../api.go", "/docs/assets/README.md"} {
			if r := s.Do(t, "GET", p, "", nil); r.Status != http.StatusNotFound {
				t.Errorf("GET %s: %d, want 404", p, r.Status)
			}
		}
	})
}
