package jobs

import (
	"context"
	"time"
)

// SweepOnce runs the rescue sweep of RescueInterval once, at now; ok is
// false when the queue has none.
func (q *Queue) SweepOnce(ctx context.Context, now time.Time) (n int, ok bool, err error) {
	if q.sweep == nil {
		return 0, false, nil
	}
	n, err = q.sweep.once(ctx, now)
	return n, true, err
}
