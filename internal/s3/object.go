package s3

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxPutSize is the largest body one PutObject may carry (5 GiB); larger
// objects go up in parts (Multipart).
const MaxPutSize = 5 << 30

// PutOptions are the headers of a write.
type PutOptions struct {
	ContentType string
	// ServerSideEncryption ("AES256", "aws:kms", "aws:kms:dsse") and
	// KMSKeyID ask the store to encrypt the object.
	ServerSideEncryption string
	KMSKeyID             string
}

func (o PutOptions) header() http.Header {
	h := http.Header{}
	if o.ContentType != "" {
		h.Set("Content-Type", o.ContentType)
	}
	if o.ServerSideEncryption != "" {
		h.Set("X-Amz-Server-Side-Encryption", o.ServerSideEncryption)
	}
	if o.KMSKeyID != "" {
		h.Set("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id", o.KMSKeyID)
	}
	return h
}

// PutObject stores body at bucket/key in one request, its SHA-256 signed
// with it so the store refuses a body changed on the way.
func (c *Client) PutObject(ctx context.Context, bucket, key string, body []byte, o PutOptions) error {
	if len(body) > MaxPutSize {
		return fmt.Errorf("s3 PutObject %s/%s: %d bytes is more than one request carries; upload in parts", bucket, key, len(body))
	}
	if body == nil {
		body = []byte{}
	}
	resp, done, err := c.do(ctx, request{op: "PutObject", method: http.MethodPut, bucket: bucket, key: key, header: o.header(), body: body})
	if err != nil {
		return err
	}
	defer done()
	resp.Body.Close()
	return nil
}

// ObjectInfo describes a stored object.
type ObjectInfo struct {
	Key          string
	Size         int64
	ContentType  string
	ETag         string
	LastModified time.Time
}

func infoFromHeader(key string, h http.Header, size int64) ObjectInfo {
	mod, _ := http.ParseTime(h.Get("Last-Modified"))
	return ObjectInfo{Key: key, Size: size, ContentType: h.Get("Content-Type"), ETag: h.Get("ETag"), LastModified: mod}
}

// HeadObject describes bucket/key; a missing object is an error matching
// ErrNotFound.
func (c *Client) HeadObject(ctx context.Context, bucket, key string) (ObjectInfo, error) {
	resp, done, err := c.do(ctx, request{op: "HeadObject", method: http.MethodHead, bucket: bucket, key: key})
	if err != nil {
		return ObjectInfo{}, err
	}
	defer done()
	resp.Body.Close()
	return infoFromHeader(key, resp.Header, resp.ContentLength), nil
}

// Object is an object being read; its Body streams the content and must
// be closed.
type Object struct {
	ObjectInfo
	Body io.ReadCloser
}

// GetObject opens bucket/key for reading. maxBytes caps the body (0: no
// cap): an object the store says is larger is refused before any byte is
// read, and a body that runs past the cap fails with ErrTooLarge. A
// missing object is an error matching ErrNotFound.
func (c *Client) GetObject(ctx context.Context, bucket, key string, maxBytes int64) (*Object, error) {
	resp, done, err := c.do(ctx, request{op: "GetObject", method: http.MethodGet, bucket: bucket, key: key, stream: true})
	if err != nil {
		return nil, err
	}
	if maxBytes > 0 && resp.ContentLength > maxBytes {
		resp.Body.Close()
		done()
		return nil, fmt.Errorf("s3 GetObject %s/%s: %w (%d bytes, at most %d)", bucket, key, ErrTooLarge, resp.ContentLength, maxBytes)
	}
	idle := c.ReadIdleTimeout
	if idle <= 0 {
		idle = time.Minute
	}
	body := &objectBody{body: resp.Body, done: done, max: maxBytes, idle: idle, stall: done}
	return &Object{ObjectInfo: infoFromHeader(key, resp.Header, resp.ContentLength), Body: body}, nil
}

// objectBody is an object's content as it streams in: capped in bytes,
// and cut off when one read waits longer than idle for the store.
type objectBody struct {
	body  io.ReadCloser
	done  func()
	stall func()
	idle  time.Duration
	max   int64
	n     int64

	mu      sync.Mutex
	timer   *time.Timer
	stalled bool
}

func (b *objectBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.timer == nil {
		b.timer = time.AfterFunc(b.idle, b.onStall)
	} else {
		b.timer.Reset(b.idle)
	}
	b.mu.Unlock()
	n, err := b.body.Read(p)
	b.mu.Lock()
	b.timer.Stop()
	stalled := b.stalled
	b.mu.Unlock()
	if err != nil && err != io.EOF && stalled {
		err = fmt.Errorf("%w: no data from the store for %s: %w", ErrTimeout, b.idle, err)
	}
	b.n += int64(n)
	if b.max > 0 && b.n > b.max {
		return 0, ErrTooLarge
	}
	return n, err
}

func (b *objectBody) onStall() {
	b.mu.Lock()
	b.stalled = true
	b.mu.Unlock()
	b.stall()
}

func (b *objectBody) Close() error {
	err := b.body.Close()
	b.done()
	return err
}

// DeleteObject removes bucket/key. S3 answers success for a key that is
// not there; callers that must know check with HeadObject first.
func (c *Client) DeleteObject(ctx context.Context, bucket, key string) error {
	resp, done, err := c.do(ctx, request{op: "DeleteObject", method: http.MethodDelete, bucket: bucket, key: key})
	if err != nil {
		return err
	}
	defer done()
	resp.Body.Close()
	return nil
}

// ListInput selects a page of a bucket's objects.
type ListInput struct {
	Prefix            string
	Delimiter         string
	ContinuationToken string
	MaxKeys           int // 1000 when zero
}

// ListPage is one page of a listing.
type ListPage struct {
	Objects        []ObjectInfo
	CommonPrefixes []string
	// NextContinuationToken asks for the next page when IsTruncated.
	NextContinuationToken string
	IsTruncated           bool
}

// ListObjectsV2 lists one page of the bucket's objects.
func (c *Client) ListObjectsV2(ctx context.Context, bucket string, in ListInput) (ListPage, error) {
	q := url.Values{"list-type": {"2"}}
	if in.Prefix != "" {
		q.Set("prefix", in.Prefix)
	}
	if in.Delimiter != "" {
		q.Set("delimiter", in.Delimiter)
	}
	if in.ContinuationToken != "" {
		q.Set("continuation-token", in.ContinuationToken)
	}
	if in.MaxKeys > 0 {
		q.Set("max-keys", strconv.Itoa(in.MaxKeys))
	}
	resp, done, err := c.do(ctx, request{op: "ListObjectsV2", method: http.MethodGet, bucket: bucket, query: q})
	if err != nil {
		return ListPage{}, err
	}
	defer done()
	defer resp.Body.Close()
	var doc struct {
		IsTruncated           bool   `xml:"IsTruncated"`
		NextContinuationToken string `xml:"NextContinuationToken"`
		Contents              []struct {
			Key          string `xml:"Key"`
			Size         int64  `xml:"Size"`
			ETag         string `xml:"ETag"`
			LastModified string `xml:"LastModified"`
		} `xml:"Contents"`
		CommonPrefixes []struct {
			Prefix string `xml:"Prefix"`
		} `xml:"CommonPrefixes"`
	}
	if err := readAnswer(resp, maxListBody, "ListObjectsV2", &doc); err != nil {
		return ListPage{}, err
	}
	page := ListPage{IsTruncated: doc.IsTruncated, NextContinuationToken: doc.NextContinuationToken}
	for _, o := range doc.Contents {
		mod, _ := time.Parse(time.RFC3339, o.LastModified)
		page.Objects = append(page.Objects, ObjectInfo{Key: o.Key, Size: o.Size, ETag: o.ETag, LastModified: mod})
	}
	for _, p := range doc.CommonPrefixes {
		page.CommonPrefixes = append(page.CommonPrefixes, p.Prefix)
	}
	if page.IsTruncated && page.NextContinuationToken == "" {
		return page, fmt.Errorf("s3 ListObjectsV2 %s: a truncated page without a continuation token", bucket)
	}
	return page, nil
}

// ListAll calls fn with every object under prefix, page after page, at
// most maxPages pages (0: no limit).
func (c *Client) ListAll(ctx context.Context, bucket, prefix string, maxPages int, fn func(ObjectInfo) error) error {
	in := ListInput{Prefix: prefix}
	for page := 0; maxPages <= 0 || page < maxPages; page++ {
		p, err := c.ListObjectsV2(ctx, bucket, in)
		if err != nil {
			return err
		}
		for _, o := range p.Objects {
			if err := fn(o); err != nil {
				return err
			}
		}
		if !p.IsTruncated {
			return nil
		}
		in.ContinuationToken = p.NextContinuationToken
	}
	return fmt.Errorf("s3 ListObjectsV2 %s/%s: more than %d pages", bucket, strings.TrimSuffix(prefix, "/"), maxPages)
}
