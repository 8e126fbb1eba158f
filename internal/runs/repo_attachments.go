package runs

import (
	"context"
	"database/sql"
	"errors"

	"github.com/agentry/agentry/internal/store"
)

// AddRunAttachment records a file stored in the blob store under StorageKey.
func (q *Repo) AddRunAttachment(ctx context.Context, a RunAttachment) error {
	_, err := q.db.W.ExecContext(ctx, `INSERT INTO run_attachments (storage_key, run_id, account_id, step_id, name, content_type, size, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, a.StorageKey, a.RunID, a.AccountID, store.NullIfEmpty(a.StepID), a.Name, a.ContentType, a.Size, store.Now())
	return err
}

// RunAttachmentByKey finds a file of an account's run.
func (q *Repo) RunAttachmentByKey(ctx context.Context, accountID, runID, key string) (RunAttachment, error) {
	var a RunAttachment
	err := q.db.R.QueryRowContext(ctx, `SELECT storage_key, run_id, account_id, COALESCE(step_id, ''), name, content_type, size, created_at
		FROM run_attachments WHERE storage_key = $1 AND run_id = $2 AND account_id = $3`, key, runID, accountID).
		Scan(&a.StorageKey, &a.RunID, &a.AccountID, &a.StepID, &a.Name, &a.ContentType, &a.Size, &a.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return RunAttachment{}, store.ErrNotFound
	}
	return a, err
}
