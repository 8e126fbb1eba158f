package api_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentry/agentry/internal/knowledge"
	"github.com/agentry/agentry/internal/llm/offline"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
	"github.com/agentry/agentry/internal/testserver"
)

// bulkSource stores a custom_index source of n chunks straight through
// the store (ingesting that many through the API would take minutes).
func bulkSource(t *testing.T, s *testserver.Server, n int) string {
	t.Helper()
	ctx := context.Background()
	const dims = 256
	src, err := knowledge.TestRows(s.DB).CreateSource(ctx, knowledge.Source{AccountID: s.AccountID, Name: "bulk", SourceType: knowledge.TypeCustomIndex, ChunkSize: 3000,
		ChunkOverlap: 500, EmbeddingModel: knowledge.OfflineEmbeddingModel, Dimensions: dims, ContentFilter: "all"})
	if err != nil {
		t.Fatal(err)
	}
	emb := offline.NewEmbedder(dims)
	r := rand.New(rand.NewSource(1))
	words := strings.Fields("otter river stone water hand sleep float kelp shell sea current tide fur den pup play dive fish clam rock")
	const perContent = 200
	for start := 0; start < n; start += perContent {
		var c knowledge.Content
		if err := s.DB.Tx(ctx, func(tx *sql.Tx) error {
			title := fmt.Sprint("part ", start)
			c, err = knowledge.TestRows(s.DB).CreateContent(ctx, tx, knowledge.Content{AccountID: s.AccountID, SourceID: src.ID, ContentType: "text/plain", Filename: "f.txt",
				BlobKey: "k", SHA256: fmt.Sprint(start), Title: &title})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var chunks []knowledge.Chunk
		for i := start; i < min(n, start+perContent); i++ {
			var b strings.Builder
			for w := 0; w < 60; w++ {
				b.WriteString(words[r.Intn(len(words))] + " ")
			}
			text := b.String()
			chunks = append(chunks, knowledge.Chunk{AccountID: s.AccountID, SourceID: src.ID, ContentID: c.ID, VersionID: c.VersionID,
				Ordinal: i - start, Text: text, Model: knowledge.OfflineEmbeddingModel, Dims: dims, Vector: emb.Embed(text), BatchSize: perContent})
		}
		if _, err := knowledge.TestRows(s.DB).SwapChunks(ctx, src.ID, c.ID, c.VersionID, knowledge.OfflineEmbeddingModel, dims, chunks, nil); err != nil {
			t.Fatal(err)
		}
	}
	return src.ID
}

// TestEmbeddingMigrationSwitchLeavesWritesFree (issue 30 item 6): the
// switch of a large source used to rewrite every chunk in one write
// transaction, stalling every tenant's writes on SQLite, and the new
// vector graph was built by the first search after it. Now the switch goes
// in steps of 100 chunks and the graph is built by the migration job: while
// a 12,000-chunk source switches, another account's run creations stay
// fast, and the first search after the switch does not build anything.
// On a 2-core VM (SQLite), with run creations every 25 ms, over three
// runs each: the old code's slowest creation 593-1022 ms, its first
// search 144-447 ms (the graph built in it), no moment with part of the
// chunks switched; now 128-297 ms and 105 ms, the graph built by the job.
func TestEmbeddingMigrationSwitchLeavesWritesFree(t *testing.T) {
	if raceEnabled {
		// Its figures are times at scale; the race detector slows the
		// 12,000-chunk switch past every bound. It runs in the suite
		// without the detector, on both databases.
		t.Skip("a timing test at scale: run without -race")
	}
	// Not in parallel, not even its two databases' cases with each other:
	// it measures times. Side by side, another account's slowest write on
	// PostgreSQL took 1.4 s in CI (bound 1 s; 70 ms alone).
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		s := testserver.Start(t, d)
		// SQLite's one writer is what a long switch stalls; PostgreSQL,
		// which maintains pgvector's graph row by row, gets a smaller
		// source to keep the suite's time.
		n := 12000
		if d == store.Postgres {
			n = 3000
		}
		sid := bulkSource(t, s, n)
		r := s.Do(t, "POST", "/knowledge_bases", s.Key, map[string]any{"name": "KB", "source_ids": []string{sid}})
		wantStatus(t, r, http.StatusCreated)
		var kb map[string]any
		r.JSON(t, &kb)
		kbID := kb["id"].(string)
		search(t, s, s.Key, kbID, map[string]any{"query": "otter kelp"}) // the old graph is loaded

		other := s.NewTenant(t, "other")
		agent := makeAgent(t, s, other.AccountID, `{"child_steps":[{"id":"hi","step_type":"text","text":"hello"}]}`)
		// Another tenant writes every 25 ms: first for a second alone, to see
		// how long a write takes on this machine as loaded as it is, then all
		// through the migration.
		writeEvery25ms := func(stop <-chan struct{}) (slowest *time.Duration, writes *int, done *sync.WaitGroup) {
			var mu sync.Mutex
			slowest, writes, done = new(time.Duration), new(int), &sync.WaitGroup{}
			done.Add(1)
			go func() {
				defer done.Done()
				tick := time.NewTicker(25 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
					}
					began := time.Now()
					r := s.Do(t, "POST", "/agents/"+agent+"/runs", other.Key, map[string]any{"input": "x"})
					took := time.Since(began)
					if r.Status != http.StatusOK {
						t.Errorf("run creation: %d %s", r.Status, r.Body)
						return
					}
					mu.Lock()
					*slowest, *writes = max(*slowest, took), *writes+1
					mu.Unlock()
				}
			}()
			return slowest, writes, done
		}
		stopAlone := make(chan struct{})
		aloneSlowest, _, aloneDone := writeEvery25ms(stopAlone)
		time.Sleep(time.Second) // a fixed sample of the machine, not a wait for a condition
		close(stopAlone)
		aloneDone.Wait()
		stop := make(chan struct{})
		slowestP, writesP, wg := writeEvery25ms(stop)
		began := time.Now()
		r = s.Do(t, "POST", "/sources/"+sid+"/embedding-migration", s.Key, map[string]any{"target_embedding_model": knowledge.OfflineEmbeddingModel, "target_dimensions": 128})
		wantStatus(t, r, http.StatusOK)
		// Watched from outside: the switch goes in steps, so some moment
		// shows part of the chunks switched; one transaction never did.
		var m map[string]any
		partial := 0
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
			r := s.Do(t, "GET", "/sources/"+sid+"/embedding-migration", s.Key, nil)
			r.JSON(t, &m)
			st := m["status"]
			if st == "completed" || st == "failed" || st == "cancelled" {
				break
			}
			// Counted while it switches only: the count reads every chunk's
			// row, and polled all along it took a core from the migration it
			// watches (24 s of CPU in 90 s on SQLite).
			if st == "switching" {
				var switched int
				if err := s.DB.R.QueryRow(`SELECT COUNT(*) FROM kb_chunks WHERE source_id = $1 AND dims = 128`, sid).Scan(&switched); err != nil {
					t.Fatal(err)
				}
				if switched > 0 && switched < n {
					partial++
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("migration still %v", m["status"])
			}
		}
		migrated := time.Since(began)
		close(stop)
		wg.Wait()
		slowest, writes := *slowestP, *writesP
		if m["status"] != "completed" {
			t.Fatalf("migration: %v", m)
		}
		// The job built the new graph: no search has run since the switch.
		if got, inProcess := s.S.Knowledge.VectorsLoaded(sid); inProcess && got != n {
			t.Errorf("the in-process graph holds %d vectors after the switch, before any search; want the %d the job built", got, n)
		}
		began = time.Now()
		res := search(t, s, s.Key, kbID, map[string]any{"query": "otter kelp"})
		firstSearch := time.Since(began)
		t.Logf("%s: %d chunks migrated in %s; %d run creations of another account meanwhile, the slowest %s (%s alone before); first search after it %s",
			d, n, migrated.Round(time.Millisecond), writes, slowest.Round(time.Millisecond), aloneSlowest.Round(time.Millisecond), firstSearch.Round(time.Millisecond))
		if len(res.Results) == 0 {
			t.Error("no results after the switch")
		}
		if partial == 0 {
			t.Error("no moment of the switch showed part of the chunks switched: it ran as one transaction")
		}
		// Under 1 s, or on a machine so loaded that a write alone took more
		// than a quarter of a second, under four times that: the bound is on
		// what the switch adds, not on the machine's load. (One switch
		// transaction held every write for 0.6–1 s on a quiet machine, and
		// that also shows as no partial moment above.) SQLite only: its one
		// writer is what a long switch stalls. On PostgreSQL another
		// account's writes wait on no lock of the switch, whatever its
		// transactions, so there the figure only measured how much CPU
		// pgvector's graph inserts left (1.04–1.17 s in two CI runs on
		// two cores): it is logged above, not bounded.
		bound := max(time.Second, 4**aloneSlowest)
		if d == store.SQLite && slowest > bound {
			t.Errorf("another account's run creation took %s during the switch (%s alone before it); want under %s", slowest, *aloneSlowest, bound)
		}
		if firstSearch > time.Second {
			t.Errorf("the first search after the switch took %s; want under 1 s (the graph is built by the job)", firstSearch)
		}
		var seqs int
		if err := knowledge.TestRows(s.DB).SourceVectors(context.Background(), sid, 0, func(v knowledge.VectorRow) error {
			if v.Dims != 128 {
				t.Errorf("chunk %d has %d dimensions", v.Seq, v.Dims)
			}
			seqs++
			return nil
		}); err != nil || seqs != n {
			t.Fatalf("%d vectors after the switch, want %d: %v", seqs, n, err)
		}
		var all int
		if err := s.DB.R.QueryRow(`SELECT COUNT(*) FROM kb_chunks WHERE source_id = $1`, sid).Scan(&all); err != nil || all != n {
			t.Fatalf("%d chunks stored after the switch, want %d: %v", all, n, err)
		}
	})
}
