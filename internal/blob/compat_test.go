package blob_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// The blobs in testdata/fileblob were written by gocloud.dev's fileblob
// (v0.47.0), the file store before this one, with these keys, content
// types and contents; keys with characters a path cannot hold show its
// escapes. The directory's tree is what a data directory of an existing
// install holds.
var fileblobKeys = []struct{ key, contentType, body string }{
	{"uploads/acct/u1/original", "application/pdf", "%PDF-1.4 fake"},
	{"agent-inputs/a/b/report (final) ünï.txt", "text/plain; charset=utf-8", "hello"},
	{"weird/../x", "text/plain", "dotdot"},
	{"double//slash", "text/plain", "double"},
	{"trailing/", "text/plain", "trailing"},
	{"ctrl\x01char\ttab", "application/octet-stream", "ctrl"},
	{"looks__0x41__escaped", "text/csv", "a,b\n"},
	{"empty", "", ""},
}

// readTree maps each file under dir to its content.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	for rel, content := range readTree(t, from) {
		p := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFileStoreReadsAndWritesFileblobLayout: an existing data directory
// stays readable key for key, and what this store writes is, file for
// file and byte for byte, what fileblob wrote (sidecars included).
func TestFileStoreReadsAndWritesFileblobLayout(t *testing.T) {
	ctx := context.Background()
	old := t.TempDir()
	copyTree(t, "testdata/fileblob", old)
	s, err := blob.Open(ctx, "file://"+old)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range fileblobKeys {
		rc, err := s.Get(ctx, k.key)
		if err != nil {
			t.Fatalf("%q: %v", k.key, err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != k.body {
			t.Errorf("%q: read %q, want %q", k.key, b, k.body)
		}
	}

	fresh := t.TempDir()
	s2, err := blob.Open(ctx, "file://"+fresh)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range fileblobKeys {
		if _, err := s2.Put(ctx, k.key, k.contentType, strings.NewReader(k.body)); err != nil {
			t.Fatalf("%q: %v", k.key, err)
		}
	}
	want, got := readTree(t, "testdata/fileblob"), readTree(t, fresh)
	if !maps.Equal(want, got) {
		t.Errorf("written tree differs from fileblob's:\n got %q\nwant %q", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: got %q, want %q", k, got[k], v)
			}
		}
	}

	// Delete takes the sidecar along; a second delete is a not-found.
	if err := s.Delete(ctx, "double//slash"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(old, "double", "__0x2f__slash.attrs")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("sidecar left: %v", err)
	}
	if err := s.Delete(ctx, "double//slash"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if _, err := s.Get(ctx, "double//slash"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("get after delete: %v", err)
	}
	// Keys that would name the directory, leave it or shadow a sidecar
	// are refused; "../" is escaped, so it stays a name inside.
	for _, bad := range []string{"..", "a/..", ".", "a.attrs", "", "bad\xffutf8"} {
		if _, err := s.Put(ctx, bad, "text/plain", strings.NewReader("x")); err == nil {
			t.Errorf("key %q accepted", bad)
		}
	}
	for _, k := range []string{"../outside", "/abs/../../outside"} {
		if _, err := s.Put(ctx, k, "text/plain", strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(old), "outside")); err == nil {
		t.Error("a write escaped the directory")
	}
	if _, err := os.Stat(filepath.Join(old, "..__0x2f__outside")); err != nil {
		t.Errorf("../outside not kept inside: %v", err)
	}
}

// failingReader gives n bytes and then fails, like a client that went away.
type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("client went away")
	}
	k := min(len(p), f.n)
	for i := range p[:k] {
		p[i] = 'z'
	}
	f.n -= k
	return k, nil
}

func newS3Store(t *testing.T, extra string) (*blob.Store, *s3mem.Backend, *s3.Client) {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	if err := backend.CreateBucket("blobs"); err != nil {
		t.Fatal(err)
	}
	s, err := blob.Open(context.Background(), "s3://blobs?region=us-east-1&endpoint="+srv.URL+"&use_path_style=true"+extra)
	if err != nil {
		t.Fatal(err)
	}
	return s, backend, &s3.Client{Endpoint: srv.URL, PathStyle: true, Credentials: s3.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}}
}

// TestS3Store: small blobs go up in one request, large ones in parts;
// a failed write leaves neither an object nor an upload; keys are escaped
// as gocloud.dev's s3blob escaped them, so existing objects are found.
func TestS3Store(t *testing.T) {
	ctx := context.Background()
	s, _, raw := newS3Store(t, "&prefix=agentry/")
	blob.SetPartSize(s, s3.MinPartSize)

	big := bytes.Repeat([]byte("0123456789abcdef"), (2*s3.MinPartSize+12345)/16)
	for key, body := range map[string][]byte{"small/a.txt": []byte("small"), "big/b.bin": big, "empty": {}} {
		n, err := s.Put(ctx, key, "application/octet-stream", bytes.NewReader(body))
		if err != nil || n != int64(len(body)) {
			t.Fatalf("%s: put %d %v", key, n, err)
		}
		rc, err := s.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		if !bytes.Equal(got, body) {
			t.Fatalf("%s: %d bytes back, want %d", key, len(got), len(body))
		}
		if ok, err := s.Exists(ctx, key); !ok || err != nil {
			t.Fatalf("%s: exists %v %v", key, ok, err)
		}
	}
	if _, err := raw.HeadObject(ctx, "blobs", "agentry/big/b.bin"); err != nil {
		t.Fatalf("the prefix is not on the object: %v", err)
	}

	// Failing in the first part, and after two parts went up.
	for _, n := range []int{100, 2*s3.MinPartSize + 10} {
		if _, err := s.PutStream(ctx, "failed/x", "text/plain", &failingReader{n: n}); err == nil {
			t.Fatalf("a failing reader (%d bytes) wrote a blob", n)
		}
		if ok, _ := s.Exists(ctx, "failed/x"); ok {
			t.Fatalf("a failed write (%d bytes) left a blob", n)
		}
		if page, err := raw.ListMultipartUploads(ctx, "blobs", "", "", ""); err != nil || len(page.Uploads) != 0 {
			t.Fatalf("a failed write (%d bytes) left uploads: %+v %v", n, page.Uploads, err)
		}
	}

	if err := s.Delete(ctx, "small/a.txt"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "small/a.txt"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := s.Get(ctx, "small/a.txt"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	if ok, err := s.Exists(ctx, "small/a.txt"); ok || err != nil {
		t.Fatalf("exists after delete: %v %v", ok, err)
	}

	// The object keys s3blob (v0.47.0) gave these blob keys, read back
	// from a store it wrote to.
	for key, object := range map[string]string{
		"weird/../x":           "agentry/weird/..__0x2f__x",
		"ctrl\x01char\ttab":    "agentry/ctrl__0x1__char__0x9__tab",
		"looks__0x41__escaped": "agentry/looks__0x5f___0x41__escaped",
		"double//slash":        "agentry/double//slash",
	} {
		if _, err := s.Put(ctx, key, "text/plain", strings.NewReader("v")); err != nil {
			t.Fatal(err)
		}
		if _, err := raw.HeadObject(ctx, "blobs", object); err != nil {
			t.Errorf("%q: not stored as %q: %v", key, object, err)
		}
	}
}

func TestOpenRefusesWhatItCannotHonour(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	ctx := context.Background()
	for _, u := range []string{
		"s3://bucket?region=us-east-1",                  // no credentials anywhere
		"s3://bucket?region=us-east-1&accelerate=true",  // not supported
		"s3://bucket?anonymous=true&endpoint=ftp://x",   // not http(s)
		"file://" + t.TempDir() + "?base_url=http://x/", // signed URLs are gone
		"gs://bucket",
		"mem://?x=1",
	} {
		if _, err := blob.Open(ctx, u); err == nil {
			t.Errorf("%s opened", u)
		}
	}
	if _, err := blob.Open(ctx, "s3://bucket?region=us-east-1"); !errors.Is(err, s3.ErrNoCredentials) {
		t.Errorf("no credentials: %v", err)
	}
	if _, err := blob.Open(ctx, "s3://public-bucket?anonymous=true&region=us-east-1"); err != nil {
		t.Errorf("anonymous: %v", err)
	}
}
