package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestMetricsLabelsAreBounded: requests with invented methods and random
// paths, unauthenticated, must not add series to /metrics, and never put
// what the client sent into a label.
func TestMetricsLabelsAreBounded(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		junk := func(from, to int) {
			for i := from; i < to; i++ {
				method := fmt.Sprintf("INVENTED%d", i)
				path := fmt.Sprintf("/random/%d/path-%d", i, i*7)
				if i%3 == 0 {
					path = "/me" // a known route under an unknown method
				}
				s.Do(t, method, path, "", nil)
				s.Do(t, http.MethodGet, path, "", nil)
			}
		}
		series := func() []string {
			r := s.Do(t, http.MethodGet, "/metrics", "", nil)
			if r.Status != http.StatusOK {
				t.Fatalf("GET /metrics: %d", r.Status)
			}
			var out []string
			for _, line := range strings.Split(string(r.Body), "\n") {
				if strings.HasPrefix(line, "agentry_http_") {
					// The series, without its value.
					out = append(out, line[:strings.LastIndexByte(line, ' ')])
				}
			}
			return out
		}
		junk(0, 6)
		s.Do(t, strings.Repeat("M", 8<<10), "/me", "", nil)
		series() // the scrape itself is counted from the next one on
		before := series()
		junk(6, 200)
		s.Do(t, strings.Repeat("N", 8<<10), "/"+strings.Repeat("p", 8<<10), "", nil)
		after := series()
		if len(after) != len(before) {
			had := map[string]bool{}
			for _, l := range before {
				had[l] = true
			}
			for _, l := range after {
				if !had[l] {
					t.Logf("new: %.200s", l)
				}
			}
			t.Errorf("series grew from %d to %d with invented methods and paths", len(before), len(after))
		}
		for _, line := range after {
			if strings.Contains(line, "INVENTED") || strings.Contains(line, "/random/") || strings.Contains(line, "MMMM") || len(line) > 512 {
				t.Fatalf("a client-chosen value reached a label: %.200s", line)
			}
		}
		if !strings.Contains(strings.Join(after, "\n"), `method="OTHER"`) {
			t.Error(`no method="OTHER" series for the invented methods`)
		}
	})
}
