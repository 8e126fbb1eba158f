package evals

// The evaluations area keeps its own persistence (issue 31's vertical
// slices): evaluation criteria (created also by agent imports, whose
// transaction the agents area's repo_extras.go writes them in), their results
// and, on SQLite, the record of criteria deletions under way. Every query
// is scoped by account id.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/agents/agentrow"
	"github.com/agentry/agentry/internal/evals/evalrow"
	"github.com/agentry/agentry/internal/runs/runrow"
	"github.com/agentry/agentry/internal/store"
)

// repo is the area's SQL. afterJudgmentsRead and afterResultsWritten,
// when set (by tests), run on SQLite between reading journaled judgments
// and writing them, and between writing them and clearing the runs' marks.
type repo struct {
	db                                      *store.DB
	afterJudgmentsRead, afterResultsWritten func()
}

// itoa numbers a query's parameters.
func itoa(n int) string { return strconv.Itoa(n) }

// createCriterion stores a criterion of one of the account's
// agents; store.ErrNotFound when the agent is not the account's.
func (rp repo) createCriterion(ctx context.Context, c EvaluationCriterion) (EvaluationCriterion, error) {
	now := store.Now()
	c.ID, c.CreatedAt, c.UpdatedAt = store.NewID(), now, now
	err := rp.db.Tx(ctx, func(tx *sql.Tx) error {
		// The agent must be a live one of the account, asked in this
		// transaction (the agents area's question, agentrow.Live).
		live, err := agentrow.Live(ctx, tx, c.AccountID, c.AgentID)
		if err != nil {
			return err
		}
		if !live {
			return store.ErrNotFound
		}
		if err := evalrow.InsertCriterion(ctx, tx, c, now); err != nil {
			return err
		}
		// The bump locks the agent's row (PostgreSQL; SQLite has one
		// writer), so creates counting after it cannot pass the limit
		// together.
		if err := bumpForCriterion(ctx, tx, c.AccountID, c.ID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM evaluation_criteria WHERE agent_id = $1 AND account_id = $2`,
			c.AgentID, c.AccountID).Scan(&n); err != nil {
			return err
		}
		if n > evalrow.MaxCriteriaPerAgent {
			return ErrTooManyCriteria
		}
		return nil
	})
	return c, err
}

// ErrTooManyCriteria means the agent has evalrow.MaxCriteriaPerAgent
// criteria already.
var ErrTooManyCriteria = errors.New("too many evaluation criteria")

// criterion returns one criterion of the account (of a live agent).
func (rp repo) criterion(ctx context.Context, accountID, id string) (EvaluationCriterion, error) {
	c, err := evalrow.ScanCriterion(rp.db.R.QueryRowContext(ctx, `SELECT `+evalrow.CriterionColumns+` FROM evaluation_criteria c
		WHERE c.id = $1 AND c.account_id = $2`, id, accountID))
	if err == sql.ErrNoRows {
		return c, store.ErrNotFound
	}
	if err != nil {
		return c, err
	}
	// A deleted agent's criteria are gone with it.
	live, err := agentrow.Live(ctx, rp.db.R, accountID, c.AgentID)
	if err == nil && !live {
		err = store.ErrNotFound
	}
	return c, err
}

// updateCriterion writes the editable fields of c back.
func (rp repo) updateCriterion(ctx context.Context, c EvaluationCriterion) (EvaluationCriterion, error) {
	c.UpdatedAt = store.Now()
	err := rp.db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE evaluation_criteria SET step_id = $3, description = $4, enabled = $5,
			expectation_config = $6, evaluation_prompt = $7, pass_threshold = $8, evaluation_tier = $9, updated_at = $10
			WHERE id = $1 AND account_id = $2`, c.ID, c.AccountID, store.NullIfEmpty(c.StepID), store.NullIfNil(c.Description), c.Enabled,
			store.NullJSON(c.ExpectationConfig), store.NullIfNil(c.EvaluationPrompt), c.PassThreshold, store.NullIfNil(c.EvaluationTier), c.UpdatedAt)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrNotFound
		}
		return bumpForCriterion(ctx, tx, c.AccountID, c.ID)
	})
	return c, err
}

// deleteCriterion removes a criterion and its results.
func (rp repo) deleteCriterion(ctx context.Context, accountID, id string) error {
	if rp.db.Dialect == store.SQLite {
		return rp.deleteCriterionSQLite(ctx, accountID, id)
	}
	return rp.db.Tx(ctx, func(tx *sql.Tx) error {
		// The criterion first, then its results: materializing takes them
		// in that order too (materializeJudgments), so the two wait for
		// each other instead of deadlocking.
		if _, err := tx.ExecContext(ctx, `SELECT id FROM evaluation_criteria WHERE id = $1 AND account_id = $2 FOR UPDATE`, id, accountID); err != nil {
			return err
		}
		if err := bumpForCriterion(ctx, tx, accountID, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM evaluation_results WHERE criteria_id = $1 AND account_id = $2`, id, accountID); err != nil {
			return err
		}
		return deleteCriterionRow(ctx, tx, accountID, id)
	})
}

// deleteCriterionRow deletes the account's criterion id within tx;
// store.ErrNotFound when there is none.
func deleteCriterionRow(ctx context.Context, tx *sql.Tx, accountID, id string) error {
	return store.Affected(ctx, tx, `DELETE FROM evaluation_criteria WHERE id = $1 AND account_id = $2`, id, accountID)
}

// bumpForCriterion bumps, in tx, the oversight revision of the agent a
// criterion judges (agentrow.BumpOversight), so overseers reload what they
// keep of it; nothing when the criterion is not the account's.
func bumpForCriterion(ctx context.Context, tx *sql.Tx, accountID, criterionID string) error {
	var agentID string
	err := tx.QueryRowContext(ctx, `SELECT agent_id FROM evaluation_criteria WHERE id = $1 AND account_id = $2`, criterionID, accountID).Scan(&agentID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return agentrow.BumpOversight(ctx, tx, accountID, agentID)
}

// criteriaPage lists a page of an agent's criteria, oldest first,
// and how many there are. limit < 0 lists them all.
func (rp repo) criteriaPage(ctx context.Context, accountID, agentID string, offset, limit int) ([]EvaluationCriterion, int, error) {
	var total int
	if err := rp.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM evaluation_criteria WHERE account_id = $1 AND agent_id = $2`,
		accountID, agentID).Scan(&total); err != nil {
		return nil, 0, err
	}
	if limit < 0 {
		limit = total + 1
	}
	rows, err := rp.db.R.QueryContext(ctx, `SELECT `+evalrow.CriterionColumns+` FROM evaluation_criteria
		WHERE account_id = $1 AND agent_id = $2 ORDER BY id LIMIT $3 OFFSET $4`, accountID, agentID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []EvaluationCriterion
	for rows.Next() {
		c, err := evalrow.ScanCriterion(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}

// enabledCriteria lists the enabled criteria of an agent that target a
// step, for the engine to judge its steps by.
func (rp repo) enabledCriteria(ctx context.Context, accountID, agentID string) ([]EvaluationCriterion, error) {
	rows, err := rp.db.R.QueryContext(ctx, `SELECT `+evalrow.CriterionColumns+` FROM evaluation_criteria
		WHERE account_id = $1 AND agent_id = $2 AND enabled AND step_id IS NOT NULL ORDER BY id`, accountID, agentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []EvaluationCriterion
	for rows.Next() {
		c, err := evalrow.ScanCriterion(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// criteriaResultCounts counts the results of each criterion by status.
func (rp repo) criteriaResultCounts(ctx context.Context, accountID string, ids []string) (map[string]map[string]int, error) {
	out := map[string]map[string]int{}
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{accountID}
	ph := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		ph[i] = "$" + itoa(i+2)
		out[id] = map[string]int{}
	}
	rows, err := rp.db.R.QueryContext(ctx, `SELECT criteria_id, status, COUNT(*) FROM evaluation_results
		WHERE account_id = $1 AND criteria_id IN (`+strings.Join(ph, ", ")+`) GROUP BY criteria_id, status`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id, status string
			n          int
		)
		if err := rows.Scan(&id, &status, &n); err != nil {
			return nil, err
		}
		out[id][status] = n
	}
	return out, rows.Err()
}

// EvaluationResult is one judgment of a criterion on a run's step.
type EvaluationResult struct {
	ID, AccountID, AgentID, CriteriaID string
	AgentRunID                         string
	AgentStepRunID                     string
	StepID                             string
	EvaluationMode                     string
	Status                             string
	Score                              *float64
	Flagged, RetryTriggered            bool
	RetryCount                         int
	Details                            json.RawMessage
	EvaluatedAt, CreatedAt             time.Time
	// CriteriaDescription is read with lists that join the criterion.
	CriteriaDescription *string
}

// insertResult stores a result; its id and times are set here
// when empty. store.ErrNotFound: the criterion is not the account's.
func (rp repo) insertResult(ctx context.Context, r EvaluationResult) (EvaluationResult, error) {
	// The criterion is looked up holding the results' writer. On SQLite no
	// foreign key reaches the results file, and a criterion's deletion
	// takes that writer, once the criterion is gone, to delete its results
	// (deleteEvaluationCriterionSQLite); on PostgreSQL the foreign key
	// also stops a result of a criterion deleted meanwhile.
	var out EvaluationResult
	err := rp.db.ResultsTx(ctx, func(tx *sql.Tx) error {
		var criteria store.Querier = tx
		if rp.db.Dialect == store.SQLite {
			criteria = rp.db.R // the results file's writer sees only that file
		}
		if err := criterionExists(ctx, criteria, r.AccountID, r.CriteriaID); err != nil {
			return err
		}
		var err error
		out, err = insertEvaluationResult(ctx, tx, r)
		return err
	})
	return out, err
}

// criterionExists is nil when the account has the criterion, store.ErrNotFound
// when not.
func criterionExists(ctx context.Context, q store.Querier, accountID, id string) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM evaluation_criteria WHERE id = $1 AND account_id = $2`, id, accountID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	return err
}

// deleteCriterionSQLite is deleteCriterion on SQLite,
// whose results sit in a file of their own (DB.Results), out of reach of
// the criterion's foreign key and of its transaction. The deletion is
// recorded in that file first, the criterion deleted, then its results
// and the record: once the criterion is gone nothing writes results of it
// (writers look it up holding the file's writer), and a crash before the
// results are gone leaves the record, which finishCriteriaDeletions
// finishes.
func (rp repo) deleteCriterionSQLite(ctx context.Context, accountID, id string) error {
	if err := criterionExists(ctx, rp.db.R, accountID, id); err != nil {
		return err
	}
	if _, err := rp.db.Results.ExecContext(ctx, `INSERT INTO criteria_deletions (criteria_id, account_id) VALUES ($1, $2)
		ON CONFLICT (criteria_id) DO NOTHING`, id, accountID); err != nil {
		return err
	}
	err := rp.db.Tx(ctx, func(tx *sql.Tx) error {
		if err := bumpForCriterion(ctx, tx, accountID, id); err != nil {
			return err
		}
		return deleteCriterionRow(ctx, tx, accountID, id)
	})
	if err != nil {
		// The criterion stays (or another deletion took it and finishes
		// the rest); a record of a criterion that exists changes nothing.
		return err
	}
	if err := rp.deleteCriterionResults(ctx, accountID, id); err != nil {
		// The criterion is gone; its record has the results deleted
		// within a second (finishCriteriaDeletions).
		slog.Warn("deleting a deleted criterion's results", "criteria_id", id, "err", err)
	}
	return nil
}

// deleteCriterionResults deletes a deleted criterion's results and the
// record of its deletion (SQLite).
func (rp repo) deleteCriterionResults(ctx context.Context, accountID, id string) error {
	return rp.db.ResultsTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM evaluation_results WHERE criteria_id = $1 AND account_id = $2`, id, accountID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM criteria_deletions WHERE criteria_id = $1`, id)
		return err
	})
}

// finishCriteriaDeletions deletes the results of criteria whose deletion
// was recorded and whose results a crash kept (SQLite; see
// deleteCriterionSQLite). The record holds only deletions under
// way and the odd one that failed (its criterion still there), so this is
// one read of a table all but empty.
func (rp repo) finishCriteriaDeletions(ctx context.Context) error {
	if rp.db.Dialect != store.SQLite {
		return nil
	}
	gone, err := scanCriteriaDeletions(rp.db.R.QueryContext(ctx, `SELECT d.criteria_id, d.account_id FROM criteria_deletions d
		WHERE NOT EXISTS (SELECT 1 FROM evaluation_criteria c WHERE c.id = d.criteria_id)`))
	if err != nil {
		return err
	}
	for _, d := range gone {
		if err := rp.deleteCriterionResults(ctx, d.accountID, d.id); err != nil {
			return err
		}
	}
	return nil
}

// criteriaDeletion is a recorded deletion of a criterion (SQLite).
type criteriaDeletion struct{ id, accountID string }

func scanCriteriaDeletions(rows *sql.Rows, err error) ([]criteriaDeletion, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []criteriaDeletion
	for rows.Next() {
		var d criteriaDeletion
		if err := rows.Scan(&d.id, &d.accountID); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// insertEvaluationResults records the materialized results rs (ids and
// times as given), skipping any already recorded, and returns how many it
// wrote: one multi-row INSERT per resultRowsPerInsert results instead of
// one per result.
func insertEvaluationResults(ctx context.Context, x store.Querier, rs []EvaluationResult) (int64, error) {
	const resultRowsPerInsert = 64
	var written int64
	for start := 0; start < len(rs); start += resultRowsPerInsert {
		chunk := rs[start:min(start+resultRowsPerInsert, len(rs))]
		var q strings.Builder
		q.WriteString(`INSERT INTO evaluation_results (id, account_id, agent_id, criteria_id, agent_run_id,
			agent_step_run_id, step_id, evaluation_mode, status, score, flagged, retry_triggered, retry_count, details, evaluated_at, created_at) VALUES `)
		args := make([]any, 0, 16*len(chunk))
		for i, r := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteByte('(')
			for k := 1; k <= 16; k++ {
				if k > 1 {
					q.WriteString(", ")
				}
				q.WriteString("$" + itoa(len(args)+k))
			}
			q.WriteByte(')')
			args = append(args, r.ID, r.AccountID, r.AgentID, r.CriteriaID, r.AgentRunID, store.NullIfEmpty(r.AgentStepRunID), store.NullIfEmpty(r.StepID),
				r.EvaluationMode, r.Status, r.Score, r.Flagged, r.RetryTriggered, r.RetryCount, store.NullJSON(r.Details), r.EvaluatedAt.UTC(), r.CreatedAt.UTC())
		}
		q.WriteString(" ON CONFLICT (id) DO NOTHING")
		res, err := x.ExecContext(ctx, q.String(), args...)
		if err != nil {
			return written, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return written, err
		}
		written += n
	}
	return written, nil
}

func insertEvaluationResult(ctx context.Context, x interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, r EvaluationResult) (EvaluationResult, error) {
	if r.ID == "" {
		r.ID = store.NewID()
	}
	r.CreatedAt = store.Now()
	if r.EvaluatedAt.IsZero() {
		r.EvaluatedAt = r.CreatedAt
	}
	_, err := x.ExecContext(ctx, `INSERT INTO evaluation_results (id, account_id, agent_id, criteria_id, agent_run_id,
		agent_step_run_id, step_id, evaluation_mode, status, score, flagged, retry_triggered, retry_count, details, evaluated_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		r.ID, r.AccountID, r.AgentID, r.CriteriaID, r.AgentRunID, store.NullIfEmpty(r.AgentStepRunID), store.NullIfEmpty(r.StepID), r.EvaluationMode,
		r.Status, r.Score, r.Flagged, r.RetryTriggered, r.RetryCount, store.NullJSON(r.Details), r.EvaluatedAt.UTC(), r.CreatedAt)
	if err != nil && store.IsForeignKeyViolation(err) {
		return r, store.ErrNotFound
	}
	return r, err
}

// ResultFilter selects evaluation results; AccountID is required and one
// of CriteriaID, AgentID or RunID scopes the list.
type ResultFilter struct {
	AccountID, CriteriaID, AgentID, RunID string
	Status, StepID                        string
	FlaggedOnly                           bool
	From, To                              *time.Time
	Offset, Limit                         int // Limit < 0: all
}

func (f ResultFilter) where() (string, []any) {
	conds := []string{"r.account_id = $1"}
	args := []any{f.AccountID}
	add := func(cond string, v any) {
		args = append(args, v)
		conds = append(conds, strings.ReplaceAll(cond, "?", "$"+itoa(len(args))))
	}
	if f.CriteriaID != "" {
		add("r.criteria_id = ?", f.CriteriaID)
	}
	if f.AgentID != "" {
		add("r.agent_id = ?", f.AgentID)
	}
	if f.RunID != "" {
		add("r.agent_run_id = ?", f.RunID)
	}
	if f.Status != "" {
		add("r.status = ?", f.Status)
	}
	if f.StepID != "" {
		add("r.step_id = ?", f.StepID)
	}
	if f.FlaggedOnly {
		conds = append(conds, "r.flagged")
	}
	if f.From != nil {
		add("r.evaluated_at >= ?", f.From.UTC())
	}
	if f.To != nil {
		add("r.evaluated_at <= ?", f.To.UTC())
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// results lists results newest first, with their criterion's
// description, and how many match.
func (rp repo) results(ctx context.Context, f ResultFilter) ([]EvaluationResult, int, error) {
	where, args := f.where()
	var total int
	if err := rp.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM evaluation_results r`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	limit := f.Limit
	if limit < 0 {
		limit = total + 1
	}
	args = append(args, limit, f.Offset)
	rows, err := rp.db.R.QueryContext(ctx, `SELECT r.id, r.account_id, r.agent_id, r.criteria_id, r.agent_run_id,
		COALESCE(r.agent_step_run_id, ''), COALESCE(r.step_id, ''), r.evaluation_mode, r.status, r.score, r.flagged,
		r.retry_triggered, r.retry_count, r.details, r.evaluated_at, r.created_at, c.description
		FROM evaluation_results r JOIN evaluation_criteria c ON c.id = r.criteria_id`+where+
		` ORDER BY r.created_at DESC, r.id DESC LIMIT $`+itoa(len(args)-1)+` OFFSET $`+itoa(len(args)), args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []EvaluationResult
	for rows.Next() {
		var (
			r       EvaluationResult
			score   sql.NullFloat64
			details sql.NullString
			desc    sql.NullString
		)
		if err := rows.Scan(&r.ID, &r.AccountID, &r.AgentID, &r.CriteriaID, &r.AgentRunID, &r.AgentStepRunID, &r.StepID,
			&r.EvaluationMode, &r.Status, &score, &r.Flagged, &r.RetryTriggered, &r.RetryCount, &details, &r.EvaluatedAt,
			&r.CreatedAt, &desc); err != nil {
			return nil, 0, err
		}
		if score.Valid {
			v := score.Float64
			r.Score = &v
		}
		r.Details, r.CriteriaDescription = store.RawOrNil(details), store.StringOrNil(desc)
		r.EvaluatedAt, r.CreatedAt = r.EvaluatedAt.UTC(), r.CreatedAt.UTC()
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// ResultCounts are counts of results by outcome.
type ResultCounts struct {
	Total, Passed, Failed, Error, Skipped, Pending, Flagged int
	AverageScore                                            *float64
}

// summary counts the results of a criterion.
func (rp repo) summary(ctx context.Context, accountID, criteriaID string) (ResultCounts, error) {
	var (
		c   ResultCounts
		avg sql.NullFloat64
	)
	err := rp.db.R.QueryRowContext(ctx, `SELECT COUNT(*),
		COALESCE(SUM(CASE WHEN status = 'passed' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status = 'error' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN flagged THEN 1 ELSE 0 END), 0),
		AVG(score)
		FROM evaluation_results WHERE account_id = $1 AND criteria_id = $2`, accountID, criteriaID).
		Scan(&c.Total, &c.Passed, &c.Failed, &c.Error, &c.Flagged, &avg)
	if avg.Valid {
		v := avg.Float64
		c.AverageScore = &v
	}
	return c, err
}

// ModeCounts are the counts of one evaluation mode.
type ModeCounts struct {
	Mode                           string
	Total, Passed, Failed, Flagged int
}

// nonManualCounts counts the results recorded under the automatic modes
// (eval_and_retry, sample_and_flag) since from (and until to when set),
// account-wide or for one agent.
func (rp repo) nonManualCounts(ctx context.Context, accountID, agentID string, from time.Time, to *time.Time) ([]ModeCounts, error) {
	q := `SELECT evaluation_mode, COUNT(*),
		COALESCE(SUM(CASE WHEN status = 'passed' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN flagged THEN 1 ELSE 0 END), 0)
		FROM evaluation_results WHERE account_id = $1 AND evaluation_mode IN ('eval_and_retry', 'sample_and_flag')
		AND evaluated_at >= $2`
	args := []any{accountID, from.UTC()}
	if to != nil {
		args = append(args, to.UTC())
		q += ` AND evaluated_at <= $` + itoa(len(args))
	}
	if agentID != "" {
		args = append(args, agentID)
		q += ` AND agent_id = $` + itoa(len(args))
	}
	rows, err := rp.db.R.QueryContext(ctx, q+` GROUP BY evaluation_mode ORDER BY evaluation_mode`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ModeCounts
	for rows.Next() {
		var m ModeCounts
		if err := rows.Scan(&m.Mode, &m.Total, &m.Passed, &m.Failed, &m.Flagged); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// RunEvaluations is the per-run rollup of an agent's results.
type RunEvaluations struct {
	RunID, RunStatus string
	RunCreatedAt     time.Time
	ResultCounts
}

// resultRuns groups an agent's results by run, newest run first. A
// status filter keeps the runs with at least one result of that status.
func (rp repo) resultRuns(ctx context.Context, f ResultFilter) ([]RunEvaluations, int, error) {
	status := f.Status
	f.Status = ""
	where, args := f.where()
	// Grouped and paged by run, so joined to the runs in one statement,
	// which the runs area keeps (runrow).
	rs, total, err := runrow.ResultRuns(ctx, rp.db.R, evalrow.Results, where, args, status, f.Limit, f.Offset)
	if err != nil {
		return nil, 0, err
	}
	var out []RunEvaluations
	for _, r := range rs {
		out = append(out, RunEvaluations{RunID: r.RunID, RunStatus: r.RunStatus, RunCreatedAt: r.RunCreatedAt,
			ResultCounts: ResultCounts{Total: r.Total, Passed: r.Passed, Failed: r.Failed, Error: r.Error, Skipped: r.Skipped, Flagged: r.Flagged}})
	}
	return out, total, nil
}

// CompatibleRun is a completed attempt of a criterion's step in a run.
type CompatibleRun = runrow.CompletedStep

// compatibleRuns lists the completed, current attempts of step stepID in
// the agent's runs, newest first.
func (rp repo) compatibleRuns(ctx context.Context, accountID, agentID, stepID string, startedAfter *time.Time, offset, limit int) ([]CompatibleRun, int, error) {
	return runrow.CompletedSteps(ctx, rp.db.R, accountID, agentID, stepID, startedAfter, offset, limit)
}

// stepRunOutput returns the output of a completed step attempt of one of
// the agent's runs, with the run's input.
func (rp repo) stepRunOutput(ctx context.Context, accountID, agentID, stepRunID string) (output, runInput, stepID string, err error) {
	return runrow.StepOutput(ctx, rp.db.R, accountID, agentID, stepRunID)
}

// runOfAgent reports whether runID is a run of the account's agent agentID.
func (rp repo) runOfAgent(ctx context.Context, accountID, agentID, runID string) (bool, error) {
	return runrow.OfAgent(ctx, rp.db.R, accountID, agentID, runID)
}

// stepRunOfRun reports whether stepRunID is a step attempt of run runID.
func (rp repo) stepRunOfRun(ctx context.Context, accountID, runID, stepRunID string) (bool, error) {
	return runrow.StepOfRun(ctx, rp.db.R, accountID, runID, stepRunID)
}
