package api_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// TestFailedAuthenticationIsLimitedPerAddress: once a client address has
// spent its allowance of failed attempts, further failures answer 429 with
// Retry-After instead of 401; valid credentials from the same address keep
// working throughout.
func TestFailedAuthenticationIsLimitedPerAddress(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		const burst = 5
		s := testserver.Start(t, d, func(c *server.Config) {
			c.AuthFailureRate, c.AuthFailureBurst = 0.001, burst // no refill within the test
		})
		for i := 0; i < burst; i++ {
			if r := s.Do(t, http.MethodGet, "/me", "agk_guess_"+strconv.Itoa(i), nil); r.Status != http.StatusUnauthorized {
				t.Fatalf("failed attempt %d: %d, want 401", i+1, r.Status)
			}
			if r := s.Do(t, http.MethodGet, "/me", s.Key, nil); r.Status != http.StatusOK {
				t.Fatalf("valid key after %d failures: %d", i+1, r.Status)
			}
		}
		for _, headers := range [][]string{nil, {"Authorization: Bearer aaa.bbb.ccc"}, {"X-API-Key: agk_guess_more"}} {
			r := s.Do(t, http.MethodGet, "/agents", "", nil, headers...)
			if r.Status != http.StatusTooManyRequests {
				t.Fatalf("failure past the allowance (%v): %d, want 429: %s", headers, r.Status, r.Body)
			}
			if secs, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || secs < 1 {
				t.Errorf("Retry-After %q, want whole seconds", r.Header.Get("Retry-After"))
			}
			var body detailText
			r.JSON(t, &body)
			if body.Detail == "" {
				t.Errorf("429 without a detail: %s", r.Body)
			}
		}
		// Successful requests are unaffected, and public ones need no credentials.
		for i := 0; i < 3*burst; i++ {
			if r := s.Do(t, http.MethodGet, "/me", s.Key, nil); r.Status != http.StatusOK {
				t.Fatalf("valid key from a limited address: %d", r.Status)
			}
		}
		if r := s.Do(t, http.MethodGet, "/healthz", "", nil); r.Status != http.StatusOK {
			t.Errorf("/healthz from a limited address: %d", r.Status)
		}
	})
}

// TestFailedAuthenticationLimitOff: with the rate at 0 failures stay 401.
func TestFailedAuthenticationLimitOff(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, store.SQLite)
	for i := 0; i < 50; i++ {
		if r := s.Do(t, http.MethodGet, "/me", "agk_guess", nil); r.Status != http.StatusUnauthorized {
			t.Fatalf("attempt %d with the limit off: %d", i+1, r.Status)
		}
	}
}
