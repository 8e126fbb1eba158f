package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/auth"
	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestIndexingSurvivesKill uploads documents, kills the serving process
// with SIGKILL while their indexing jobs are queued or running, restarts
// it, and expects every content indexed exactly once, with its passages
// searchable: a content is recorded with its job in one transaction, and
// an interrupted job is rescued and run again.
func TestIndexingSurvivesKill(t *testing.T) {
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
		// The rescuer takes the killed process's jobs once they have run
		// longer than the rescue interval, which must exceed the job
		// timeout; a timeout of 5 s made CPU-starved jobs fail and back off
		// past the deadline on a loaded CI machine (stop 40), 10 s gives
		// one document's indexing room at the cost of 6 s more waiting.
		env := []string{"SERVICE_JOB_TIMEOUT=10s", "SERVICE_JOB_RESCUE_AFTER=12s", "SERVICE_BOOTSTRAP_API_KEY=" + e2eKey, "SERVICE_MAX_WORKERS=2"}
		c := startServe(t, dbURL, dataDir, env...)
		resp := apiPost(t, c.addr, "/sources", `{"name":"docs","source_type":"custom_index","index_mode":"slow_and_thorough"}`)
		var src struct{ ID string }
		json.NewDecoder(resp.Body).Decode(&src)
		resp.Body.Close()
		// PostgreSQL indexes a tenth as fast: pgvector's HNSW graph
		// (m = 24, ef_construction = 200) takes 5–30 ms a vector, in the
		// transaction that holds the source's row, where SQLite's index is
		// built in memory. A third of the documents still leaves nearly all
		// of them unindexed at the kill (29 of 30 did), and saves about a
		// minute of the suite's serial time.
		docs := 30
		if d == store.Postgres {
			docs = 10
		}
		ids := make([]string, 0, docs)
		for i := 0; i < docs; i++ {
			// ~100 KB of distinct text each: enough passages that indexing
			// is still under way at the kill, few enough that one job ends
			// well inside the 10 s job timeout on a loaded machine.
			var text strings.Builder
			for j := 0; text.Len() < 100_000; j++ {
				fmt.Fprintf(&text, "Document %d paragraph %d talks about topic%d and keyword%d in some detail.\n\n", i, j, j%97, i*1000+j)
			}
			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			w, _ := mw.CreateFormFile("file", fmt.Sprintf("doc%d.txt", i))
			io.WriteString(w, text.String())
			mw.Close()
			req, _ := http.NewRequest("POST", "http://"+c.addr+"/sources/"+src.ID+"/upload", &buf)
			req.Header.Set("X-API-Key", e2eKey)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			r, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var up struct {
				ID string `json:"source_connection_content_version_id"`
			}
			json.NewDecoder(r.Body).Decode(&up)
			r.Body.Close()
			if r.StatusCode != http.StatusOK || up.ID == "" {
				t.Fatalf("upload %d: %d", i, r.StatusCode)
			}
			ids = append(ids, up.ID)
		}
		db, err := store.Open(ctx, dbURL, dataDir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		k, err := auth.APIKeyByHash(ctx, db, auth.HashKey(e2eKey))
		if err != nil {
			t.Fatal(err)
		}
		// pending counts the contents not yet indexed and says why each is
		// not, so a failure shows whether a job was lost or is backing off.
		pending := func() (int, string) {
			n, why := 0, ""
			for _, id := range ids {
				c, err := knowledge.TestRows(db).Content(ctx, k.AccountID, id)
				if err != nil {
					t.Fatal(err)
				}
				if c.Status != knowledge.ContentIndexed {
					n++
					why += fmt.Sprintf("\n%s: %s", id, c.Status)
					if c.Error != nil {
						why += " (" + *c.Error + ")"
					}
				}
			}
			return n, why
		}
		before, _ := pending()
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		c.cmd.Wait()
		if before == 0 {
			t.Skip("the machine indexed everything before the kill; nothing was interrupted")
		}
		t.Logf("killed with %d of %d contents not yet indexed", before, docs)
		startServe(t, dbURL, dataDir, env...)
		deadline := time.Now().Add(180 * time.Second)
		for n, why := pending(); n > 0; n, why = pending() {
			if time.Now().After(deadline) {
				t.Fatalf("%d contents still not indexed after the restart:%s", n, why)
			}
			time.Sleep(200 * time.Millisecond)
		}
		for _, id := range ids {
			c, err := knowledge.TestRows(db).Content(ctx, k.AccountID, id)
			if err != nil {
				t.Fatal(err)
			}
			chunks, total, err := knowledge.TestRows(db).ContentChunks(ctx, k.AccountID, id, 0, 1)
			if err != nil || total == 0 || total != *c.ChunkCount || len(chunks) != 1 || c.Version != 1 {
				t.Fatalf("content %s: %d chunks for %v recorded (%v)", id, total, c.ChunkCount, err)
			}
		}
	})
}
