package agents

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/extract"
	"github.com/agentry/agentry/internal/fault"
	"github.com/agentry/agentry/internal/store"
	"github.com/riverqueue/river"
)

// Input uploads: a file is streamed to the blob store as it arrives (never
// held in memory), recorded as processing, and its text extracted by a
// background job; the row and both blobs are deleted once the upload
// expires.

// AcceptUploads checks, before any byte of a file is read, that the agent
// exists and that its workflow reads uploads at all: an agent whose
// templates reference neither the input nor attachments would ignore the
// file, so it is refused (ErrUploadsNotAccepted).
func (s *Service) AcceptUploads(ctx context.Context, accountID, agentID string) error {
	if s.blobs == nil || s.queue == nil {
		return ErrUploadsUnavailable
	}
	c, err := s.AttachmentReferences(ctx, accountID, agentID)
	if err != nil {
		return err
	}
	if !c.RequiresUploads {
		return ErrUploadsNotAccepted
	}
	return nil
}

// UploadInput is one file of POST /agents/{id}/upload-input.
type UploadInput struct {
	AccountID, AgentID, UserID string
	Filename                   string
	DeclaredType               string // the part's Content-Type, if any
	Body                       io.Reader
}

// StoreUpload streams a file to the blob store and queues its extraction.
// A file over MaxUploadBytes is ErrUploadTooLarge, and nothing of it is kept.
func (s *Service) StoreUpload(ctx context.Context, in UploadInput) (Upload, error) {
	if s.blobs == nil || s.queue == nil {
		return Upload{}, ErrUploadsUnavailable
	}
	id := store.NewID()
	key := uploadKey(in.AccountID, id, "original")
	br := bufio.NewReaderSize(in.Body, 4096)
	head, _ := br.Peek(512) // a short or failing read shows up again in the copy below
	u := Upload{ID: id, AccountID: in.AccountID, AgentID: in.AgentID, CreatedBy: in.UserID, BlobKey: key,
		Filename: cleanFilename(in.Filename), ContentType: extract.DetectType(in.Filename, in.DeclaredType, head)}
	body := &blob.HashLimit{R: br, Limit: s.cfg.MaxUploadBytes, H: sha256.New(), TooLarge: ErrUploadTooLarge}
	n, err := s.blobs.PutStream(ctx, key, u.ContentType, body)
	if errors.Is(err, ErrUploadTooLarge) {
		return Upload{}, fault.UploadTooLarge(s.cfg.MaxUploadBytes, err)
	}
	if err != nil {
		return Upload{}, err
	}
	u.FileSize, u.SHA256 = n, hex.EncodeToString(body.H.Sum(nil))
	u.ExpiresAt = s.now().Add(s.cfg.UploadRetention)
	if u, err = s.uploads().create(ctx, u); err != nil {
		s.deleteBlob(key)
		return Upload{}, err
	}
	if _, err := s.queue.Insert(ctx, ExtractArgs{AccountID: u.AccountID, UploadID: u.ID}, &river.InsertOpts{MaxAttempts: extractAttempts}); err != nil {
		_ = s.uploads().remove(context.WithoutCancel(ctx), u.AccountID, u.ID)
		s.deleteBlob(key)
		return Upload{}, fmt.Errorf("queue text extraction: %w", err)
	}
	return u, nil
}

// Upload returns an upload of the agent (store.ErrNotFound when absent,
// expired, another agent's or another account's).
func (s *Service) Upload(ctx context.Context, accountID, agentID, uploadID string) (Upload, error) {
	if _, err := s.rows().Agent(ctx, accountID, agentID); err != nil {
		return Upload{}, err
	}
	u, err := s.uploads().get(ctx, accountID, agentID, uploadID)
	if errors.Is(err, store.ErrNotFound) {
		return Upload{}, ErrUploadNotFound
	}
	return u, err
}

// OpenUpload streams an upload's file as uploaded; the caller closes it.
func (s *Service) OpenUpload(ctx context.Context, u Upload) (io.ReadCloser, error) {
	if s.blobs == nil {
		return nil, ErrUploadsUnavailable
	}
	return s.blobs.Get(ctx, u.BlobKey)
}

// OpenUploadText streams an upload's extracted text; the caller closes it.
// An upload without text (still processing, failed, or an image passed on
// as it is) answers an empty reader.
func (s *Service) OpenUploadText(ctx context.Context, u Upload) (io.ReadCloser, error) {
	if s.blobs == nil {
		return nil, ErrUploadsUnavailable
	}
	if u.TextKey == "" {
		return io.NopCloser(strings.NewReader("")), nil
	}
	return s.blobs.Get(ctx, u.TextKey)
}

// CleanupExpiredUploads deletes every expired upload, its blobs first, and
// returns how many it removed.
func (s *Service) CleanupExpiredUploads(ctx context.Context) (int, error) {
	if s.blobs == nil {
		return 0, nil
	}
	removed := 0
	for {
		batch, err := s.uploads().expired(ctx, s.now(), 100)
		if err != nil {
			return removed, err
		}
		for _, u := range batch {
			for _, key := range []string{u.BlobKey, u.TextKey} {
				if key == "" {
					continue
				}
				if err := s.blobs.Delete(ctx, key); err != nil && !isNotFound(err) {
					return removed, fmt.Errorf("delete %s: %w", key, err)
				}
			}
			if err := s.uploads().remove(ctx, u.AccountID, u.ID); err != nil {
				return removed, err
			}
			removed++
		}
		if len(batch) < 100 {
			return removed, nil
		}
	}
}

func uploadKey(accountID, uploadID, name string) string {
	return path.Join("agent-inputs", accountID, uploadID, name)
}

func (s *Service) deleteBlob(key string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = s.blobs.Delete(ctx, key)
}

// cleanFilename keeps the base name a client sent, without directories or
// control characters, at most 255 bytes; "upload" when nothing is left.
func cleanFilename(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(name)
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	for len(name) > 255 {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "" || name == "." || name == ".." || name == "/" {
		return "upload"
	}
	return name
}
