package llm

import (
	"net/http"
	"testing"
	"time"
)

// FuzzParseRetryAfter: Retry-After comes from remote servers; any value
// must give a non-negative, bounded wait and never panic.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"1", "0.25", "Wed, 21 Oct 2015 07:28:00 GMT", "-1", "1e308", "NaN", "", "99999999999"} {
		f.Add(s, s)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ra, raMs string) {
		h := http.Header{}
		h.Set("Retry-After", ra)
		h.Set("Retry-After-Ms", raMs)
		d := ParseRetryAfter(h, now)
		if d < 0 || d > 24*time.Hour {
			t.Fatalf("Retry-After %q / %q gave %v", ra, raMs, d)
		}
	})
}
