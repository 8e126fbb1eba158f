// Package blob owns the blob store: uploads, attachments and exports live in
// a gocloud.dev bucket — a local directory by default, or any S3-compatible
// store when scaled out. Writes are streamed; nothing is held whole in memory.
package blob

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file:// buckets (the embedded default)
	_ "gocloud.dev/blob/memblob"  // mem:// buckets (tests)
	_ "gocloud.dev/blob/s3blob"   // s3:// buckets, including S3-compatible stores via endpoint=
)

// Store is an open bucket.
type Store struct {
	b *blob.Bucket
	// Where the store's temporary objects are, for SweepTemp: the
	// directory of a file store, or the bucket and key prefix of an S3 one.
	dir                string
	s3Bucket, s3Prefix string
}

// Open opens the bucket at rawURL, creating a local directory if needed.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	s := &Store{}
	if u, err := url.Parse(rawURL); err == nil && u.Scheme == "s3" {
		s.s3Bucket, s.s3Prefix = u.Host, u.Query().Get("prefix")
	}
	if strings.HasPrefix(rawURL, "file://") {
		u, err := url.Parse(rawURL)
		if err != nil {
			return nil, fmt.Errorf("blob url: %w", err)
		}
		if err := os.MkdirAll(u.Path, 0o700); err != nil {
			return nil, fmt.Errorf("create blob directory: %w", err)
		}
		s.dir = u.Path
		if u.Query().Get("no_tmp_dir") == "" {
			// Write temporary files beside their final place, so the final
			// rename never crosses file systems.
			q := u.Query()
			q.Set("no_tmp_dir", "true")
			u.RawQuery = q.Encode()
			rawURL = u.String()
		}
	}
	b, err := blob.OpenBucket(ctx, rawURL)
	if err != nil {
		return nil, fmt.Errorf("open blob store: %w", err)
	}
	s.b = b
	return s, nil
}

// Put streams r into key and returns the bytes written.
func (s *Store) Put(ctx context.Context, key, contentType string, r io.Reader) (int64, error) {
	w, err := s.b.NewWriter(ctx, key, &blob.WriterOptions{ContentType: contentType})
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(w, r)
	if err != nil {
		_ = w.Close()
		return n, err
	}
	return n, w.Close()
}

// Get opens key for streaming reads; the caller closes it.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	return s.b.NewReader(ctx, key, nil)
}

// Delete removes key.
func (s *Store) Delete(ctx context.Context, key string) error { return s.b.Delete(ctx, key) }

// Exists reports whether key is present.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) { return s.b.Exists(ctx, key) }

// Close releases the bucket.
func (s *Store) Close() error { return s.b.Close() }
