package inbound

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// keyedLimiter is a token bucket per key (a client address, an account),
// held in memory by each process. Idle buckets are swept, and the map is
// bounded so a flood of distinct keys cannot grow it without end.
type keyedLimiter struct {
	perMinute int
	mu        sync.Mutex
	buckets   map[string]*limBucket
	swept     time.Time
}

type limBucket struct {
	lim  *rate.Limiter
	seen time.Time
}

const maxLimiterKeys = 100_000

func newKeyedLimiter(perMinute int) *keyedLimiter {
	if perMinute <= 0 {
		return nil
	}
	return &keyedLimiter{perMinute: perMinute, buckets: map[string]*limBucket{}, swept: time.Now()}
}

// allow takes a token for key; a nil limiter allows everything.
func (l *keyedLimiter) allow(key string) bool {
	if l == nil {
		return true
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute || len(l.buckets) >= maxLimiterKeys {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > 2*time.Minute {
				delete(l.buckets, k)
			}
		}
		l.swept = now
		if len(l.buckets) >= maxLimiterKeys {
			return false
		}
	}
	b := l.buckets[key]
	if b == nil {
		b = &limBucket{lim: rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)}
		l.buckets[key] = b
	}
	b.seen = now
	return b.lim.AllowN(now, 1)
}
