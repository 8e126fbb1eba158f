package runs

import (
	"context"
	"database/sql"
	"errors"

	"github.com/agentry/agentry/internal/store"
)

// The runs' reads a regression (internal/regressions) needs: its recorded
// runs, their credits for the estimate, and whether a run is a replay
// (which raises no alert). They read the runs table, whose SQL is here.

// RegressionSourceRuns are the ids of an agent's last n finished runs
// (completed or failed), newest first; replays of regressions excluded.
func (q *Repo) RegressionSourceRuns(ctx context.Context, accountID, agentID string, n int) ([]string, error) {
	return store.All(ctx, q.db.R, store.ScanString, `SELECT id FROM runs WHERE account_id = $1 AND agent_id = $2 AND status IN ($3, $4)
		AND regression_id IS NULL ORDER BY id DESC LIMIT $5`, accountID, agentID, RunCompleted, RunFailed, n)
}

// RunCreditsOf sums the credits of runs of an account (for the up-front
// estimate of replaying them).
func (q *Repo) RunCreditsOf(ctx context.Context, accountID string, runIDs []string) (float64, error) {
	var total int64
	for _, id := range runIDs {
		var micro int64
		err := q.db.R.QueryRowContext(ctx, `SELECT credits FROM runs WHERE id = $1 AND account_id = $2`, id, accountID).Scan(&micro)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, err
		}
		total += micro
	}
	return store.FromMicro(total), nil
}

// RunRegressionID is the regression a run replays for ("" for a
// production run, or a run that does not exist).
func (q *Repo) RunRegressionID(ctx context.Context, runID string) (string, error) {
	var id sql.NullString
	err := q.db.R.QueryRowContext(ctx, `SELECT regression_id FROM runs WHERE id = $1`, runID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id.String, err
}
