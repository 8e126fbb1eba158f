package s3

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// fakeStore is an independent S3-compatible server (gofakes3) on
// loopback, behind a recorder of what reached it.
type fakeStore struct {
	*httptest.Server
	backend *s3mem.Backend
	mu      sync.Mutex
	seen    []seenRequest
}

type seenRequest struct {
	method, host, path, query, auth, payloadHash, bodyHash string
}

func newFakeStore(t *testing.T, opts ...gofakes3.Option) *fakeStore {
	t.Helper()
	f := &fakeStore{backend: s3mem.New()}
	h := gofakes3.New(f.backend, opts...).Server()
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sum := sha256.Sum256(body)
		f.mu.Lock()
		f.seen = append(f.seen, seenRequest{r.Method, r.Host, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Get("Authorization"),
			r.Header.Get("X-Amz-Content-Sha256"), hex.EncodeToString(sum[:])})
		f.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(f.Close)
	if err := f.backend.CreateBucket("blobs"); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fakeStore) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.seen)
}

func (f *fakeStore) client() *Client {
	return &Client{Endpoint: f.URL, PathStyle: true, Region: "eu-west-1",
		Credentials: Credentials{AccessKeyID: "AKIATEST", SecretAccessKey: "secret"}}
}

func TestObjectRoundTrip(t *testing.T) {
	f := newFakeStore(t)
	c := f.client()
	ctx := context.Background()
	const key = "dir/a b+c$é (1).txt"
	body := []byte("hello, store")
	if err := c.PutObject(ctx, "blobs", key, body, PutOptions{ContentType: "text/plain"}); err != nil {
		t.Fatal(err)
	}
	info, err := c.HeadObject(ctx, "blobs", key)
	if err != nil || info.Size != int64(len(body)) || info.ContentType != "text/plain" {
		t.Fatalf("head: %+v %v", info, err)
	}
	obj, err := c.GetObject(ctx, "blobs", key, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(obj.Body)
	obj.Body.Close()
	if err != nil || !bytes.Equal(got, body) || obj.ContentType != "text/plain" {
		t.Fatalf("get: %q %q %v", got, obj.ContentType, err)
	}
	if err := c.DeleteObject(ctx, "blobs", key); err != nil {
		t.Fatal(err)
	}
	if _, err := c.HeadObject(ctx, "blobs", key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("head after delete: %v", err)
	}
	if _, err := c.GetObject(ctx, "blobs", key, 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	var se *Error
	if _, err := c.GetObject(ctx, "blobs", key, 0); !errors.As(err, &se) || se.Code != "NoSuchKey" || se.StatusCode != 404 {
		t.Fatalf("get after delete: %#v", err)
	}

	// Every request was signed with the client's key for its region, and
	// the PUT's signed payload hash is the hash of what arrived.
	for _, r := range f.requests() {
		if !strings.HasPrefix(r.auth, "AWS4-HMAC-SHA256 Credential=AKIATEST/") || !strings.Contains(r.auth, "/eu-west-1/s3/aws4_request") {
			t.Errorf("%s %s signed %q", r.method, r.path, r.auth)
		}
		if r.payloadHash != r.bodyHash {
			t.Errorf("%s %s: signed payload hash %s, body hash %s", r.method, r.path, r.payloadHash, r.bodyHash)
		}
	}
	if p := f.requests()[0].path; p != "/blobs/dir/a%20b%2Bc%24%C3%A9%20%281%29.txt" {
		t.Errorf("path on the wire %q", p)
	}
}

func TestMissingBucketIsNotAMissingKey(t *testing.T) {
	f := newFakeStore(t)
	_, err := f.client().GetObject(context.Background(), "nobucket", "k", 0)
	var se *Error
	if errors.Is(err, ErrNotFound) || !errors.As(err, &se) || se.Code != "NoSuchBucket" {
		t.Fatalf("%v", err)
	}
	if !strings.Contains(err.Error(), "NoSuchBucket") || !strings.Contains(err.Error(), "nobucket/k") {
		t.Errorf("message %q", err)
	}
}

func TestGetObjectByteCap(t *testing.T) {
	f := newFakeStore(t)
	c := f.client()
	ctx := context.Background()
	if err := c.PutObject(ctx, "blobs", "big", bytes.Repeat([]byte("x"), 1000), PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetObject(ctx, "blobs", "big", 999); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the cap: %v", err)
	}
	obj, err := c.GetObject(ctx, "blobs", "big", 1000)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, obj.Body)
	obj.Body.Close()
	if n != 1000 || err != nil {
		t.Fatalf("at the cap: %d %v", n, err)
	}
}

// A body longer than its cap fails even when the store does not say how
// long it is.
func TestGetObjectCapWithoutLength(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(200)
		for range 10 {
			w.Write(bytes.Repeat([]byte("y"), 100))
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	c := &Client{Endpoint: srv.URL, PathStyle: true}
	obj, err := c.GetObject(context.Background(), "b", "k", 500)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Body.Close()
	n, err := io.Copy(io.Discard, obj.Body)
	if !errors.Is(err, ErrTooLarge) || n > 500 {
		t.Fatalf("read %d: %v", n, err)
	}
}

func TestListObjectsV2Continuation(t *testing.T) {
	f := newFakeStore(t)
	c := f.client()
	ctx := context.Background()
	var want []string
	for i := range 7 {
		k := fmt.Sprintf("p/%02d", i)
		want = append(want, k)
		if err := c.PutObject(ctx, "blobs", k, []byte(k), PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.PutObject(ctx, "blobs", "other/x", []byte("x"), PutOptions{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	in := ListInput{Prefix: "p/", MaxKeys: 3}
	pages := 0
	for {
		p, err := c.ListObjectsV2(ctx, "blobs", in)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, o := range p.Objects {
			got = append(got, o.Key)
			if o.Size != 4 {
				t.Errorf("%s: size %d", o.Key, o.Size)
			}
		}
		if !p.IsTruncated {
			break
		}
		in.ContinuationToken = p.NextContinuationToken
	}
	if pages != 3 || !slices.Equal(got, want) {
		t.Fatalf("%d pages: %v", pages, got)
	}
	var all []string
	if err := c.ListAll(ctx, "blobs", "", 0, func(o ObjectInfo) error { all = append(all, o.Key); return nil }); err != nil || len(all) != 8 {
		t.Fatalf("list all: %v %v", all, err)
	}
}

func TestMultipartUpload(t *testing.T) {
	f := newFakeStore(t)
	c := f.client()
	ctx := context.Background()
	id, err := c.CreateMultipartUpload(ctx, "blobs", "mp/obj", PutOptions{ContentType: "application/x-test"})
	if err != nil {
		t.Fatal(err)
	}
	p1 := bytes.Repeat([]byte("a"), MinPartSize)
	p2 := []byte("tail")
	var parts []Part
	for i, b := range [][]byte{p1, p2} {
		p, err := c.UploadPart(ctx, "blobs", "mp/obj", id, i+1, b)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	page, err := c.ListMultipartUploads(ctx, "blobs", "mp/", "", "")
	if err != nil || len(page.Uploads) != 1 || page.Uploads[0].UploadID != id || page.Uploads[0].Initiated.IsZero() {
		t.Fatalf("uploads in progress: %+v %v", page, err)
	}
	if err := c.CompleteMultipartUpload(ctx, "blobs", "mp/obj", id, parts); err != nil {
		t.Fatal(err)
	}
	obj, err := c.GetObject(ctx, "blobs", "mp/obj", 0)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(obj.Body)
	obj.Body.Close()
	if !bytes.Equal(got, append(p1, p2...)) || obj.ContentType != "application/x-test" {
		t.Fatalf("completed object: %d bytes, %q", len(got), obj.ContentType)
	}

	// An abandoned upload is listed until aborted.
	id2, err := c.CreateMultipartUpload(ctx, "blobs", "mp/abandoned", PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UploadPart(ctx, "blobs", "mp/abandoned", id2, 1, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := c.AbortMultipartUpload(ctx, "blobs", "mp/abandoned", id2); err != nil {
		t.Fatal(err)
	}
	if page, err := c.ListMultipartUploads(ctx, "blobs", "", "", ""); err != nil || len(page.Uploads) != 0 {
		t.Fatalf("after abort: %+v %v", page, err)
	}
	var se *Error
	if err := c.AbortMultipartUpload(ctx, "blobs", "mp/abandoned", id2); !errors.As(err, &se) || se.Code != "NoSuchUpload" {
		t.Fatalf("second abort: %v", err)
	}
}

// Virtual-hosted addressing puts the bucket in the host name; the store
// routes on it. The test's client dials the loopback server whatever the
// host name, as a DNS wildcard would.
func TestVirtualHostedAddressing(t *testing.T) {
	f := newFakeStore(t, gofakes3.WithHostBucket(true))
	addr := strings.TrimPrefix(f.URL, "http://")
	_, port, _ := net.SplitHostPort(addr)
	c := f.client()
	c.PathStyle = false
	c.Endpoint = "http://s3.test:" + port
	c.HTTP = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}}
	ctx := context.Background()
	if err := c.PutObject(ctx, "blobs", "v/key.txt", []byte("v"), PutOptions{}); err != nil {
		t.Fatal(err)
	}
	obj, err := c.GetObject(ctx, "blobs", "v/key.txt", 10)
	if err != nil {
		t.Fatal(err)
	}
	obj.Body.Close()
	for _, r := range f.requests() {
		if r.host != "blobs.s3.test:"+port || r.path != "/v/key.txt" {
			t.Errorf("%s went to %s%s", r.method, r.host, r.path)
		}
	}
	// A name that cannot be a host label falls back to the path.
	if u, err := c.objectURL("Under_Score", "k", nil); err != nil || u.Host != "s3.test:"+port || u.Path != "/Under_Score/k" {
		t.Errorf("fallback: %v %v", u, err)
	}
	for _, bad := range []string{"", "a/b", "evil.com#", "x?y", "..", "a b"} {
		if _, err := c.objectURL(bad, "k", nil); err == nil {
			t.Errorf("bucket %q accepted", bad)
		}
	}
	for _, bad := range []string{"../other/k", "a/./b", "a/..", "."} {
		if _, err := c.objectURL("blobs", bad, nil); err == nil {
			t.Errorf("key %q accepted", bad)
		}
	}
}

func TestAmazonEndpoint(t *testing.T) {
	c := &Client{Region: "eu-central-1"}
	u, err := c.objectURL("my-bucket", "a/b.txt", nil)
	if err != nil || u.String() != "https://my-bucket.s3.eu-central-1.amazonaws.com/a/b.txt" {
		t.Fatalf("%v %v", u, err)
	}
	// A dotted bucket would not match the wildcard certificate.
	if u, _ := c.objectURL("my.bucket", "k", nil); u.String() != "https://s3.eu-central-1.amazonaws.com/my.bucket/k" {
		t.Fatalf("%v", u)
	}
}

// A 503 is tried again; a 403 is not.
func TestRetries(t *testing.T) {
	f := newFakeStore(t)
	var failures, calls atomic.Int32
	failures.Store(2)
	status := atomic.Int32{}
	status.Store(http.StatusServiceUnavailable)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if failures.Add(-1) >= 0 {
			w.WriteHeader(int(status.Load()))
			fmt.Fprint(w, `<Error><Code>Whatever</Code><Message>try later</Message></Error>`)
			return
		}
		f.Config.Handler.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	c := f.client()
	c.Endpoint = proxy.URL
	ctx := context.Background()
	if err := c.PutObject(ctx, "blobs", "k", []byte("v"), PutOptions{}); err != nil || calls.Load() != 3 {
		t.Fatalf("after two 503s: %v, %d calls", err, calls.Load())
	}
	calls.Store(0)
	failures.Store(5)
	status.Store(http.StatusForbidden)
	err := c.PutObject(ctx, "blobs", "k", []byte("v"), PutOptions{})
	var se *Error
	if !errors.As(err, &se) || se.StatusCode != 403 || se.Message != "try later" || calls.Load() != 1 {
		t.Fatalf("403: %v, %d calls", err, calls.Load())
	}
}

// Every call has a time cap; a streamed body has a cap on each wait.
func TestTimeCaps(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/b/stall-body" {
			w.WriteHeader(200)
			w.Write([]byte("first"))
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	c := &Client{Endpoint: srv.URL, PathStyle: true, Timeout: 100 * time.Millisecond, ReadIdleTimeout: 100 * time.Millisecond, Attempts: 1}
	start := time.Now()
	if _, err := c.HeadObject(context.Background(), "b", "stall"); !errors.Is(err, ErrTimeout) {
		t.Fatalf("head: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("the time cap did not end the call")
	}
	obj, err := c.GetObject(context.Background(), "b", "stall-body", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Body.Close()
	got, err := io.ReadAll(obj.Body)
	if string(got) != "first" || !errors.Is(err, ErrTimeout) {
		t.Fatalf("stalled body: %q %v", got, err)
	}
}
