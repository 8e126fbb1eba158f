package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
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

const exportColumns = `id, account_id, source_id, format, status, date_from, date_to, metadata_filter, query_filter,
	estimated_size_bytes, progress_current, progress_total, item_count, file_size_bytes, storage_key, error,
	requested_by_user_id, requested_by_user_name, expires_at, started_at, completed_at, created_at, updated_at`

func scanExport(r rowScanner) (SourceExport, error) {
	var (
		e                                  SourceExport
		from, to, expires, started, done   sql.NullTime
		meta, query, key, errMsg, uid, una sql.NullString
		est, size                          sql.NullInt64
		total, items                       sql.NullInt64
	)
	err := r.Scan(&e.ID, &e.AccountID, &e.SourceID, &e.Format, &e.Status, &from, &to, &meta, &query, &est, &e.ProgressCurrent,
		&total, &items, &size, &key, &errMsg, &uid, &una, &expires, &started, &done, &e.CreatedAt, &e.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return SourceExport{}, ErrNotFound
	}
	if err != nil {
		return SourceExport{}, err
	}
	e.DateFrom, e.DateTo, e.ExpiresAt, e.StartedAt, e.CompletedAt = nullTime(from), nullTime(to), nullTime(expires), nullTime(started), nullTime(done)
	e.QueryFilter, e.StorageKey, e.Error, e.RequestedByUserID, e.RequestedByUserName = nullStr(query), nullStr(key), nullStr(errMsg), nullStr(uid), nullStr(una)
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

// CreateSourceExport inserts e in status pending (ID and times set here)
// and runs also inside the same transaction (to enqueue its job).
func (db *DB) CreateSourceExport(ctx context.Context, e SourceExport, also func(tx *sql.Tx, conn *sql.Conn, e SourceExport) error) (SourceExport, error) {
	e.ID, e.CreatedAt, e.Status, e.ProgressCurrent = NewID(), Now(), ExportPending, 0
	e.UpdatedAt = e.CreatedAt
	var meta any
	if e.MetadataFilter != nil {
		meta = jsonText(e.MetadataFilter)
	}
	err := db.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
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

// SourceExport returns a live export of the account's source.
func (db *DB) SourceExport(ctx context.Context, accountID, sourceID, id string) (SourceExport, error) {
	return scanExport(db.R.QueryRowContext(ctx, `SELECT `+exportColumns+` FROM source_exports
		WHERE account_id = $1 AND source_id = $2 AND id = $3 AND deleted_at IS NULL`, accountID, sourceID, id))
}

// SourceExports lists a page of a source's live exports, newest first, and their total.
func (db *DB) SourceExports(ctx context.Context, accountID, sourceID string, offset, limit int) ([]SourceExport, int, error) {
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM source_exports WHERE account_id = $1 AND source_id = $2 AND deleted_at IS NULL`,
		accountID, sourceID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := db.R.QueryContext(ctx, `SELECT `+exportColumns+` FROM source_exports
		WHERE account_id = $1 AND source_id = $2 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
		accountID, sourceID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []SourceExport
	for rows.Next() {
		e, err := scanExport(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// StartSourceExport moves a pending or running export (a job resumed after
// a crash) to running with its total, and answers false when it is
// neither (cancelled or deleted meanwhile).
func (db *DB) StartSourceExport(ctx context.Context, accountID, id string, total int) (bool, error) {
	now := Now()
	res, err := db.W.ExecContext(ctx, `UPDATE source_exports SET status = $1, progress_total = $2, progress_current = 0,
		started_at = COALESCE(started_at, $3), updated_at = $3
		WHERE account_id = $4 AND id = $5 AND status IN ($6, $1) AND deleted_at IS NULL`,
		ExportRunning, total, now, accountID, id, ExportPending)
	return exportAffected(res, err)
}

// SourceExportProgress records progress of a running export and answers
// false once it is no longer running (cancelled or deleted).
func (db *DB) SourceExportProgress(ctx context.Context, accountID, id string, current int) (bool, error) {
	res, err := db.W.ExecContext(ctx, `UPDATE source_exports SET progress_current = $1, updated_at = $2
		WHERE account_id = $3 AND id = $4 AND status = $5 AND deleted_at IS NULL`, current, Now(), accountID, id, ExportRunning)
	return exportAffected(res, err)
}

// FinishSourceExport completes a running export; false when it was not
// running any more.
func (db *DB) FinishSourceExport(ctx context.Context, accountID, id, key string, items int, size int64, expires time.Time) (bool, error) {
	now := Now()
	res, err := db.W.ExecContext(ctx, `UPDATE source_exports SET status = $1, storage_key = $2, item_count = $3, progress_current = $3,
		file_size_bytes = $4, expires_at = $5, completed_at = $6, updated_at = $6
		WHERE account_id = $7 AND id = $8 AND status = $9 AND deleted_at IS NULL`,
		ExportCompleted, key, items, size, expires, now, accountID, id, ExportRunning)
	return exportAffected(res, err)
}

// FailSourceExport marks a pending or running export failed with a reason.
func (db *DB) FailSourceExport(ctx context.Context, accountID, id, reason string) error {
	now := Now()
	_, err := db.W.ExecContext(ctx, `UPDATE source_exports SET status = $1, error = $2, completed_at = $3, updated_at = $3
		WHERE account_id = $4 AND id = $5 AND status IN ($6, $7)`, ExportFailed, reason, now, accountID, id, ExportPending, ExportRunning)
	return err
}

// CancelSourceExport cancels a pending or running export; false when it
// is in another status.
func (db *DB) CancelSourceExport(ctx context.Context, accountID, sourceID, id string) (bool, error) {
	now := Now()
	res, err := db.W.ExecContext(ctx, `UPDATE source_exports SET status = $1, completed_at = $2, updated_at = $2
		WHERE account_id = $3 AND source_id = $4 AND id = $5 AND status IN ($6, $7) AND deleted_at IS NULL`,
		ExportCancelled, now, accountID, sourceID, id, ExportPending, ExportRunning)
	return exportAffected(res, err)
}

// DeleteSourceExport soft-deletes an export and returns it (for its file).
func (db *DB) DeleteSourceExport(ctx context.Context, accountID, sourceID, id string) (SourceExport, error) {
	e, err := db.SourceExport(ctx, accountID, sourceID, id)
	if err != nil {
		return e, err
	}
	now := Now()
	// A running export is cancelled with it, so its job stops.
	_, err = db.W.ExecContext(ctx, `UPDATE source_exports SET deleted_at = $1, updated_at = $1,
		status = CASE WHEN status IN ($2, $3) THEN $4 ELSE status END
		WHERE account_id = $5 AND source_id = $6 AND id = $7`, now, ExportPending, ExportRunning, ExportCancelled, accountID, sourceID, id)
	return e, err
}

// ExportFilter selects the contents an export or estimate covers; the
// date bounds are on the content's creation time.
type ExportFilter struct {
	DateFrom, DateTo *time.Time
}

// ExportContents calls fn for each content of the account's source within
// f, oldest first, reading pages of 200 (keyset on created_at, id) so a
// source of any size streams.
func (db *DB) ExportContents(ctx context.Context, accountID, sourceID string, f ExportFilter, fn func(Content) error) error {
	var afterT time.Time
	afterID := ""
	for {
		args := []any{accountID, sourceID}
		q := `SELECT ` + contentColumns + ` FROM contents c JOIN sources s ON s.id = c.source_id
			WHERE c.account_id = $1 AND c.source_id = $2`
		if f.DateFrom != nil {
			args = append(args, f.DateFrom.UTC())
			q += ` AND c.created_at >= $` + itoa(len(args))
		}
		if f.DateTo != nil {
			args = append(args, f.DateTo.UTC())
			q += ` AND c.created_at <= $` + itoa(len(args))
		}
		if afterID != "" {
			args = append(args, afterT, afterID)
			q += ` AND (c.created_at > $` + itoa(len(args)-1) + ` OR (c.created_at = $` + itoa(len(args)-1) + ` AND c.id > $` + itoa(len(args)) + `))`
		}
		q += ` ORDER BY c.created_at, c.id LIMIT 200`
		rows, err := db.R.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		var page []Content
		for rows.Next() {
			c, err := scanContent(rows)
			if err != nil {
				rows.Close()
				return err
			}
			page = append(page, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, c := range page {
			if err := fn(c); err != nil {
				return err
			}
		}
		if len(page) < 200 {
			return nil
		}
		afterT, afterID = page[len(page)-1].CreatedAt, page[len(page)-1].ID
	}
}

func exportAffected(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
