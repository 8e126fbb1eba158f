package blob_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// TestHelperKilledWriter is not a test: TestKilledUploadLeavesNoTempBlob
// runs the test binary as a child that starts writing a blob, says so,
// and waits to be killed with SIGKILL mid-write.
func TestHelperKilledWriter(t *testing.T) {
	dir := os.Getenv("AGENTRY_TEST_KILLED_WRITER_DIR")
	if dir == "" {
		t.Skip("only run as the child of TestKilledUploadLeavesNoTempBlob")
	}
	s, err := blob.Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	go func() {
		// A write returns once the store has read it, not written it: the
		// copy's last read (32 KiB at most) may still be in its buffer. The
		// 64 KiB after the megabyte make sure the megabyte reached the file.
		pw.Write(bytes.Repeat([]byte("x"), 1<<20))
		pw.Write(bytes.Repeat([]byte("y"), 64<<10))
		os.Stdout.WriteString("writing\n")
		select {} // and the rest never comes
	}()
	s.Put(context.Background(), "uploads/acct/upload-1/original", "application/octet-stream", pr)
}

// TestKilledUploadLeavesNoTempBlob: a writer killed with SIGKILL leaves
// its "<key>.<hex>.tmp" on a file store; the sweep keeps it while it is
// younger than the safe age and removes it after, and leaves finished
// blobs and other files alone.
func TestKilledUploadLeavesNoTempBlob(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKilledWriter$")
	cmd.Env = append(os.Environ(), "AGENTRY_TEST_KILLED_WRITER_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "writing\n" {
		cmd.Process.Kill()
		t.Fatalf("child: %q %v", line, err)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: nothing runs after it
		t.Fatal(err)
	}
	cmd.Wait()

	leftovers := func() []string {
		t.Helper()
		m, err := filepath.Glob(filepath.Join(dir, "uploads", "acct", "upload-1", "original.*.tmp"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if len(leftovers()) != 1 {
		t.Fatalf("the killed writer left %v", leftovers())
	}
	s, err := blob.Open(ctx, "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "exports/done.csv", "text/csv", strings.NewReader("a,b\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.tmp"), []byte("not ours"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(filepath.Join(dir, "notes.tmp"), old, old)
	os.Chtimes(filepath.Join(dir, "exports", "done.csv"), old, old)

	// Younger than the safe age: kept (it may be a live writer's).
	if n, err := s.SweepTemp(ctx, time.Now().Add(-time.Hour)); err != nil || n.Files != 0 || len(leftovers()) != 1 {
		t.Fatalf("fresh temp blob swept: %+v %v", n, err)
	}
	n, err := s.SweepTemp(ctx, time.Now().Add(time.Second))
	if err != nil || n.Files != 1 || n.Bytes < 1<<20 || len(leftovers()) != 0 {
		t.Fatalf("stale temp blob: %+v %v, left %v", n, err, leftovers())
	}
	if rc, err := s.Get(ctx, "exports/done.csv"); err != nil {
		t.Fatalf("a finished blob was removed: %v", err)
	} else {
		rc.Close()
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.tmp")); err != nil {
		t.Fatalf("a file of another shape was removed: %v", err)
	}
}

// TestSweepAbortsStaleMultipartUploads: on an S3-compatible store (a real
// S3 protocol server on loopback) an upload a killed writer began and never
// completed is aborted once older than the safe age; younger ones, other
// prefixes' and finished objects stay.
func TestSweepAbortsStaleMultipartUploads(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	ctx := context.Background()
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	if err := backend.CreateBucket("blobs"); err != nil {
		t.Fatal(err)
	}
	client := &s3.Client{Endpoint: srv.URL, PathStyle: true, Credentials: s3.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}}
	// What killed writers left: a multipart upload under the store's
	// prefix, with a part, and one outside it.
	begin := func(key string) {
		id, err := client.CreateMultipartUpload(ctx, "blobs", key, s3.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.UploadPart(ctx, "blobs", key, id, 1, bytes.Repeat([]byte("x"), 1<<20)); err != nil {
			t.Fatal(err)
		}
	}
	begin("agentry/exports/e1.parquet")
	begin("someone-else/big.bin")
	uploads := func() []string {
		t.Helper()
		res, err := client.ListMultipartUploads(ctx, "blobs", "", "", "")
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, u := range res.Uploads {
			keys = append(keys, u.Key)
		}
		return keys
	}

	s, err := blob.Open(ctx, "s3://blobs?region=us-east-1&endpoint="+srv.URL+"&use_path_style=true&prefix=agentry/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "exports/done.csv", "text/csv", strings.NewReader("a,b\n")); err != nil {
		t.Fatal(err)
	}
	if n, err := s.SweepTemp(ctx, time.Now().Add(-time.Hour)); err != nil || n.Files != 0 || len(uploads()) != 2 {
		t.Fatalf("young uploads swept: %+v %v, left %v", n, err, uploads())
	}
	n, err := s.SweepTemp(ctx, time.Now().Add(time.Minute))
	if err != nil || n.Files != 1 {
		t.Fatalf("stale upload: %+v %v", n, err)
	}
	if left := uploads(); len(left) != 1 || left[0] != "someone-else/big.bin" {
		t.Fatalf("uploads left: %v", left)
	}
	if rc, err := s.Get(ctx, "exports/done.csv"); err != nil {
		t.Fatalf("a finished blob was removed: %v", err)
	} else {
		rc.Close()
	}
}
