package knowledge

// The contents' SQL: contents (a source's items with their current
// version) and content_attachments are the area's own. The account search
// (internal/search) still names contents in its own query across every
// area's tables.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/agentry/agentry/internal/store"
)

// Content statuses, in the order the indexing pipeline passes them.
const (
	ContentQueued     = "queued"
	ContentExtracting = "extracting"
	ContentChunking   = "chunking"
	ContentEmbedding  = "embedding"
	ContentIndexing   = "indexing"
	ContentIndexed    = "indexed"
	ContentFailed     = "failed"
)

// Content is one content item of a source with its current version.
type Content struct {
	ID, AccountID, SourceID, ItemKey string
	VersionID                        string
	Version                          int
	Status                           string
	Error                            *string
	Title, Description               *string
	ContentType, ContentURL          string
	Filename, BlobKey                string
	TextKey                          *string
	SHA256                           string
	SizeBytes                        int64
	TextHash                         *string
	Metadata                         map[string]any
	WordCount, TextLength            *int
	ChunkCount                       *int
	PublishedAt                      *time.Time
	PulledAt                         time.Time
	IndexedAt                        *time.Time
	FiredVersionID                   *string
	CreatedAt, UpdatedAt             time.Time
	// Of its source.
	SourceName, SourceType string
}

// contentColumns read a content row from contents c joined with its
// sources s.
const contentColumns = `c.id, c.account_id, c.source_id, c.item_key, c.version_id, c.version, c.status, c.error, c.title,
	c.description, c.content_type, c.content_url, c.filename, c.blob_key, c.text_key, c.sha256, c.size_bytes, c.text_hash,
	c.metadata, c.word_count, c.text_length, c.chunk_count, c.published_at, c.pulled_at, c.indexed_at, c.fired_version_id,
	c.created_at, c.updated_at, s.name, s.source_type`

func scanContent(r store.Scanner) (Content, error) {
	var (
		c                                  Content
		errMsg, title, desc, textKey, hash sql.NullString
		fired                              sql.NullString
		meta                               string
		words, length, chunks              sql.NullInt64
		published, indexed                 sql.NullTime
	)
	err := r.Scan(&c.ID, &c.AccountID, &c.SourceID, &c.ItemKey, &c.VersionID, &c.Version, &c.Status, &errMsg, &title,
		&desc, &c.ContentType, &c.ContentURL, &c.Filename, &c.BlobKey, &textKey, &c.SHA256, &c.SizeBytes, &hash,
		&meta, &words, &length, &chunks, &published, &c.PulledAt, &indexed, &fired,
		&c.CreatedAt, &c.UpdatedAt, &c.SourceName, &c.SourceType)
	if err != nil {
		return Content{}, err
	}
	c.Error, c.Title, c.Description, c.TextKey, c.TextHash, c.FiredVersionID = store.StringOrNil(errMsg), store.StringOrNil(title), store.StringOrNil(desc), store.StringOrNil(textKey), store.StringOrNil(hash), store.StringOrNil(fired)
	c.WordCount, c.TextLength, c.ChunkCount = store.IntOrNil(words), store.IntOrNil(length), store.IntOrNil(chunks)
	c.PublishedAt, c.IndexedAt = store.TimeOrNil(published), store.TimeOrNil(indexed)
	c.Metadata = map[string]any{}
	_ = json.Unmarshal([]byte(meta), &c.Metadata)
	c.PulledAt, c.CreatedAt, c.UpdatedAt = c.PulledAt.UTC(), c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	return c, nil
}

// CreateContent inserts a new content item (ID, version and times set here
// unless given) in status queued.
func (r repo) CreateContent(ctx context.Context, tx *sql.Tx, c Content) (Content, error) {
	now := store.Now()
	if c.ID == "" {
		c.ID = store.NewID()
	}
	if c.ItemKey == "" {
		c.ItemKey = c.ID
	}
	c.VersionID, c.Version, c.Status = store.NewID(), 1, ContentQueued
	c.CreatedAt, c.UpdatedAt = now, now
	if c.PulledAt.IsZero() {
		c.PulledAt = now
	}
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO contents (id, account_id, source_id, item_key, version_id, version, status,
		title, description, content_type, content_url, filename, blob_key, sha256, size_bytes, text_hash, metadata,
		published_at, pulled_at, created_at, updated_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$20)`,
		c.ID, c.AccountID, c.SourceID, c.ItemKey, c.VersionID, c.Version, c.Status, c.Title, c.Description,
		c.ContentType, c.ContentURL, c.Filename, c.BlobKey, c.SHA256, c.SizeBytes, c.TextHash, jsonText(c.Metadata),
		c.PublishedAt, c.PulledAt, now)
	return c, err
}

// NewContentVersion replaces a content item's body with a new version in
// status queued; its old chunks stay searchable until the new version is
// indexed. It returns the item with the new version.
func (r repo) NewContentVersion(ctx context.Context, tx *sql.Tx, c Content) (Content, error) {
	now := store.Now()
	c.VersionID, c.Status, c.UpdatedAt = store.NewID(), ContentQueued, now
	if c.PulledAt.IsZero() {
		c.PulledAt = now
	}
	err := tx.QueryRowContext(ctx, `UPDATE contents SET version_id = $1, version = version + 1, status = $2, error = NULL,
		title = $3, content_type = $4, content_url = $5, filename = $6, blob_key = $7, text_key = NULL, sha256 = $8,
		size_bytes = $9, text_hash = $10, metadata = $11, published_at = $12, pulled_at = $13, updated_at = $14
		WHERE account_id = $15 AND id = $16 RETURNING version`,
		c.VersionID, c.Status, c.Title, c.ContentType, c.ContentURL, c.Filename, c.BlobKey, c.SHA256, c.SizeBytes,
		c.TextHash, jsonText(c.Metadata), c.PublishedAt, c.PulledAt, now, c.AccountID, c.ID).Scan(&c.Version)
	if errors.Is(err, sql.ErrNoRows) {
		return Content{}, store.ErrNotFound
	}
	return c, err
}

// Content returns a content item of the account (of a live source), or ErrNotFound.
func (r repo) Content(ctx context.Context, accountID, id string) (Content, error) {
	return store.One(ctx, r.db.R, scanContent, `SELECT `+contentColumns+` FROM contents c JOIN sources s ON s.id = c.source_id
		WHERE c.account_id = $1 AND c.id = $2 AND s.deleted_at IS NULL`, accountID, id)
}

// ContentByItem returns the content of a source with an item key.
func (r repo) ContentByItem(ctx context.Context, accountID, sourceID, itemKey string) (Content, error) {
	return store.One(ctx, r.db.R, scanContent, `SELECT `+contentColumns+` FROM contents c JOIN sources s ON s.id = c.source_id
		WHERE c.account_id = $1 AND c.source_id = $2 AND c.item_key = $3`, accountID, sourceID, itemKey)
}

// ContentBySHA returns a source's content whose file has the digest.
func (r repo) ContentBySHA(ctx context.Context, accountID, sourceID, sha string) (Content, error) {
	return store.One(ctx, r.db.R, scanContent, `SELECT `+contentColumns+` FROM contents c JOIN sources s ON s.id = c.source_id
		WHERE c.account_id = $1 AND c.source_id = $2 AND c.sha256 = $3 ORDER BY c.created_at LIMIT 1`, accountID, sourceID, sha)
}

// ContentsOfSources lists the id and metadata of every content of the
// account's sources, up to limit (for metadata filters).
func (r repo) ContentsOfSources(ctx context.Context, accountID string, sourceIDs []string, limit int) ([]Content, error) {
	if len(sourceIDs) == 0 {
		return nil, nil
	}
	in, args := inArgs(accountID, sourceIDs)
	args = append(args, limit)
	return store.All(ctx, r.db.R, scanContent, `SELECT `+contentColumns+` FROM contents c JOIN sources s ON s.id = c.source_id
		WHERE c.account_id = $1 AND c.source_id IN (`+in+`) ORDER BY c.created_at LIMIT $`+strconv.Itoa(len(args)), args...)
}

// SetContentStatus moves the given version of a content item to status
// (with an error message for failed). A stale version changes nothing and
// answers false.
func (r repo) SetContentStatus(ctx context.Context, id, versionID, status string, errMsg *string) (bool, error) {
	res, err := r.db.W.ExecContext(ctx, `UPDATE contents SET status = $1, error = $2, updated_at = $3 WHERE id = $4 AND version_id = $5`,
		status, errMsg, store.Now(), id, versionID)
	return changed(res, err)
}

// SetContentText records the extracted text of a version.
func (r repo) SetContentText(ctx context.Context, id, versionID, textKey string, words, length int, title *string) error {
	_, err := r.db.W.ExecContext(ctx, `UPDATE contents SET text_key = $1, word_count = $2, text_length = $3,
		title = COALESCE(title, $4), updated_at = $5 WHERE id = $6 AND version_id = $7`, textKey, words, length, title, store.Now(), id, versionID)
	return err
}

// SetContentMetadata sets one metadata key of a content item.
func (r repo) SetContentMetadata(ctx context.Context, accountID, id, key string, value any) error {
	return r.db.Tx(ctx, func(tx *sql.Tx) error {
		var meta string
		if err := tx.QueryRowContext(ctx, `SELECT metadata FROM contents WHERE account_id = $1 AND id = $2`, accountID, id).Scan(&meta); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return store.ErrNotFound
			}
			return err
		}
		m := map[string]any{}
		_ = json.Unmarshal([]byte(meta), &m)
		m[key] = value
		_, err := tx.ExecContext(ctx, `UPDATE contents SET metadata = $1, updated_at = $2 WHERE account_id = $3 AND id = $4`, jsonText(m), store.Now(), accountID, id)
		return err
	})
}

// DeleteContent removes a content item of the account (of a live source
// unless anySource) with its chunks and attachments, and answers it and its
// chunks' seqs (for the search index and its files).
func (r repo) DeleteContent(ctx context.Context, accountID, id string, anySource bool) (Content, []int64, error) {
	q := `SELECT ` + contentColumns + ` FROM contents c JOIN sources s ON s.id = c.source_id WHERE c.account_id = $1 AND c.id = $2`
	if !anySource {
		q += ` AND s.deleted_at IS NULL`
	}
	var seqs []int64
	c, err := store.One(ctx, r.db.R, scanContent, q, accountID, id)
	if err != nil {
		return c, nil, err
	}
	err = r.db.Tx(ctx, func(tx *sql.Tx) error {
		if seqs, err = deleteContentChunks(ctx, tx, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM contents WHERE account_id = $1 AND id = $2`, accountID, id)
		return err
	})
	return c, seqs, err
}

// ContentsOlderThan lists up to limit contents of a source pulled before t.
func (r repo) ContentsOlderThan(ctx context.Context, accountID, sourceID string, t time.Time, limit int) ([]string, error) {
	return store.All(ctx, r.db.R, store.ScanString, `SELECT id FROM contents WHERE account_id = $1 AND source_id = $2 AND pulled_at < $3 LIMIT $4`,
		accountID, sourceID, t, limit)
}

// SourceContentIDs lists up to limit content ids of a source (any state of the source).
func (r repo) SourceContentIDs(ctx context.Context, accountID, sourceID string, limit int) ([]string, error) {
	return r.ContentsOlderThan(ctx, accountID, sourceID, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), limit)
}

// ClaimContentFire marks versionID of a content as announced to new_content
// agents and reports whether this caller did it (so it fires once).
func (r repo) ClaimContentFire(ctx context.Context, id, versionID string) (bool, error) {
	return changed(r.db.W.ExecContext(ctx, `UPDATE contents SET fired_version_id = $1 WHERE id = $2 AND version_id = $1
		AND (fired_version_id IS NULL OR fired_version_id <> $1)`, versionID, id))
}

// ContentAttachment is a content attachment an agent wrote.
type ContentAttachment struct {
	ContentID, Key, ContentType, Body string
	Indexed                           bool
	CreatedAt, UpdatedAt              time.Time
}

// PutContentAttachment creates or replaces an attachment of a content item.
func (r repo) PutContentAttachment(ctx context.Context, accountID string, a ContentAttachment) error {
	now := store.Now()
	_, err := r.db.W.ExecContext(ctx, `INSERT INTO content_attachments (account_id, content_id, key, content_type, body, indexed, created_at, updated_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$7) ON CONFLICT (content_id, key) DO UPDATE SET content_type = excluded.content_type,
		body = excluded.body, indexed = excluded.indexed, updated_at = excluded.updated_at`,
		accountID, a.ContentID, a.Key, a.ContentType, a.Body, a.Indexed, now)
	return err
}

// ContentAttachment returns an attachment of a content item of the account.
func (r repo) ContentAttachment(ctx context.Context, accountID, contentID, key string) (ContentAttachment, error) {
	a := ContentAttachment{ContentID: contentID, Key: key}
	err := r.db.R.QueryRowContext(ctx, `SELECT content_type, body, indexed, created_at, updated_at FROM content_attachments
		WHERE account_id = $1 AND content_id = $2 AND key = $3`, accountID, contentID, key).Scan(&a.ContentType, &a.Body, &a.Indexed, &a.CreatedAt, &a.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return a, store.ErrNotFound
	}
	return a, err
}

// ExportFilter selects the contents an export or estimate covers; the
// date bounds are on the content's creation time.
type ExportFilter struct {
	DateFrom, DateTo *time.Time
}

// ExportContents calls fn for each content of the account's source within
// f, oldest first, reading pages of 200 (keyset on created_at, id) so a
// source of any size streams.
func (r repo) ExportContents(ctx context.Context, accountID, sourceID string, f ExportFilter, fn func(Content) error) error {
	var afterT time.Time
	afterID := ""
	for {
		args := []any{accountID, sourceID}
		q := `SELECT ` + contentColumns + ` FROM contents c JOIN sources s ON s.id = c.source_id
			WHERE c.account_id = $1 AND c.source_id = $2`
		if f.DateFrom != nil {
			args = append(args, f.DateFrom.UTC())
			q += ` AND c.created_at >= $` + strconv.Itoa(len(args))
		}
		if f.DateTo != nil {
			args = append(args, f.DateTo.UTC())
			q += ` AND c.created_at <= $` + strconv.Itoa(len(args))
		}
		if afterID != "" {
			args = append(args, afterT, afterID)
			q += ` AND (c.created_at > $` + strconv.Itoa(len(args)-1) + ` OR (c.created_at = $` + strconv.Itoa(len(args)-1) + ` AND c.id > $` + strconv.Itoa(len(args)) + `))`
		}
		q += ` ORDER BY c.created_at, c.id LIMIT 200`
		page, err := store.All(ctx, r.db.R, scanContent, q, args...)
		if err != nil {
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

// ExportContents is the repository's ExportContents on db, for the
// area's exports (internal/knowledge/exports), which stream a source's
// contents into their files.
func ExportContents(ctx context.Context, db *store.DB, accountID, sourceID string, f ExportFilter, fn func(Content) error) error {
	return repo{db}.ExportContents(ctx, accountID, sourceID, f, fn)
}
