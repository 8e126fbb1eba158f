// Package blob owns the blob store: uploads, attachments and exports live
// in a bucket — a local directory by default, in memory for tests, or any
// S3-compatible store when scaled out. Writes are streamed; nothing is
// held whole in memory (but by the in-memory store).
package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"unicode/utf8"
)

// ErrNotFound is a key with no blob.
var ErrNotFound = errors.New("blob not found")

// backend is where a Store keeps its blobs: a directory (fileStore), memory
// (memStore) or an S3-compatible bucket (s3Store). Keys reach it with the
// store's prefix on, already checked.
type backend interface {
	put(ctx context.Context, key, contentType string, r io.Reader) (int64, error)
	get(ctx context.Context, key string) (io.ReadCloser, error)
	// delete fails with ErrNotFound for a missing key.
	delete(ctx context.Context, key string) error
	exists(ctx context.Context, key string) (bool, error)
}

// Store is an open bucket.
type Store struct {
	b      backend
	prefix string // the URL's prefix= parameter, put before every key
	// Where the store's temporary objects are, for SweepTemp: the
	// directory of a file store, or the S3 store.
	dir string
	s3  *s3Store
}

// Open opens the bucket at rawURL: file:///DIR (creating the directory
// if needed), mem://, or s3://BUCKET?region=…&endpoint=…&use_path_style=….
// Every scheme takes prefix=, a string put before every key.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob url: %w", err)
	}
	q := u.Query()
	s := &Store{prefix: q.Get("prefix")}
	q.Del("prefix")
	switch u.Scheme {
	case "file":
		fs, err := openFileStore(u, q)
		if err != nil {
			return nil, err
		}
		s.b, s.dir = fs, fs.dir
	case "mem":
		if len(q) > 0 {
			return nil, fmt.Errorf("blob url: mem:// takes no parameters but prefix")
		}
		s.b = newMemStore()
	case "s3":
		st, err := openS3Store(ctx, u, q)
		if err != nil {
			return nil, err
		}
		s.b, s.s3 = st, st
	default:
		return nil, fmt.Errorf("blob url %q: want file://, s3:// or mem://", redactURL(u))
	}
	return s, nil
}

// redactURL is the URL without its query, which could carry settings an
// operator would not want in a log.
func redactURL(u *url.URL) string {
	v := *u
	v.RawQuery, v.User = "", nil
	return v.String()
}

// key checks a key and puts the store's prefix before it.
func (s *Store) key(key string) (string, error) {
	if key == "" || !utf8.ValidString(key) {
		return "", fmt.Errorf("blob: invalid key %q", key)
	}
	return s.prefix + key, nil
}

// Put streams r into key and returns the bytes written. A failing r, or
// ctx ending, leaves no blob (and no partial one).
func (s *Store) Put(ctx context.Context, key, contentType string, r io.Reader) (int64, error) {
	k, err := s.key(key)
	if err != nil {
		return 0, err
	}
	var src io.Reader = &ctxReader{ctx: ctx, r: r}
	if contentType == "" {
		// Like the store before it, name the type from the first bytes.
		head := make([]byte, 512)
		n, err := io.ReadFull(src, head)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, err
		}
		contentType = http.DetectContentType(head[:n])
		src = io.MultiReader(bytes.NewReader(head[:n]), src)
	}
	return s.b.put(ctx, k, contentType, src)
}

// Get opens key for streaming reads; the caller closes it. A missing key
// is an error matching ErrNotFound.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, err
	}
	return s.b.get(ctx, k)
}

// Delete removes key; a missing key is an error matching ErrNotFound.
func (s *Store) Delete(ctx context.Context, key string) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	return s.b.delete(ctx, k)
}

// Exists reports whether key is present.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	k, err := s.key(key)
	if err != nil {
		return false, err
	}
	return s.b.exists(ctx, k)
}

// Close releases the store (it holds nothing that needs releasing).
func (s *Store) Close() error { return nil }

// ctxReader stops a write whose context ended, so a cancelled upload
// leaves nothing behind however slowly its source reads.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
