package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/blob"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/knowledge/exports"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestExportFinishesAfterKill kills the process while an export is being
// written, restarts it, and expects the export to complete with every
// content, the half-written file replaced by a whole one.
func TestExportFinishesAfterKill(t *testing.T) {
	// Not in parallel with the other tests: its jobs do real work against
	// a job timeout of a few seconds, which other tests' processes would
	// make it miss. Its two databases' cases, one process each, run side
	// by side: two such processes leave each job its time.
	if testing.Short() {
		t.Skip("starts child processes and waits for the job rescuer")
	}
	storetest.EachParallel(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		dbURL, dataDir := storetest.URL(t, d), t.TempDir()
		blobDir := filepath.Join(dataDir, "blobs")
		if err := os.MkdirAll(blobDir, 0o755); err != nil {
			t.Fatal(err)
		}
		blobURL := "file://" + filepath.ToSlash(blobDir)
		env := []string{"SERVICE_JOB_TIMEOUT=15s", "SERVICE_JOB_RESCUE_AFTER=20s", "SERVICE_BOOTSTRAP_API_KEY=" + e2eKey, "SERVICE_BLOB_URL=" + blobURL}
		c := startServe(t, dbURL, dataDir, env...)
		db, err := store.Open(ctx, dbURL, dataDir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		blobs, err := blob.Open(ctx, blobURL)
		if err != nil {
			t.Fatal(err)
		}
		defer blobs.Close()
		// The export as the server stores it, read through its area.
		sx := exports.New(db, blobs, nil)
		k, err := auth.APIKeyByHash(ctx, db, auth.HashKey(e2eKey))
		if err != nil {
			t.Fatal(err)
		}
		// Enough text that writing it takes a while: 2,000 contents sharing
		// one 128 KiB text.
		src, err := knowledge.TestRows(db).CreateSource(ctx, knowledge.Source{AccountID: k.AccountID, Name: "big", SourceType: "custom_index",
			ChunkSize: 1000, ChunkOverlap: 100, EmbeddingModel: "offline", Dimensions: 384, ContentFilter: "all"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := blobs.Put(ctx, "e2e/text.txt", "text/plain", strings.NewReader(strings.Repeat("all work and no play ", 128<<10/21))); err != nil {
			t.Fatal(err)
		}
		const n = 2000
		textKey := "e2e/text.txt"
		if err := db.Tx(ctx, func(tx *sql.Tx) error {
			for i := range n {
				if _, err := knowledge.TestRows(db).CreateContent(ctx, tx, knowledge.Content{AccountID: k.AccountID, SourceID: src.ID, ContentType: "text/plain",
					ContentURL: "inline://x", Filename: "x.txt", BlobKey: textKey, SHA256: store.NewID(), SizeBytes: 128 << 10,
					Metadata: map[string]any{"i": i}}); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}

		resp := apiPost(t, c.addr, "/sources/"+src.ID+"/exports", `{"format":"jsonl"}`)
		var e struct{ ID string }
		json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("create: %d", resp.StatusCode)
		}
		// Kill once the export is under way.
		for deadline := time.Now().Add(30 * time.Second); ; {
			x, err := sx.Get(ctx, k.AccountID, src.ID, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			if x.Status == exports.ExportCompleted {
				t.Fatalf("the export finished before the kill; give it more to write")
			}
			if x.Status == exports.ExportRunning && x.ProgressCurrent > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("export still %s at %d\n%s", x.Status, x.ProgressCurrent, c.logs)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = c.cmd.Wait()
		if x, _ := sx.Get(ctx, k.AccountID, src.ID, e.ID); x.Status != exports.ExportRunning || x.ProgressCurrent >= n {
			t.Fatalf("after the kill the export is %s at %d", x.Status, x.ProgressCurrent)
		}

		c = startServe(t, dbURL, dataDir, env...)
		var x exports.SourceExport
		for deadline := time.Now().Add(100 * time.Second); ; {
			if x, err = sx.Get(ctx, k.AccountID, src.ID, e.ID); err != nil {
				t.Fatal(err)
			}
			if x.Status != exports.ExportPending && x.Status != exports.ExportRunning {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("export still %s after restart\n%s", x.Status, c.logs)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if x.Status != exports.ExportCompleted || x.ItemCount == nil || *x.ItemCount != n {
			t.Fatalf("export %s, items %v, error %v", x.Status, x.ItemCount, x.Error)
		}
		req, _ := http.NewRequest("GET", "http://"+c.addr+"/sources/"+src.ID+"/exports/"+e.ID+"/download", nil)
		req.Header.Set("X-API-Key", e2eKey)
		dl, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer dl.Body.Close()
		sc := bufio.NewScanner(dl.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		lines := 0
		for sc.Scan() {
			lines++
		}
		if err := sc.Err(); err != nil || lines != n {
			t.Fatalf("downloaded %d lines (%v), want %d", lines, err, n)
		}
	})
}
