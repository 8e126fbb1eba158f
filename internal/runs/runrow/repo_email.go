package runrow

import (
	"context"
	"strconv"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// What inbound mail asks of the runs it started: the run a message
// already started, and its parked (queued) runs and hourly quota. The
// trigger type is written into the SQL, not passed, so the partial
// indexes over email runs serve these on PostgreSQL's generic plans too.

// WithMetadataSince returns the first run of the account's agent created
// at or after since whose metadata is LIKE metadataLike ("" when none).
func WithMetadataSince(ctx context.Context, q store.Querier, accountID, agentID string, since time.Time, metadataLike string) (string, error) {
	return store.One(ctx, q, store.ScanString, `SELECT id FROM runs WHERE account_id = $1 AND agent_id = $2 AND created_at >= $3
		AND metadata LIKE $4 ORDER BY id LIMIT 1`, accountID, agentID, since, metadataLike)
}

// AccountsWithQueuedEmailRuns lists up to limit accounts holding parked
// email runs, across accounts.
func AccountsWithQueuedEmailRuns(ctx context.Context, q store.Querier, limit int) ([]string, error) {
	return store.All(ctx, q, store.ScanString, `SELECT DISTINCT account_id FROM runs WHERE status = $1 AND trigger_type = 'email_received' LIMIT $2`,
		Queued, limit)
}

// EmailRunsNotParked counts the account's email runs that are not parked
// and were created since t (createdSince) or created before t and started
// since (startedSince), each count stopping at upTo when > 0. The two are
// counted apart so that each is one range of the quota indexes.
func EmailRunsNotParked(ctx context.Context, q store.Querier, accountID string, t time.Time, upTo int) (createdSince, startedSince int, err error) {
	limit := ""
	if upTo > 0 {
		limit = " LIMIT " + strconv.Itoa(upTo)
	}
	err = q.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM runs WHERE account_id = $1 AND trigger_type = 'email_received'
		AND created_at >= $2 AND status <> $3`+limit+`) q`, accountID, t, Queued).Scan(&createdSince)
	if err != nil || (upTo > 0 && createdSince >= upTo) {
		return createdSince, 0, err
	}
	err = q.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM runs WHERE account_id = $1 AND trigger_type = 'email_received'
		AND started_at >= $2 AND created_at < $2 AND status <> $3`+limit+`) q`, accountID, t, Queued).Scan(&startedSince)
	return createdSince, startedSince, err
}

// QueuedEmailRuns counts the account's parked email runs.
func QueuedEmailRuns(ctx context.Context, q store.Querier, accountID string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs WHERE account_id = $1 AND status = $2 AND trigger_type = 'email_received'`,
		accountID, Queued).Scan(&n)
	return n, err
}

// OldestQueuedEmailRuns lists up to limit of the account's parked email
// runs, oldest first.
func OldestQueuedEmailRuns(ctx context.Context, q store.Querier, accountID string, limit int) ([]string, error) {
	return store.All(ctx, q, store.ScanString,
		`SELECT id FROM runs WHERE account_id = $1 AND status = $2 AND trigger_type = 'email_received' ORDER BY id LIMIT $3`,
		accountID, Queued, limit)
}
