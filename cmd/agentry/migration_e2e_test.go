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

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// TestMigrationSurvivesKill indexes documents, starts an embedding
// migration to another size, kills the serving process with SIGKILL while
// the migration is embedding, restarts it, and expects the migration to
// finish from where it was (staged vectors are committed per batch): every
// passage ends with a vector of the new size, none of the old, and the
// source switched; search answers from the new vectors.
func TestMigrationSurvivesKill(t *testing.T) {
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
		env := []string{"SERVICE_JOB_TIMEOUT=20s", "SERVICE_JOB_RESCUE_AFTER=25s", "SERVICE_BOOTSTRAP_API_KEY=" + e2eKey, "SERVICE_MAX_WORKERS=2"}
		c := startServe(t, dbURL, dataDir, env...)
		resp := apiPost(t, c.addr, "/sources", `{"name":"docs","source_type":"custom_index","index_mode":"slow_and_thorough"}`)
		var src struct{ ID string }
		json.NewDecoder(resp.Body).Decode(&src)
		resp.Body.Close()
		// PostgreSQL indexes and migrates a tenth as fast (pgvector's HNSW
		// graph, m = 24, ef_construction = 200, takes 5–30 ms a vector): a
		// third of the documents there. The kill comes with the first staged
		// batch (64 passages, of about 3,600 for 24 documents and 1,200 for
		// 8), so it still lands early in the migration; the test skips
		// rather than passes if the migration ever finishes first.
		docs := 24
		if d == store.Postgres {
			docs = 8
		}
		for i := 0; i < docs; i++ {
			var text strings.Builder
			for j := 0; text.Len() < 120_000; j++ {
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
			r.Body.Close()
			if r.StatusCode != http.StatusOK {
				t.Fatalf("upload %d: %d", i, r.StatusCode)
			}
		}
		db, err := store.Open(ctx, dbURL, dataDir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		count := func(q string, args ...any) int {
			var n int
			if err := db.R.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		deadline := time.Now().Add(180 * time.Second)
		for count(`SELECT COUNT(*) FROM contents WHERE source_id = $1 AND status <> $2`, src.ID, knowledge.ContentIndexed) > 0 {
			if time.Now().After(deadline) {
				t.Fatal("the documents were not indexed")
			}
			time.Sleep(100 * time.Millisecond)
		}
		passages := count(`SELECT COUNT(*) FROM kb_chunks WHERE source_id = $1`, src.ID)
		oldDims := count(`SELECT dimensions FROM sources WHERE id = $1`, src.ID)
		newDims := 96
		r := apiPost(t, c.addr, "/sources/"+src.ID+"/embedding-migration",
			fmt.Sprintf(`{"target_embedding_model":"agentry_offline_embed","target_dimensions":%d}`, newDims))
		r.Body.Close()
		if r.StatusCode >= 300 {
			t.Fatalf("start migration: %d", r.StatusCode)
		}
		// Kill once some vectors are staged, before the switch.
		for count(`SELECT COUNT(*) FROM embedding_migration_vectors`) == 0 &&
			count(`SELECT COUNT(*) FROM embedding_migrations WHERE source_id = $1 AND status = $2`, src.ID, knowledge.MigrationCompleted) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		c.cmd.Wait()
		if count(`SELECT COUNT(*) FROM embedding_migrations WHERE source_id = $1 AND status = $2`, src.ID, knowledge.MigrationCompleted) > 0 {
			t.Skip("the machine finished the migration before the kill; nothing was interrupted")
		}
		t.Logf("killed with %d of %d passages staged", count(`SELECT COUNT(*) FROM embedding_migration_vectors`), passages)
		c = startServe(t, dbURL, dataDir, env...)
		deadline = time.Now().Add(240 * time.Second)
		for count(`SELECT COUNT(*) FROM embedding_migrations WHERE source_id = $1 AND status = $2`, src.ID, knowledge.MigrationCompleted) == 0 {
			var status string
			db.R.QueryRowContext(ctx, `SELECT status FROM embedding_migrations WHERE source_id = $1`, src.ID).Scan(&status)
			if status == knowledge.MigrationFailed || status == knowledge.MigrationCancelled || time.Now().After(deadline) {
				t.Fatalf("migration %s after the restart", status)
			}
			time.Sleep(200 * time.Millisecond)
		}
		if got := count(`SELECT COUNT(*) FROM kb_chunks WHERE source_id = $1 AND dims = $2`, src.ID, newDims); got != passages {
			t.Fatalf("%d of %d passages have the new size", got, passages)
		}
		if n := count(`SELECT COUNT(*) FROM kb_chunks WHERE source_id = $1 AND dims = $2`, src.ID, oldDims); n != 0 {
			t.Fatalf("%d passages kept the old size", n)
		}
		if got := count(`SELECT dimensions FROM sources WHERE id = $1`, src.ID); got != newDims {
			t.Fatalf("source dimensions %d", got)
		}
		if n := count(`SELECT COUNT(*) FROM embedding_migration_vectors`); n != 0 {
			t.Fatalf("%d staged vectors left behind", n)
		}
		// Search answers from the new vectors.
		r = apiPost(t, c.addr, "/knowledge_bases", fmt.Sprintf(`{"name":"kb","source_ids":[%q]}`, src.ID))
		var kb struct{ ID string }
		json.NewDecoder(r.Body).Decode(&kb)
		r.Body.Close()
		r = apiPost(t, c.addr, "/knowledge_bases/"+kb.ID+"/search", `{"query":"keyword5007"}`)
		var res struct {
			Results []struct{ Text string } `json:"results"`
		}
		json.NewDecoder(r.Body).Decode(&res)
		r.Body.Close()
		found := false
		for _, h := range res.Results {
			found = found || strings.Contains(h.Text, "keyword5007")
		}
		if r.StatusCode != http.StatusOK || !found {
			t.Fatalf("search after the migration: %d, %d results, none with the keyword", r.StatusCode, len(res.Results))
		}
	})
}
