package jobs

import (
	"context"

	"github.com/agentry/agentry/internal/store"
)

// queueDepth counts the queue's unfinished jobs by kind and state, for the
// depth metric. River's tables are the queue's: only this package (and
// River itself) reads them.
func queueDepth(ctx context.Context, q store.Querier) ([]depthRow, error) {
	return store.All(ctx, q, func(r store.Scanner) (depthRow, error) {
		var d depthRow
		err := r.Scan(&d.kind, &d.state, &d.n)
		return d, err
	}, `SELECT kind, state, COUNT(*) FROM river_job
		WHERE state IN ('available', 'scheduled', 'retryable', 'running') GROUP BY kind, state`)
}
