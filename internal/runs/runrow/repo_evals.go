package runrow

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// What the evaluations area reads of runs and their steps: the runs its
// results belong to, the step attempts a criterion can be tried on, and
// whether a result names a run and step of the agent.

// ResultRun is one run's rollup of evaluation results.
type ResultRun struct {
	RunID, RunStatus                               string
	RunCreatedAt                                   time.Time
	Total, Passed, Failed, Error, Skipped, Flagged int
}

// ResultRuns groups evaluation results by run, newest run first, with the
// number of runs. The results are the evaluations area's table, which
// that area names (results: evalrow.Results); they are joined here in one
// statement to their runs, to group and page by the run: where
// (" WHERE …" over the results as r, numbered from $1) and args select
// them; status, when set, keeps the runs with at least one result of that
// status. A negative limit lists them all.
func ResultRuns(ctx context.Context, q store.Querier, results, where string, args []any, status string, limit, offset int) ([]ResultRun, int, error) {
	args = append([]any{}, args...)
	having := ""
	if status != "" {
		args = append(args, status)
		having = ` HAVING SUM(CASE WHEN r.status = $` + strconv.Itoa(len(args)) + ` THEN 1 ELSE 0 END) > 0`
	}
	from := ` FROM ` + results + ` r JOIN runs u ON u.id = r.agent_run_id AND u.account_id = r.account_id` + where +
		` GROUP BY r.agent_run_id, u.status, u.created_at` + having
	var total int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT r.agent_run_id`+from+`) g`, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if limit < 0 {
		limit = total + 1
	}
	args = append(args, limit, offset)
	out, err := store.All(ctx, q, func(row store.Scanner) (ResultRun, error) {
		var r ResultRun
		err := row.Scan(&r.RunID, &r.RunStatus, &r.RunCreatedAt, &r.Total, &r.Passed, &r.Failed, &r.Error, &r.Skipped, &r.Flagged)
		r.RunCreatedAt = r.RunCreatedAt.UTC()
		return r, err
	}, `SELECT r.agent_run_id, u.status, u.created_at, COUNT(*),
		COALESCE(SUM(CASE WHEN r.status = 'passed' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN r.status = 'failed' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN r.status = 'error' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN r.status = 'skipped' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN r.flagged THEN 1 ELSE 0 END), 0)`+from+
		` ORDER BY u.created_at DESC, r.agent_run_id DESC LIMIT $`+strconv.Itoa(len(args)-1)+` OFFSET $`+strconv.Itoa(len(args)), args...)
	return out, total, err
}

// CompletedStep is a completed attempt of a step in a run.
type CompletedStep struct {
	RunID, StepRunID, RunStatus string
	Input                       *string
	StartedAt, CompletedAt      *time.Time
}

// CompletedSteps lists the completed, current attempts of step stepID in
// the account's agent's runs (started at or after startedAfter when set),
// newest first, with how many there are.
func CompletedSteps(ctx context.Context, q store.Querier, accountID, agentID, stepID string, startedAfter *time.Time, offset, limit int) ([]CompletedStep, int, error) {
	where := ` FROM run_steps s JOIN runs u ON u.id = s.run_id
		WHERE s.account_id = $1 AND u.account_id = $1 AND u.agent_id = $2 AND s.step_id = $3 AND s.status = 'completed' AND NOT s.superseded`
	args := []any{accountID, agentID, stepID}
	if startedAfter != nil {
		args = append(args, startedAfter.UTC())
		where += ` AND u.started_at >= $4`
	}
	var total int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*)`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	args = append(args, limit, offset)
	out, err := store.All(ctx, q, func(row store.Scanner) (CompletedStep, error) {
		var (
			c            CompletedStep
			input        sql.NullString
			started, end sql.NullTime
		)
		err := row.Scan(&c.RunID, &c.StepRunID, &c.RunStatus, &input, &started, &end)
		c.Input = store.StringOrNil(input)
		c.StartedAt, c.CompletedAt = store.TimeOrNil(started), store.TimeOrNil(end)
		return c, err
	}, `SELECT u.id, s.id, u.status, u.input, u.started_at, s.ended_at`+where+
		` ORDER BY u.created_at DESC, s.id DESC LIMIT $`+strconv.Itoa(len(args)-1)+` OFFSET $`+strconv.Itoa(len(args)), args...)
	return out, total, err
}

// StepOutput returns the output of a completed step attempt of one of the
// account's agent's runs, with the run's input and the step's id;
// store.ErrNotFound when there is none.
func StepOutput(ctx context.Context, q store.Querier, accountID, agentID, stepRunID string) (output, runInput, stepID string, err error) {
	var out, in sql.NullString
	err = q.QueryRowContext(ctx, `SELECT s.output, u.input, s.step_id FROM run_steps s JOIN runs u ON u.id = s.run_id
		WHERE s.id = $1 AND s.account_id = $2 AND u.account_id = $2 AND u.agent_id = $3 AND s.status = 'completed'`,
		stepRunID, accountID, agentID).Scan(&out, &in, &stepID)
	if err == sql.ErrNoRows {
		return "", "", "", store.ErrNotFound
	}
	return out.String, in.String, stepID, err
}

// OfAgent reports whether runID is a run of the account's agent agentID.
func OfAgent(ctx context.Context, q store.Querier, accountID, agentID, runID string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs WHERE id = $1 AND account_id = $2 AND agent_id = $3`,
		runID, accountID, agentID).Scan(&n)
	return n > 0, err
}

// StepOfRun reports whether stepRunID is a step attempt of the account's
// run runID.
func StepOfRun(ctx context.Context, q store.Querier, accountID, runID, stepRunID string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM run_steps WHERE id = $1 AND run_id = $2 AND account_id = $3`,
		stepRunID, runID, accountID).Scan(&n)
	return n > 0, err
}
