package isolation

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/server"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// revocationBound is the promise: a revoked key stops working within five
// seconds on every replica.
const revocationBound = 5 * time.Second

// TestRevokedKeyStopsOnEveryReplica runs two replicas on one database,
// revokes a key through the store as replica one would, and polls replica
// two — which never heard of the revocation — until it refuses the key.
//
// Replica two's cache is filled just before the revocation, so the test
// measures the worst case: a verification cached a moment before the key
// was revoked.
func TestRevokedKeyStopsOnEveryReplica(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		one := testserver.Start(t, d)
		two := testserver.Start(t, d, func(c *server.Config) { c.DatabaseURL = one.S.Config.DatabaseURL })
		tenant := one.NewTenant(t, "revoked")
		ctx := context.Background()
		key, err := auth.APIKeyByHash(ctx, one.DB, auth.HashKey(tenant.Key))
		if err != nil {
			t.Fatal(err)
		}

		status := func(s *testserver.Server) int { return s.Do(t, http.MethodGet, "/me", tenant.Key, nil).Status }
		for name, s := range map[string]*testserver.Server{"one": one, "two": two} {
			if got := status(s); got != http.StatusOK {
				t.Fatalf("replica %s does not accept the fresh key: %d", name, got)
			}
		}
		// Let replica two's entry expire, then refill it: the revocation
		// lands right after a fresh cache fill.
		time.Sleep(two.S.Config.AuthCacheTTL + 50*time.Millisecond)
		if got := status(two); got != http.StatusOK {
			t.Fatalf("replica two: %d before revocation", got)
		}
		revoked := time.Now()
		if err := auth.RevokeAPIKey(ctx, one.DB, key.ID); err != nil {
			t.Fatal(err)
		}

		for name, s := range map[string]*testserver.Server{"two": two, "one": one} {
			took, ok := pollUntilRefused(t, s, tenant.Key, revoked, revocationBound+time.Second)
			switch {
			case !ok:
				t.Errorf("replica %s still accepts the key %v after revocation", name, took.Round(time.Millisecond))
			case took > revocationBound:
				t.Errorf("replica %s refused the key only after %v, want within %v", name, took.Round(time.Millisecond), revocationBound)
			default:
				t.Logf("replica %s refused the revoked key %v after revocation (auth cache TTL %v)", name, took.Round(time.Millisecond), s.S.Config.AuthCacheTTL)
			}
		}
	})
}

// pollUntilRefused asks s every 20ms until the key gets a 401 or limit
// passes since start; it returns the time since start.
func pollUntilRefused(t *testing.T, s *testserver.Server, key string, start time.Time, limit time.Duration) (time.Duration, bool) {
	t.Helper()
	for {
		r := s.Do(t, http.MethodGet, "/me", key, nil)
		switch r.Status {
		case http.StatusUnauthorized:
			return time.Since(start), true
		case http.StatusOK:
		default:
			t.Fatalf("unexpected status %d: %s", r.Status, r.Body)
		}
		if time.Since(start) > limit {
			return time.Since(start), false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
