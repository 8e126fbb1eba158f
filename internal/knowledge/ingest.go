package knowledge

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/extract"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// UploadTypes are the media types a file upload accepts (the contract's
// list); anything else is ErrUnsupportedType. Types without a text
// extractor (images, audio, video, office formats other than DOCX) are
// stored, and their indexing fails with the reason.
var UploadTypes = []string{
	"application/epub+zip", "application/json", "application/pdf", "application/vnd.ms-excel", "application/vnd.ms-outlook",
	"application/vnd.ms-powerpoint", "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/xml", "application/zip",
	"audio/flac", "audio/mp4", "audio/mpeg", "audio/ogg", "audio/wav", "image/bmp", "image/gif", "image/jpeg", "image/png",
	"image/svg+xml", "image/tiff", "image/webp", "text/csv", "text/html", "text/markdown", "text/plain", "text/x-markdown",
	"text/xml", "video/mp4", "video/quicktime", "video/x-msvideo",
}

// InlineTypes are the media types inline text accepts.
var InlineTypes = []string{"application/json", "application/xml", "text/csv", "text/html", "text/markdown", "text/plain", "text/x-markdown", "text/xml"}

// MaxInlineBytes bounds inline text (UTF-8 bytes).
const MaxInlineBytes = 8192

// UnsupportedTypeError is a 415 listing what is supported.
type UnsupportedTypeError struct {
	Type      string
	Supported []string
}

// As reads the refusal as the fault vocabulary's Unsupported.
func (e *UnsupportedTypeError) As(target any) bool {
	t, ok := target.(**fault.Unsupported)
	if ok {
		*t = &fault.Unsupported{Err: e, Msg: fmt.Sprintf("Unsupported media type %s. Supported types: %s", e.Type, strings.Join(e.Supported, ", "))}
	}
	return ok
}

func (e *UnsupportedTypeError) Error() string {
	return fmt.Sprintf("unsupported media type %q; supported: %s", e.Type, strings.Join(e.Supported, ", "))
}
func (e *UnsupportedTypeError) Unwrap() error { return ErrUnsupportedType }

// Upload is a file (or inline text) to add to a source or to replace a content.
type Upload struct {
	Filename, DeclaredType string
	Body                   io.Reader
	Title                  *string
	Metadata               map[string]any
	// Rest, when set, is called once the file is stored, to read what the
	// request sends after it (multipart fields after the file part); what
	// it answers is merged into Title and Metadata.
	Rest func() (title *string, meta map[string]any, err error)
	// Set by polling: the item's identity in its source (feed GUID, page
	// URL), its address, publication time and the hash of its text.
	ItemKey, ContentURL string
	PublishedAt         *time.Time
	TextHash            *string
}

// UploadResult is what an upload created.
type UploadResult struct {
	ContentID, VersionID string
	Filename, Status     string // uploaded, duplicate
	EmbedderWarning      *string
}

// mergeTitle puts title into metadata.title unless present.
func mergeTitle(meta map[string]any, title *string) map[string]any {
	if meta == nil {
		meta = map[string]any{}
	}
	if title != nil && *title != "" {
		if _, ok := meta["title"]; !ok {
			meta["title"] = *title
		}
	}
	return meta
}

func titleOf(meta map[string]any, filename string) *string {
	if t, ok := meta["title"].(string); ok && t != "" {
		return &t
	}
	if filename != "" {
		t := strings.TrimSuffix(filename, path.Ext(filename))
		return &t
	}
	return nil
}

func contentKey(accountID, sourceID, contentID, versionID, name string) string {
	return path.Join("knowledge", accountID, sourceID, contentID, versionID, name)
}

// UploadFile streams a file into a content store source and queues its
// indexing. A file already in the source (same bytes) answers duplicate.
func (s *Service) UploadFile(ctx context.Context, accountID, sourceID string, up Upload) (UploadResult, error) {
	src, err := s.repo().Source(ctx, accountID, sourceID)
	if err != nil {
		return UploadResult{}, err
	}
	if src.SourceType != TypeCustomIndex {
		return UploadResult{}, fmt.Errorf("%w: files are uploaded to custom_index sources; %s sources are fed by polling", ErrSourceKind, src.SourceType)
	}
	res, err := s.store(ctx, src, nil, up, UploadTypes, s.cfg.MaxUploadBytes)
	return res, fileTooLarge(err, s.cfg.MaxUploadBytes)
}

// UploadText adds inline text to a content store source.
func (s *Service) UploadText(ctx context.Context, accountID, sourceID, text, contentType string, title *string, meta map[string]any) (UploadResult, error) {
	src, err := s.repo().Source(ctx, accountID, sourceID)
	if err != nil {
		return UploadResult{}, err
	}
	if src.SourceType != TypeCustomIndex {
		return UploadResult{}, fmt.Errorf("%w: text is uploaded to custom_index sources; %s sources are fed by polling", ErrSourceKind, src.SourceType)
	}
	up, err := inlineUpload(text, contentType, title, meta)
	if err != nil {
		return UploadResult{}, err
	}
	return s.store(ctx, src, nil, up, InlineTypes, MaxInlineBytes)
}

func inlineUpload(text, contentType string, title *string, meta map[string]any) (Upload, error) {
	if contentType == "" {
		contentType = "text/plain"
	}
	mt := strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	if !slices.Contains(InlineTypes, mt) {
		return Upload{}, &UnsupportedTypeError{Type: contentType, Supported: InlineTypes}
	}
	if len(text) > MaxInlineBytes {
		return Upload{}, invalid("text", fmt.Sprintf("inline text is at most %d bytes (UTF-8); upload larger files with /upload", MaxInlineBytes))
	}
	if strings.TrimSpace(text) == "" {
		return Upload{}, invalid("text", "text is empty")
	}
	ext := map[string]string{"text/plain": ".txt", "text/markdown": ".md", "text/x-markdown": ".md", "text/csv": ".csv",
		"text/html": ".html", "application/json": ".json", "application/xml": ".xml", "text/xml": ".xml"}[mt]
	name := "inline" + ext
	if title != nil && *title != "" {
		name = cleanName(*title) + ext
	}
	return Upload{Filename: name, DeclaredType: mt, Body: strings.NewReader(text), Title: title, Metadata: meta}, nil
}

// ReplaceWithText makes inline text the new version of a content item.
func (s *Service) ReplaceWithText(ctx context.Context, accountID, contentID, text, contentType string, title *string, meta map[string]any) (UploadResult, error) {
	c, src, err := s.replaceable(ctx, accountID, contentID)
	if err != nil {
		return UploadResult{}, err
	}
	up, err := inlineUpload(text, contentType, title, meta)
	if err != nil {
		return UploadResult{}, err
	}
	return s.store(ctx, src, &c, up, InlineTypes, MaxInlineBytes)
}

// ReplaceWithFile makes an uploaded file the new version of a content item.
func (s *Service) ReplaceWithFile(ctx context.Context, accountID, contentID string, up Upload) (UploadResult, error) {
	c, src, err := s.replaceable(ctx, accountID, contentID)
	if err != nil {
		return UploadResult{}, err
	}
	res, err := s.store(ctx, src, &c, up, UploadTypes, s.cfg.MaxUploadBytes)
	return res, fileTooLarge(err, s.cfg.MaxUploadBytes)
}

func (s *Service) replaceable(ctx context.Context, accountID, contentID string) (Content, Source, error) {
	c, err := s.repo().Content(ctx, accountID, contentID)
	if err != nil {
		return c, Source{}, err
	}
	src, err := s.repo().Source(ctx, accountID, c.SourceID)
	return c, src, err
}

// store streams up into the blob store and records it as a new content
// (prev nil) or a new version of prev, with its indexing job, in one
// transaction: a crash leaves the content queued with its job, or nothing.
// fileTooLarge names the upload limit in an uploaded file's ErrTooLarge
// (an inline text's names its bytes); other errors pass unchanged.
func fileTooLarge(err error, limit int64) error {
	if errors.Is(err, ErrTooLarge) {
		return fault.UploadTooLarge(limit, err)
	}
	return err
}

func (s *Service) store(ctx context.Context, src Source, prev *Content, up Upload, allowed []string, limit int64) (UploadResult, error) {
	br := bufio.NewReaderSize(up.Body, 4096)
	head, _ := br.Peek(512)
	mt := extract.DetectType(up.Filename, up.DeclaredType, head)
	if !slices.Contains(allowed, mt) {
		return UploadResult{}, &UnsupportedTypeError{Type: mt, Supported: allowed}
	}
	contentID := store.NewID()
	if prev != nil {
		contentID = prev.ID
	}
	staging := store.NewID()
	key := contentKey(src.AccountID, src.ID, contentID, staging, "original")
	body := &blob.HashLimit{R: br, Limit: limit, H: sha256.New(), TooLarge: ErrTooLarge}
	n, err := s.blobs.PutStream(ctx, key, mt, body)
	if err != nil {
		if errors.Is(err, ErrTooLarge) || body.Over {
			return UploadResult{}, fmt.Errorf("%w: at most %d bytes", ErrTooLarge, limit)
		}
		return UploadResult{}, err
	}
	if up.Rest != nil {
		title, meta, err := up.Rest()
		if err != nil {
			s.deleteBlob(key)
			return UploadResult{}, err
		}
		if title != nil {
			up.Title = title
		}
		if meta != nil {
			if up.Metadata == nil {
				up.Metadata = map[string]any{}
			}
			for k, v := range meta {
				up.Metadata[k] = v
			}
		}
	}
	sum := hex.EncodeToString(body.H.Sum(nil))
	filename := cleanName(up.Filename)
	if prev == nil && up.ItemKey == "" {
		if dup, err := s.repo().ContentBySHA(ctx, src.AccountID, src.ID, sum); err == nil {
			s.deleteBlob(key)
			return UploadResult{ContentID: dup.ID, VersionID: dup.VersionID, Filename: filename, Status: "duplicate"}, nil
		}
	}
	meta := mergeTitle(up.Metadata, up.Title)
	c := Content{ID: contentID, AccountID: src.AccountID, SourceID: src.ID, ContentType: mt, Filename: filename,
		BlobKey: key, SHA256: sum, SizeBytes: n, Metadata: meta, Title: titleOf(meta, filename),
		ContentURL: "content://" + contentID + "/" + filename}
	if prev != nil {
		c.ItemKey, c.PublishedAt = prev.ItemKey, prev.PublishedAt
	}
	if up.ItemKey != "" {
		c.ItemKey = up.ItemKey
	}
	if up.ContentURL != "" {
		c.ContentURL = up.ContentURL
	}
	if up.PublishedAt != nil {
		c.PublishedAt = up.PublishedAt
	}
	c.TextHash = up.TextHash
	c, err = s.record(ctx, c, prev != nil)
	if err != nil {
		s.deleteBlob(key)
		return UploadResult{}, err
	}
	res := UploadResult{ContentID: c.ID, VersionID: c.VersionID, Filename: filename, Status: "uploaded"}
	if !extract.Supports(mt) {
		w := fmt.Sprintf("%s has no text extractor here and the source's embedder reads text only: indexing will fail", mt)
		res.EmbedderWarning = &w
	}
	return res, nil
}

// record inserts a content (or its new version) and its indexing job in
// one transaction.
func (s *Service) record(ctx context.Context, c Content, newVersion bool) (Content, error) {
	var wake func()
	err := s.db.TxConn(ctx, func(tx *sql.Tx, conn *sql.Conn) error {
		var err error
		if newVersion {
			c, err = s.repo().NewContentVersion(ctx, tx, c)
		} else {
			c, err = s.repo().CreateContent(ctx, tx, c)
		}
		if err != nil {
			return err
		}
		wake, err = s.queue.InsertTx(ctx, tx, conn, IndexArgs{AccountID: c.AccountID, ContentID: c.ID, VersionID: c.VersionID}, indexOpts())
		return err
	})
	if err != nil {
		return Content{}, err
	}
	wake()
	return c, nil
}

func indexOpts() *river.InsertOpts {
	return &river.InsertOpts{MaxAttempts: indexAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

func (s *Service) deleteBlob(key string) {
	if key == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = s.blobs.Delete(ctx, key)
}

func cleanName(name string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if name == "." || name == "/" || name == "" {
		name = "file"
	}
	if len(name) > 255 {
		name = name[:255]
	}
	return name
}
