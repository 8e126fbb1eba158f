package exports

// The exports area keeps its own persistence (issue 31's vertical slices):
// the table source_exports is read and written only here. The contents an
// export writes are the knowledge area's, read through the store.

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Export statuses.
const (
	ExportPending   = "pending"
	ExportRunning   = "running"
	ExportCompleted = "completed"
	ExportFailed    = "failed"
	ExportCancelled = "cancelled"
)

// SourceExport is one export job of a source's contents.
type SourceExport struct {
	ID, AccountID, SourceID, Format, Status string
	DateFrom, DateTo                        *time.Time
	MetadataFilter                          map[string]any
	QueryFilter                             *string
	EstimatedSizeBytes                      *int64
	ProgressCurrent                         int
	ProgressTotal, ItemCount                *int
	FileSizeBytes                           *int64
	StorageKey, Error                       *string
	RequestedByUserID, RequestedByUserName  *string
	ExpiresAt, StartedAt, CompletedAt       *time.Time
	CreatedAt, UpdatedAt                    time.Time
}

// repo is the area's SQL.
type repo struct{ db *store.DB }

const exportColumns = `id, account_id, source_id, format, status, date_from, date_to, metadata_filter, query_filter,
	estimated_size_bytes, progress_current, progress_total, item_count, file_size_bytes, storage_key, error,
	requested_by_user_id, requested_by_user_name, expires_at, started_at, completed_at, created_at, updated_at`

func scanExport(r store.Scanner) (SourceExport, error) {
	var (
		e                                  SourceExport
		from, to, expires, started, done   sql.NullTime
		meta, query, key, errMsg, uid, una sql.NullString
		est, size                          sql.NullInt64
		total, items                       sql.NullInt64
	)
	err := r.Scan(&e.ID, &e.AccountID, &e.SourceID, &e.Format, &e.Status, &from, &to, &meta, &query, &est, &e.ProgressCurrent,
		&total, &items, &size, &key, &errMsg, &uid, &una, &expires, &started, &done, &e.CreatedAt, &e.UpdatedAt)
	if err != nil {
		return SourceExport{}, err
	}
	e.DateFrom, e.DateTo, e.ExpiresAt, e.StartedAt, e.CompletedAt = store.TimeOrNil(from), store.TimeOrNil(to), store.TimeOrNil(expires), store.TimeOrNil(started), store.TimeOrNil(done)
	e.QueryFilter, e.StorageKey, e.Error, e.RequestedByUserID, e.RequestedByUserName = store.StringOrNil(query), store.StringOrNil(key), store.StringOrNil(errMsg), store.StringOrNil(uid), store.StringOrNil(una)
	if meta.Valid {
		_ = json.Unmarshal([]byte(meta.String), &e.MetadataFilter)
	}
	if est.Valid {
		e.EstimatedSizeBytes = &est.Int64
	}
	if size.Valid {
		e.FileSizeBytes = &size.Int64
	}
	if total.Valid {
		n := int(total.Int64)
		e.ProgressTotal = &n
	}
	if items.Valid {
		n := int(items.Int64)
		e.ItemCount = &n
	}
	e.CreatedAt, e.UpdatedAt = e.CreatedAt.UTC(), e.UpdatedAt.UTC()
	return e, nil
}

// changed reads whether a statement changed a row.
func changed(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// create inserts e in status pending (ID and times set here) and runs also
// inside the same transaction (to enqueue its job).
func (r repo) create(ctx context.Context, e SourceExport, also func(tx *sql.Tx, conn *sql.Conn, e SourceExport) error) (SourceExport, error) {
	e.ID, e.CreatedAt, e.Status, e.ProgressCurrent = store.NewID(), store.Now(), ExportPending, 0
	e.UpdatedAt = e.CreatedAt
	var meta any
	if e.MetadataFilter != nil {
		b, _ := json.Marshal(e.MetadataFilter)
		meta = string(b)
	}
	err := r.db.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO source_exports (id, account_id, source_id, format, status, date_from, date_to,
			metadata_filter, query_filter, estimated_size_bytes, progress_current, requested_by_user_id, requested_by_user_name,
			created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,0,$11,$12,$13,$13)`,
			e.ID, e.AccountID, e.SourceID, e.Format, e.Status, e.DateFrom, e.DateTo, meta, e.QueryFilter, e.EstimatedSizeBytes,
			e.RequestedByUserID, e.RequestedByUserName, e.CreatedAt); err != nil {
			return err
		}
		return also(tx, conn, e)
	})
	return e, err
}

// get returns a live export of the account's source.
func (r repo) get(ctx context.Context, accountID, sourceID, id string) (SourceExport, error) {
	return store.One(ctx, r.db.R, scanExport, `SELECT `+exportColumns+` FROM source_exports
		WHERE account_id = $1 AND source_id = $2 AND id = $3 AND deleted_at IS NULL`, accountID, sourceID, id)
}

// list lists a page of a source's live exports, newest first, and their total.
func (r repo) list(ctx context.Context, accountID, sourceID string, offset, limit int) ([]SourceExport, int, error) {
	var total int
	if err := r.db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM source_exports WHERE account_id = $1 AND source_id = $2 AND deleted_at IS NULL`,
		accountID, sourceID).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := store.All(ctx, r.db.R, scanExport, `SELECT `+exportColumns+` FROM source_exports
		WHERE account_id = $1 AND source_id = $2 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
		accountID, sourceID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// start moves a pending or running export (a job resumed after a crash) to
// running with its total, and answers false when it is neither (cancelled
// or deleted meanwhile).
func (r repo) start(ctx context.Context, accountID, id string, total int) (bool, error) {
	now := store.Now()
	return changed(r.db.W.ExecContext(ctx, `UPDATE source_exports SET status = $1, progress_total = $2, progress_current = 0,
		started_at = COALESCE(started_at, $3), updated_at = $3
		WHERE account_id = $4 AND id = $5 AND status IN ($6, $1) AND deleted_at IS NULL`,
		ExportRunning, total, now, accountID, id, ExportPending))
}

// progress records progress of a running export and answers false once it
// is no longer running (cancelled or deleted).
func (r repo) progress(ctx context.Context, accountID, id string, current int) (bool, error) {
	return changed(r.db.W.ExecContext(ctx, `UPDATE source_exports SET progress_current = $1, updated_at = $2
		WHERE account_id = $3 AND id = $4 AND status = $5 AND deleted_at IS NULL`, current, store.Now(), accountID, id, ExportRunning))
}

// finish completes a running export; false when it was not running any
// more.
func (r repo) finish(ctx context.Context, accountID, id, key string, items int, size int64, expires time.Time) (bool, error) {
	now := store.Now()
	return changed(r.db.W.ExecContext(ctx, `UPDATE source_exports SET status = $1, storage_key = $2, item_count = $3, progress_current = $3,
		file_size_bytes = $4, expires_at = $5, completed_at = $6, updated_at = $6
		WHERE account_id = $7 AND id = $8 AND status = $9 AND deleted_at IS NULL`,
		ExportCompleted, key, items, size, expires, now, accountID, id, ExportRunning))
}

// fail marks a pending or running export failed with a reason.
func (r repo) fail(ctx context.Context, accountID, id, reason string) error {
	now := store.Now()
	_, err := r.db.W.ExecContext(ctx, `UPDATE source_exports SET status = $1, error = $2, completed_at = $3, updated_at = $3
		WHERE account_id = $4 AND id = $5 AND status IN ($6, $7)`, ExportFailed, reason, now, accountID, id, ExportPending, ExportRunning)
	return err
}

// cancel cancels a pending or running export; false when it is in another
// status.
func (r repo) cancel(ctx context.Context, accountID, sourceID, id string) (bool, error) {
	now := store.Now()
	return changed(r.db.W.ExecContext(ctx, `UPDATE source_exports SET status = $1, completed_at = $2, updated_at = $2
		WHERE account_id = $3 AND source_id = $4 AND id = $5 AND status IN ($6, $7) AND deleted_at IS NULL`,
		ExportCancelled, now, accountID, sourceID, id, ExportPending, ExportRunning))
}

// remove soft-deletes an export and returns it (for its file).
func (r repo) remove(ctx context.Context, accountID, sourceID, id string) (SourceExport, error) {
	e, err := r.get(ctx, accountID, sourceID, id)
	if err != nil {
		return e, err
	}
	now := store.Now()
	// A running export is cancelled with it, so its job stops.
	_, err = r.db.W.ExecContext(ctx, `UPDATE source_exports SET deleted_at = $1, updated_at = $1,
		status = CASE WHEN status IN ($2, $3) THEN $4 ELSE status END
		WHERE account_id = $5 AND source_id = $6 AND id = $7`, now, ExportPending, ExportRunning, ExportCancelled, accountID, sourceID, id)
	return e, err
}
