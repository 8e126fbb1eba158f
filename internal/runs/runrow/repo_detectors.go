package runrow

import (
	"context"
	"database/sql"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// What the alerts area's detectors read of the runs, and the model
// lifecycle's rollback rules. A regression's replays (regression_id set)
// are no production runs, so none of these count them.

// RecentTerminalStatuses returns the statuses of an agent's last n
// finished runs, latest started first (ids are time-ordered, so the agent
// index serves it).
func RecentTerminalStatuses(ctx context.Context, q store.Querier, accountID, agentID string, n int) ([]string, error) {
	return store.All(ctx, q, store.ScanString, `SELECT status FROM runs WHERE account_id = $1 AND agent_id = $2 AND status IN ($3, $4)
		AND regression_id IS NULL ORDER BY id DESC LIMIT $5`, accountID, agentID, Completed, Failed, n)
}

// Window counts an agent's runs created in a window: all of them, those
// that ended, and those that failed.
type Window struct{ Created, Ended, Failed int }

// WindowSince counts the runs of an agent (agentID "" for the whole
// account) whose id is at least idFloor, the smallest id of the window's
// start (ids begin with their creation time).
func WindowSince(ctx context.Context, q store.Querier, accountID, agentID, idFloor string) (Window, error) {
	var w Window
	err := q.QueryRowContext(ctx, `SELECT COUNT(*),
		COALESCE(SUM(CASE WHEN status IN ($4, $5) THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status = $5 THEN 1 ELSE 0 END), 0)
		FROM runs WHERE account_id = $1 AND ($2 = '' OR agent_id = $2) AND id >= $3 AND regression_id IS NULL`,
		accountID, agentID, idFloor, Completed, Failed).Scan(&w.Created, &w.Ended, &w.Failed)
	return w, err
}

// Brief is what the detectors need of a run.
type Brief struct {
	ID, AgentID, Status, Error string
	StartedAt, EndedAt         *time.Time
}

const briefColumns = `id, agent_id, status, COALESCE(error, ''), started_at, ended_at`

func scanBrief(row store.Scanner) (Brief, error) {
	var (
		b              Brief
		started, ended sql.NullTime
	)
	err := row.Scan(&b.ID, &b.AgentID, &b.Status, &b.Error, &started, &ended)
	b.StartedAt, b.EndedAt = store.TimeOrNil(started), store.TimeOrNil(ended)
	return b, err
}

// EndedBetween lists an account's runs (of one agent unless agentID is
// "") that ended in (from, to], oldest first, at most limit.
func EndedBetween(ctx context.Context, q store.Querier, accountID, agentID string, from, to time.Time, limit int) ([]Brief, error) {
	return store.All(ctx, q, scanBrief, `SELECT `+briefColumns+` FROM runs
		WHERE account_id = $1 AND ($2 = '' OR agent_id = $2) AND ended_at > $3 AND ended_at <= $4 AND status IN ($5, $6)
		AND regression_id IS NULL ORDER BY ended_at, id LIMIT $7`, accountID, agentID, from.UTC(), to.UTC(), Completed, Failed, limit)
}

// BriefOf reads one run of the account; store.ErrNotFound when there is
// none.
func BriefOf(ctx context.Context, q store.Querier, accountID, runID string) (Brief, error) {
	return store.One(ctx, q, scanBrief, `SELECT `+briefColumns+` FROM runs WHERE id = $1 AND account_id = $2`, runID, accountID)
}

// FailedEndingsSince returns when each of an agent's runs that failed
// other than by being cancelled ended, at or after since.
func FailedEndingsSince(ctx context.Context, q store.Querier, accountID, agentID string, since time.Time) ([]time.Time, error) {
	return store.All(ctx, q, func(row store.Scanner) (time.Time, error) {
		var at time.Time
		err := row.Scan(&at)
		return at.UTC(), err
	}, `SELECT ended_at FROM runs WHERE account_id = $1 AND agent_id = $2 AND status = $3
		AND cancel_requested = FALSE AND ended_at IS NOT NULL AND ended_at >= $4 AND regression_id IS NULL`, accountID, agentID, Failed, since.UTC())
}

// Search is how the account search (internal/search) finds runs: by exact
// id only, named "Run <id>" and described by their status.
var Search = store.SearchTable{Table: "runs", NameExpr: "'Run ' || id", DescExpr: "status", IDOnly: true}
