package playground

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// The playground keeps its own persistence (issue 31's vertical slices):
// the table playground_experiments is read and written only here.

// repo is the area's SQL.
type repo struct{ db *store.DB }

// Experiment statuses.
const (
	StatusPending   = "pending"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusCanceled  = "canceled"
)

// Terminal reports whether an experiment status is final.
func Terminal(status string) bool {
	return status == StatusCompleted || status == StatusFailed || status == StatusCanceled
}

// Experiment is a model playground experiment.
type Experiment struct {
	ID, AccountID, CreatedBy string
	Status                   string
	Prompt                   string
	SystemPrompt             string
	ModelIDs                 []string
	EvaluationMode           string
	EvaluationComplexity     string
	EvaluatorModelID         string
	IncludeStepOutput        bool
	SelectedStepOutput       *string
	JSONTemplate             *string
	ProgressCurrent          *int
	ProgressTotal            *int
	ProgressMessage          *string
	// ResultData is the JSON object of results (nil until the first).
	ResultData      json.RawMessage
	ErrorMessage    *string
	CancelRequested bool
	CreatedAt       time.Time
	StartedAt       *time.Time
	CompletedAt     *time.Time
	UpdatedAt       time.Time
}

// create stores a new experiment in status pending.
func (r repo) create(ctx context.Context, e Experiment) (Experiment, error) {
	e.ID, e.CreatedAt, e.UpdatedAt, e.Status = store.NewID(), store.Now(), store.Now(), StatusPending
	models, _ := json.Marshal(append([]string{}, e.ModelIDs...)) // [] for none, never null
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO playground_experiments (id, account_id, created_by, status, prompt, system_prompt,
		model_ids, evaluation_mode, evaluation_complexity, evaluator_model_id, include_step_output, selected_step_output,
		json_template, progress_current, progress_total, progress_message, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)`,
		e.ID, e.AccountID, store.NullIfEmpty(e.CreatedBy), e.Status, e.Prompt, e.SystemPrompt, string(models), e.EvaluationMode,
		e.EvaluationComplexity, store.NullIfEmpty(e.EvaluatorModelID), e.IncludeStepOutput, store.NullIfNil(e.SelectedStepOutput),
		store.NullIfNil(e.JSONTemplate), e.ProgressCurrent, e.ProgressTotal, store.NullIfNil(e.ProgressMessage), e.CreatedAt)
	if err != nil && store.IsForeignKeyViolation(err) {
		return Experiment{}, store.ErrNotFound
	}
	return e, err
}

const experimentColumns = `id, account_id, COALESCE(created_by, ''), status, prompt, system_prompt, model_ids, evaluation_mode,
	evaluation_complexity, COALESCE(evaluator_model_id, ''), include_step_output, selected_step_output, json_template,
	progress_current, progress_total, progress_message, result_data, error_message, cancel_requested,
	created_at, started_at, completed_at, updated_at`

func scanExperiment(row store.Scanner) (Experiment, error) {
	var (
		e                            Experiment
		models                       string
		stepOut, tpl, msg, res, errM sql.NullString
		cur, total                   sql.NullInt64
		started, completed           sql.NullTime
	)
	err := row.Scan(&e.ID, &e.AccountID, &e.CreatedBy, &e.Status, &e.Prompt, &e.SystemPrompt, &models, &e.EvaluationMode,
		&e.EvaluationComplexity, &e.EvaluatorModelID, &e.IncludeStepOutput, &stepOut, &tpl, &cur, &total, &msg, &res, &errM,
		&e.CancelRequested, &e.CreatedAt, &started, &completed, &e.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Experiment{}, store.ErrNotFound
	}
	if err != nil {
		return Experiment{}, err
	}
	_ = json.Unmarshal([]byte(models), &e.ModelIDs)
	e.SelectedStepOutput, e.JSONTemplate, e.ProgressMessage, e.ErrorMessage = store.StringOrNil(stepOut), store.StringOrNil(tpl), store.StringOrNil(msg), store.StringOrNil(errM)
	if res.Valid {
		e.ResultData = json.RawMessage(res.String)
	}
	e.ProgressCurrent, e.ProgressTotal = store.IntOrNil(cur), store.IntOrNil(total)
	e.StartedAt, e.CompletedAt = store.TimeOrNil(started), store.TimeOrNil(completed)
	e.CreatedAt, e.UpdatedAt = e.CreatedAt.UTC(), e.UpdatedAt.UTC()
	return e, nil
}

// experiment returns one of an account's experiments that is not deleted.
func (r repo) experiment(ctx context.Context, accountID, id string) (Experiment, error) {
	return scanExperiment(r.db.R.QueryRowContext(ctx, `SELECT `+experimentColumns+` FROM playground_experiments
		WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, id, accountID))
}

// forWorker reads an experiment by id alone, deleted or not;
// only the job worker, handed the id by the queue, may call it.
func (r repo) forWorker(ctx context.Context, id string) (Experiment, error) {
	return scanExperiment(r.db.W.QueryRowContext(ctx, `SELECT `+experimentColumns+` FROM playground_experiments WHERE id = $1`, id))
}

// list returns a page of an account's experiments created in
// [from, to), newest first, and how many there are in all.
func (r repo) list(ctx context.Context, accountID string, from, to time.Time, offset, limit int) ([]Experiment, int, error) {
	where := ` FROM playground_experiments WHERE account_id = $1 AND deleted_at IS NULL AND created_at >= $2 AND created_at < $3`
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*)`+where, accountID, from.UTC(), to.UTC()).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := store.All(ctx, r.db.R, scanExperiment, `SELECT `+experimentColumns+where+` ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
		accountID, from.UTC(), to.UTC(), limit, offset)
	return out, total, err
}

// start moves a pending experiment (or a running one whose job
// is retried after a crash) to running. ok is false when it has been
// cancelled or has finished in the meantime.
func (r repo) start(ctx context.Context, id string, total int, message string) (ok bool, err error) {
	now := store.Now()
	res, err := r.db.W.ExecContext(ctx, `UPDATE playground_experiments SET status = $1, started_at = COALESCE(started_at, $2),
		progress_total = $3, progress_current = COALESCE(progress_current, 0), progress_message = $4, updated_at = $2
		WHERE id = $5 AND status IN ($6, $1) AND cancel_requested = FALSE`,
		StatusRunning, now, total, message, id, StatusPending)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// progress records progress and the results so far. The
// results are written even after a cancel, so what finished is kept; the
// progress message is left alone then, since the cancel wrote its own.
func (r repo) progress(ctx context.Context, id string, current int, message string, results json.RawMessage) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE playground_experiments SET progress_current = $1,
		progress_message = CASE WHEN status = $2 THEN $3 ELSE progress_message END, result_data = $4, updated_at = $5 WHERE id = $6`,
		current, StatusRunning, message, store.NullJSON(results), store.Now(), id)
	return err
}

// finish ends a running experiment with status (completed or
// failed) and its final results. An experiment cancelled meanwhile keeps
// its status; its results are still stored. It reports the final status.
func (r repo) finish(ctx context.Context, id, status, message string, errMsg *string, results json.RawMessage) (string, error) {
	now := store.Now()
	var final string
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE playground_experiments SET status = $1, error_message = $2, progress_message = $3,
			completed_at = $4, updated_at = $4 WHERE id = $5 AND status IN ($6, $7)`,
			status, store.NullIfNil(errMsg), message, now, id, StatusPending, StatusRunning)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE playground_experiments SET result_data = $1 WHERE id = $2`, store.NullJSON(results), id); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT status FROM playground_experiments WHERE id = $1`, id).Scan(&final)
	})
	return final, err
}

// cancel asks a pending or running experiment to stop and marks
// it canceled at once; the worker stops its model calls when it sees the
// request. Cancelling a canceled experiment is a no-op; a completed or
// failed one answers store.ErrConflict.
func (r repo) cancel(ctx context.Context, accountID, id string) (Experiment, error) {
	var out Experiment
	err := r.db.Tx(ctx, func(tx *sql.Tx) error {
		now := store.Now()
		res, err := tx.ExecContext(ctx, `UPDATE playground_experiments SET status = $1, cancel_requested = TRUE,
			progress_message = $2, completed_at = $3, updated_at = $3
			WHERE id = $4 AND account_id = $5 AND deleted_at IS NULL AND status IN ($6, $7)`,
			StatusCanceled, "Canceled", now, id, accountID, StatusPending, StatusRunning)
		if err != nil {
			return err
		}
		e, err := scanExperiment(tx.QueryRowContext(ctx, `SELECT `+experimentColumns+` FROM playground_experiments
			WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, id, accountID))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 && e.Status != StatusCanceled {
			return store.ErrConflict
		}
		out = e
		return nil
	})
	return out, err
}

// cancelRequested reports whether a cancel (or delete) was asked.
func (r repo) cancelRequested(ctx context.Context, id string) (bool, error) {
	var c bool
	err := r.db.W.QueryRowContext(ctx, `SELECT cancel_requested FROM playground_experiments WHERE id = $1`, id).Scan(&c)
	if errors.Is(err, sql.ErrNoRows) {
		return false, store.ErrNotFound
	}
	return c, err
}

// remove soft-deletes an experiment: it leaves the API's lists
// and reads, while the row and the usage billed to it stay for audit. A
// pending or running experiment is cancelled as it goes.
func (r repo) remove(ctx context.Context, accountID, id string) error {
	now := store.Now()
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE playground_experiments SET deleted_at = $1, updated_at = $1
			WHERE id = $2 AND account_id = $3 AND deleted_at IS NULL`, now, id, accountID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `UPDATE playground_experiments SET status = $1, cancel_requested = TRUE,
			progress_message = $2, completed_at = $3 WHERE id = $4 AND status IN ($5, $6)`,
			StatusCanceled, "Canceled", now, id, StatusPending, StatusRunning)
		return err
	})
}
