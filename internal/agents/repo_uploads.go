package agents

import (
	"context"
	"database/sql"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Agent file uploads keep their own persistence beside the service that
// stores, extracts and expires them (issue 31's vertical slices): the
// table agent_input_uploads is read and written only here. Runs reach an
// upload through the Service (the server's Attachments wiring).

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

// uploadResult is the outcome of text extraction.
type uploadResult struct {
	Status    string // ready or failed
	Error     string
	TextKey   string
	TextChars int64
	Extractor string
	Note      string
}

// uploadRepo is the uploads' SQL.
type uploadRepo struct{ db *store.DB }

func (s *Service) uploads() uploadRepo { return uploadRepo{s.db} }

// create records a stored file, in status processing. ID, BlobKey and
// ExpiresAt are the caller's: the blob is written before the row.
func (q uploadRepo) create(ctx context.Context, u Upload) (Upload, error) {
	u.CreatedAt, u.Status = store.Now(), UploadProcessing
	_, err := q.db.W.ExecContext(ctx, `INSERT INTO agent_input_uploads (id, account_id, agent_id, filename, content_type, file_size,
		sha256, status, blob_key, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		u.ID, u.AccountID, u.AgentID, u.Filename, u.ContentType, u.FileSize, u.SHA256, u.Status, u.BlobKey,
		store.NullIfEmpty(u.CreatedBy), u.CreatedAt, u.ExpiresAt.UTC())
	if store.IsForeignKeyViolation(err) {
		return Upload{}, store.ErrNotFound
	}
	return u, err
}

const uploadColumns = `id, account_id, agent_id, filename, content_type, file_size, sha256, status, COALESCE(error, ''), blob_key,
	COALESCE(text_key, ''), COALESCE(text_chars, 0), COALESCE(extractor, ''), COALESCE(note, ''), COALESCE(created_by, ''),
	created_at, processed_at, expires_at`

func scanUpload(row store.Scanner) (Upload, error) {
	var (
		u         Upload
		processed sql.NullTime
	)
	err := row.Scan(&u.ID, &u.AccountID, &u.AgentID, &u.Filename, &u.ContentType, &u.FileSize, &u.SHA256, &u.Status, &u.Error,
		&u.BlobKey, &u.TextKey, &u.TextChars, &u.Extractor, &u.Note, &u.CreatedBy, &u.CreatedAt, &processed, &u.ExpiresAt)
	if err != nil {
		return Upload{}, err
	}
	u.ProcessedAt = store.TimeOrNil(processed)
	u.CreatedAt, u.ExpiresAt = u.CreatedAt.UTC(), u.ExpiresAt.UTC()
	return u, nil
}

// get returns an upload of the account that has not expired (else
// store.ErrNotFound). agentID, when not "", must be the agent it was
// uploaded for.
func (q uploadRepo) get(ctx context.Context, accountID, agentID, id string) (Upload, error) {
	return store.One(ctx, q.db.R, scanUpload, `SELECT `+uploadColumns+` FROM agent_input_uploads
		WHERE id = $1 AND account_id = $2 AND ($3 = '' OR agent_id = $3) AND expires_at > $4`, id, accountID, agentID, store.Now())
}

// finish records the extraction outcome of an upload of the account.
func (q uploadRepo) finish(ctx context.Context, accountID, id string, r uploadResult) error {
	return store.Affected(ctx, q.db.W, `UPDATE agent_input_uploads SET status = $1, error = $2, text_key = $3, text_chars = $4,
		extractor = $5, note = $6, processed_at = $7 WHERE id = $8 AND account_id = $9`,
		r.Status, store.NullIfEmpty(r.Error), store.NullIfEmpty(r.TextKey), r.TextChars, store.NullIfEmpty(r.Extractor),
		store.NullIfEmpty(r.Note), store.Now(), id, accountID)
}

// expired lists uploads of every account that expired before now, oldest
// first. Only the cleanup job calls it: it is deliberately not scoped to
// an account, and no handler reaches it.
func (q uploadRepo) expired(ctx context.Context, now time.Time, limit int) ([]Upload, error) {
	return store.All(ctx, q.db.R, scanUpload, `SELECT `+uploadColumns+` FROM agent_input_uploads
		WHERE expires_at <= $1 ORDER BY expires_at, id LIMIT $2`, now.UTC(), limit)
}

// remove deletes an upload's row (its blobs are the caller's to delete first).
func (q uploadRepo) remove(ctx context.Context, accountID, id string) error {
	_, err := q.db.W.ExecContext(ctx, `DELETE FROM agent_input_uploads WHERE id = $1 AND account_id = $2`, id, accountID)
	return err
}
