package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Upload statuses, as the API reports them.
const (
	UploadProcessing = "processing"
	UploadReady      = "ready"
	UploadFailed     = "failed"
)

// Upload is a file uploaded as run input (POST /agents/{id}/upload-input).
type Upload struct {
	ID          string
	AccountID   string
	AgentID     string
	Filename    string
	ContentType string
	FileSize    int64
	SHA256      string
	Status      string
	Error       string
	BlobKey     string // the file as uploaded
	TextKey     string // its extracted text; "" when there is none
	TextChars   int64
	Extractor   string // what produced the text, or "none"
	Note        string // why there is no text, when the file is passed on as is
	CreatedBy   string
	CreatedAt   time.Time
	ProcessedAt *time.Time
	ExpiresAt   time.Time
}

// CreateUpload records a stored file, in status processing. ID, BlobKey
// and ExpiresAt are the caller's: the blob is written before the row.
func (db *DB) CreateUpload(ctx context.Context, u Upload) (Upload, error) {
	u.CreatedAt, u.Status = Now(), UploadProcessing
	_, err := db.W.ExecContext(ctx, `INSERT INTO agent_input_uploads (id, account_id, agent_id, filename, content_type, file_size,
		sha256, status, blob_key, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		u.ID, u.AccountID, u.AgentID, u.Filename, u.ContentType, u.FileSize, u.SHA256, u.Status, u.BlobKey,
		nullable(u.CreatedBy), u.CreatedAt, u.ExpiresAt.UTC())
	if err != nil && isForeignKeyViolation(err) {
		return Upload{}, ErrNotFound
	}
	return u, err
}

const uploadColumns = `id, account_id, agent_id, filename, content_type, file_size, sha256, status, COALESCE(error, ''), blob_key,
	COALESCE(text_key, ''), COALESCE(text_chars, 0), COALESCE(extractor, ''), COALESCE(note, ''), COALESCE(created_by, ''),
	created_at, processed_at, expires_at`

func scanUpload(row interface{ Scan(...any) error }) (Upload, error) {
	var (
		u         Upload
		processed sql.NullTime
	)
	err := row.Scan(&u.ID, &u.AccountID, &u.AgentID, &u.Filename, &u.ContentType, &u.FileSize, &u.SHA256, &u.Status, &u.Error,
		&u.BlobKey, &u.TextKey, &u.TextChars, &u.Extractor, &u.Note, &u.CreatedBy, &u.CreatedAt, &processed, &u.ExpiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Upload{}, ErrNotFound
	}
	if err != nil {
		return Upload{}, err
	}
	if processed.Valid {
		t := processed.Time.UTC()
		u.ProcessedAt = &t
	}
	u.CreatedAt, u.ExpiresAt = u.CreatedAt.UTC(), u.ExpiresAt.UTC()
	return u, nil
}

// Upload returns an upload of the account that has not expired. agentID,
// when not "", must be the agent it was uploaded for.
func (db *DB) Upload(ctx context.Context, accountID, agentID, id string) (Upload, error) {
	return scanUpload(db.R.QueryRowContext(ctx, `SELECT `+uploadColumns+` FROM agent_input_uploads
		WHERE id = $1 AND account_id = $2 AND ($3 = '' OR agent_id = $3) AND expires_at > $4`, id, accountID, agentID, Now()))
}

// UploadResult is the outcome of text extraction.
type UploadResult struct {
	Status    string // ready or failed
	Error     string
	TextKey   string
	TextChars int64
	Extractor string
	Note      string
}

// FinishUpload records the extraction outcome of an upload of the account.
func (db *DB) FinishUpload(ctx context.Context, accountID, id string, r UploadResult) error {
	res, err := db.W.ExecContext(ctx, `UPDATE agent_input_uploads SET status = $1, error = $2, text_key = $3, text_chars = $4,
		extractor = $5, note = $6, processed_at = $7 WHERE id = $8 AND account_id = $9`,
		r.Status, nullable(r.Error), nullable(r.TextKey), r.TextChars, nullable(r.Extractor), nullable(r.Note), Now(), id, accountID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// ExpiredUploads lists uploads of every account that expired before now,
// oldest first. Only the cleanup job calls it: it is deliberately not
// scoped to an account, and no handler reaches it.
func (db *DB) ExpiredUploads(ctx context.Context, now time.Time, limit int) ([]Upload, error) {
	rows, err := db.R.QueryContext(ctx, `SELECT `+uploadColumns+` FROM agent_input_uploads
		WHERE expires_at <= $1 ORDER BY expires_at, id LIMIT $2`, now.UTC(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Upload
	for rows.Next() {
		u, err := scanUpload(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// DeleteUpload removes an upload's row (its blobs are the caller's to delete first).
func (db *DB) DeleteUpload(ctx context.Context, accountID, id string) error {
	_, err := db.W.ExecContext(ctx, `DELETE FROM agent_input_uploads WHERE id = $1 AND account_id = $2`, id, accountID)
	return err
}
