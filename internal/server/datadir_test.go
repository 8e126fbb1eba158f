package server_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/server"
)

// The embedded mode works in a data directory of any name: '#', '?' and
// '%' are characters of a path, for the SQLite files and the blob
// directory alike, not a URL's fragment, query or escape.
func TestDataDirNamesAreTakenLiterally(t *testing.T) {
	parent := t.TempDir()
	cfg := server.Defaults()
	cfg.Addr, cfg.DataDir = "127.0.0.1:0", filepath.Join(parent, "C# 100%25 done?yes")
	cfg.BootstrapAPIKey, cfg.DNSResolver = shutdownKey, "127.0.0.1:1"
	s, url, _ := startServer(t, cfg)

	resp, err := http.Get(url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("readyz %d", resp.StatusCode)
	}
	ctx := context.Background()
	if _, err := s.Blobs.Put(ctx, "probe", "text/plain", strings.NewReader("kept")); err != nil {
		t.Fatal(err)
	}
	r, err := s.Blobs.Get(ctx, "probe")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	r.Close()
	if string(b) != "kept" {
		t.Fatalf("read back %q", b)
	}
	for _, name := range []string{"agentry.db", "agentry.results.db", filepath.Join("blobs", "probe")} {
		if _, err := os.Stat(filepath.Join(cfg.DataDir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("files beside the data directory: %v", entries)
	}
}
