package api

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter is a token bucket per credential, held by each replica. With N
// replicas behind a balancer a credential can reach N times the rate; the
// limit protects each process, it is not a billing quota.
type limiter struct {
	rate  rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// maxBuckets bounds a limiter's memory when many distinct keys (client
// addresses, for failed attempts) arrive within a sweep interval.
const maxBuckets = 100_000

func newLimiter(perSecond float64, burst int) *limiter {
	if perSecond <= 0 {
		return nil // rate limiting off
	}
	if burst < 1 {
		burst = int(math.Max(1, perSecond))
	}
	return &limiter{rate: rate.Limit(perSecond), burst: burst, buckets: map[string]*bucket{}, swept: time.Now()}
}

// allow takes a token for credential; when none is left it says how long
// until one will be.
func (l *limiter) allow(credential string) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	now := time.Now()
	l.mu.Lock()
	b := l.buckets[credential]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.rate, l.burst)}
		l.buckets[credential] = b
	}
	b.seen = now
	if now.Sub(l.swept) > time.Minute || len(l.buckets) > maxBuckets {
		l.sweep(now)
		if len(l.buckets) > maxBuckets { // a flood of fresh keys: start over rather than grow
			l.buckets = map[string]*bucket{credential: b}
		}
	}
	l.mu.Unlock()
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// sweep forgets buckets idle long enough to be full again.
func (l *limiter) sweep(now time.Time) {
	idle := time.Duration(float64(l.burst)/float64(l.rate)*float64(time.Second)) + time.Minute
	for k, b := range l.buckets {
		if now.Sub(b.seen) > idle {
			delete(l.buckets, k)
		}
	}
	l.swept = now
}
