package server_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/server"
)

// TestStartSweepsStaleTemporaryFiles: what a killed process left — a
// temporary blob of an unfinished upload, an unfinished vector index
// snapshot, a spill file in the system's temporary directory — is removed
// when the server starts, once older than --blob-temp-max-age, and
// periodically after; a younger one (a live writer's) is kept.
func TestStartSweepsStaleTemporaryFiles(t *testing.T) {
	dataDir, tmp := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	stale := time.Now().Add(-7 * time.Hour)
	write := func(path string, old bool) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, make([]byte, 4096), 0o600); err != nil {
			t.Fatal(err)
		}
		if old {
			if err := os.Chtimes(path, stale, stale); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	gone := []string{
		write(filepath.Join(dataDir, "blobs", "uploads", "a", "u1", "original.1890c3f1a2b3c4d5.tmp"), true),
		write(filepath.Join(dataDir, "vector-index", "src1.123456789.tmp"), true),
		write(filepath.Join(tmp, "agentry-upload-42"), true),
	}
	kept := []string{
		write(filepath.Join(dataDir, "blobs", "uploads", "a", "u2", "original.1890c3f1a2b3c4d6.tmp"), false),
		write(filepath.Join(dataDir, "blobs", "uploads", "a", "u3", "original"), true),
		write(filepath.Join(tmp, "someone-elses-file"), true),
	}

	cfg := server.Defaults()
	cfg.Addr, cfg.DataDir = "127.0.0.1:0", dataDir
	cfg.BootstrapAPIKey, cfg.DNSResolver = shutdownKey, "127.0.0.1:1"
	cfg.BlobSweepInterval = 20 * time.Millisecond
	startServer(t, cfg)

	deadline := time.Now().Add(10 * time.Second)
	for _, p := range gone {
		for {
			if _, err := os.Stat(p); os.IsNotExist(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s is still there", p)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	// A later sweep removes what has grown old since the start.
	old := write(filepath.Join(dataDir, "blobs", "exports", "e1.parquet.1890c3f1a2b3c4d7.tmp"), true)
	for {
		if _, err := os.Stat(old); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the periodic sweep left %s", old)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	bad := server.Defaults()
	bad.BlobTempMaxAge = bad.JobTimeout
	if err := bad.Validate(); err == nil {
		t.Error("a max age within the job timeout was accepted")
	}
}
