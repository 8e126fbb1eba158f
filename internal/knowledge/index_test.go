package knowledge

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/llm/offline"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// Both vector indexes answer the same on the database they serve: the
// in-process one on either database (SQLite's, and PostgreSQL's fallback)
// and pgvector on PostgreSQL. Writes reach them through the chunk swap,
// deletions through Forget or the foreign key.
func TestVectorIndexes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		acct, err := directory.CreateAccount(ctx, db, "personal", "a", 100)
		if err != nil {
			t.Fatal(err)
		}
		src, err := repoOn(db).CreateSource(ctx, Source{AccountID: acct.ID, Name: "s", SourceType: TypeCustomIndex, ChunkSize: 100,
			EmbeddingModel: OfflineEmbeddingModel, Dimensions: 64, ContentFilter: "all"})
		if err != nil {
			t.Fatal(err)
		}
		indexes := map[string]Index{"memory": newMemIndex(db, t.TempDir(), 0)}
		if d == store.Postgres {
			ix, err := OpenIndex(ctx, db, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			if ix.Name() != "pgvector HNSW" {
				t.Fatalf("PostgreSQL with pgvector installed serves %s", ix.Name())
			}
			indexes["pgvector"] = ix
		}
		emb := offline.NewEmbedder(64)
		texts := []string{"sea otters hold hands while sleeping", "rust ownership and borrowing rules", "baking sourdough bread at home"}
		var c Content
		if err := db.Tx(ctx, func(tx *sql.Tx) error {
			c, err = repoOn(db).CreateContent(ctx, tx, Content{AccountID: acct.ID, SourceID: src.ID, ContentType: "text/plain", Filename: "f", BlobKey: "k", SHA256: "x"})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		chunks := make([]Chunk, len(texts))
		for i, tx := range texts {
			chunks[i] = Chunk{AccountID: acct.ID, SourceID: src.ID, ContentID: c.ID, VersionID: c.VersionID, Ordinal: i, Text: tx,
				Model: OfflineEmbeddingModel, Dims: 64, Vector: emb.Embed(tx), BatchSize: 3}
		}
		for _, ix := range indexes {
			if err := ix.Prepare(ctx, 64); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := repoOn(db).SwapChunks(ctx, src.ID, c.ID, c.VersionID, src.EmbeddingModel, src.Dimensions, chunks, func(tx *sql.Tx, _ *sql.Conn, _ []int64, added []Chunk) error {
			for _, ix := range indexes {
				if err := ix.InTx(ctx, tx, added); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		want := chunks[1].Seq
		for name, ix := range indexes {
			hits, err := ix.Search(ctx, acct.ID, []string{src.ID}, OfflineEmbeddingModel, 64, emb.Embed("borrowing in rust"), 2)
			if err != nil || len(hits) == 0 || hits[0].Seq != want || hits[0].Score <= 0 {
				t.Fatalf("%s: %+v %v", name, hits, err)
			}
			if hits, _ := ix.Search(ctx, "other", []string{"not-a-source"}, OfflineEmbeddingModel, 64, emb.Embed("rust"), 2); len(hits) != 0 {
				t.Fatalf("%s: another source matched: %+v", name, hits)
			}
		}
		// A chunk of another model of the same size (a switch's other
		// generation) is never a hit for this model's query.
		if pg, ok := indexes["pgvector"]; ok {
			if _, err := db.W.ExecContext(ctx, `UPDATE kb_chunks SET model = 'next_model' WHERE seq = $1`, want); err != nil {
				t.Fatal(err)
			}
			hits, err := pg.Search(ctx, acct.ID, []string{src.ID}, OfflineEmbeddingModel, 64, emb.Embed("borrowing in rust"), 3)
			if err != nil || len(hits) != 2 {
				t.Fatalf("pgvector across models: %+v %v", hits, err)
			}
			for _, h := range hits {
				if h.Seq == want {
					t.Fatalf("pgvector answered another model's chunk: %+v", hits)
				}
			}
			if hits, _ := pg.Search(ctx, acct.ID, []string{src.ID}, "next_model", 64, emb.Embed("borrowing in rust"), 3); len(hits) != 1 || hits[0].Seq != want {
				t.Fatalf("pgvector for the other model: %+v", hits)
			}
		}
		_, seqs, err := repoOn(db).DeleteContent(ctx, acct.ID, c.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		for name, ix := range indexes {
			ix.Forget(src.ID, seqs)
			hits, err := ix.Search(ctx, acct.ID, []string{src.ID}, OfflineEmbeddingModel, 64, emb.Embed("borrowing in rust"), 2)
			if err != nil || len(hits) != 0 {
				t.Fatalf("%s after delete: %+v %v", name, hits, err)
			}
		}
	})
}

// The in-process index survives a restart through its snapshot, and the
// snapshot is only a head start: chunks deleted and added while no process
// held it (or after it was written) are reconciled on load, and a damaged
// snapshot is rebuilt from the database.
func TestMemIndexSnapshot(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		acct, err := directory.CreateAccount(ctx, db, "personal", "a", 100)
		if err != nil {
			t.Fatal(err)
		}
		src, err := repoOn(db).CreateSource(ctx, Source{AccountID: acct.ID, Name: "s", SourceType: TypeCustomIndex, ChunkSize: 100,
			EmbeddingModel: OfflineEmbeddingModel, Dimensions: 64, ContentFilter: "all"})
		if err != nil {
			t.Fatal(err)
		}
		emb := offline.NewEmbedder(64)
		put := func(texts ...string) (Content, []Chunk) {
			var c Content
			if err := db.Tx(ctx, func(tx *sql.Tx) error {
				c, err = repoOn(db).CreateContent(ctx, tx, Content{AccountID: acct.ID, SourceID: src.ID, ContentType: "text/plain", Filename: "f", BlobKey: "k", SHA256: "x"})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			chunks := make([]Chunk, len(texts))
			for i, tx := range texts {
				chunks[i] = Chunk{AccountID: acct.ID, SourceID: src.ID, ContentID: c.ID, VersionID: c.VersionID, Ordinal: i, Text: tx,
					Model: OfflineEmbeddingModel, Dims: 64, Vector: emb.Embed(tx), BatchSize: 1}
			}
			if _, err := repoOn(db).SwapChunks(ctx, src.ID, c.ID, c.VersionID, src.EmbeddingModel, src.Dimensions, chunks, nil); err != nil {
				t.Fatal(err)
			}
			return c, chunks
		}
		top := func(ix *memIndex, q string) int64 {
			hits, err := ix.Search(ctx, acct.ID, []string{src.ID}, OfflineEmbeddingModel, 64, emb.Embed(q), 1)
			if err != nil || len(hits) == 0 {
				t.Fatalf("search %q: %v %v", q, hits, err)
			}
			return hits[0].Seq
		}
		otters, oc := put("sea otters hold hands while sleeping", "otters use stones as tools")
		_, rc := put("rust ownership and borrowing rules")
		dir := t.TempDir()
		first := newMemIndex(db, dir, 0)
		if got := top(first, "borrowing in rust"); got != rc[0].Seq {
			t.Fatalf("first process: %d", got)
		}
		first.Flush()
		if _, err := os.Stat(filepath.Join(dir, src.ID+".hnsw")); err != nil {
			t.Fatalf("no snapshot: %v", err)
		}
		// While no process holds the index: one content goes, one comes.
		if _, _, err := repoOn(db).DeleteContent(ctx, acct.ID, otters.ID, false); err != nil {
			t.Fatal(err)
		}
		_, bc := put("baking sourdough bread at home")
		second := newMemIndex(db, dir, 0)
		if got := top(second, "sourdough bread"); got != bc[0].Seq {
			t.Fatalf("after restart, the chunk added meanwhile: %d", got)
		}
		if n := second.Loaded(src.ID); n != 2 {
			t.Fatalf("after restart the index holds %d vectors, want 2 (the deleted content's %d dropped)", n, len(oc))
		}
		if got := top(second, "otters holding hands"); got == oc[0].Seq || got == oc[1].Seq {
			t.Fatal("a chunk deleted while the index was down was found")
		}
		// A damaged snapshot is rebuilt from the database.
		second.Flush() // its background write could land after the garbage
		if err := os.WriteFile(filepath.Join(dir, src.ID+".hnsw"), []byte("AGRYHNSW garbage"), 0o600); err != nil {
			t.Fatal(err)
		}
		third := newMemIndex(db, dir, 0)
		if got := top(third, "borrowing in rust"); got != rc[0].Seq || third.Loaded(src.ID) != 2 {
			t.Fatalf("after a damaged snapshot: %d, %d vectors", got, third.Loaded(src.ID))
		}
		third.Flush()
		// A deleted source leaves no snapshot behind.
		third.Drop(src.ID)
		if _, err := os.Stat(filepath.Join(dir, src.ID+".hnsw")); !os.IsNotExist(err) {
			t.Fatalf("snapshot of a dropped source: %v", err)
		}
	})
}

// vectorQuery searches sources through m and returns the hits.
func vectorQuery(t *testing.T, m *memIndex, sourceIDs []string, q string) []VectorHit {
	t.Helper()
	hits, err := m.Search(context.Background(), "", sourceIDs, OfflineEmbeddingModel, 64, offline.NewEmbedder(64).Embed(q), 10)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// With a budget smaller than two sources' graphs, searching A then B
// unloads A; A's results are the same once it is loaded again, and a
// removal that arrives while A is unloaded is not lost.
func TestMemIndexEvictsLeastRecentlySearched(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		f := newLexFixture(t, d)
		a := f.source(t, "a", passages("alpha", 40))
		b := f.source(t, "b", passages("beta", 40))

		unbounded := newMemIndex(f.db, "", 0)
		wantA := vectorQuery(t, unbounded, []string{a}, "otters kelp number7")
		if len(wantA) == 0 {
			t.Fatal("no hits in A")
		}
		one := memEntryBytes + presentBytes*40 + unbounded.m[a].ix.SizeBytes()

		m := newMemIndex(f.db, "", one+one/2) // room for one source, not two
		if got := vectorQuery(t, m, []string{a}, "otters kelp number7"); !reflect.DeepEqual(got, wantA) {
			t.Fatalf("first search of A: %+v, want %+v", got, wantA)
		}
		if got := m.loadedSources(); !reflect.DeepEqual(got, []string{a}) {
			t.Fatalf("loaded after A: %v", got)
		}
		vectorQuery(t, m, []string{b}, "otters")
		if got := m.loadedSources(); !reflect.DeepEqual(got, []string{b}) {
			t.Fatalf("loaded after B: %v, want only B (A unloaded)", got)
		}
		if got := vectorQuery(t, m, []string{a}, "otters kelp number7"); !reflect.DeepEqual(got, wantA) {
			t.Fatalf("A reloaded: %+v, want %+v", got, wantA)
		}
		// A search over both keeps the one it searched last.
		vectorQuery(t, m, []string{a, b}, "otters")
		if got := m.loadedSources(); !reflect.DeepEqual(got, []string{b}) {
			t.Fatalf("loaded after searching A and B: %v, want B", got)
		}

		// Remove A's passage 7 while A is unloaded.
		texts := passages("alpha", 40)
		removed := f.swap(t, a, append(texts[:7:7], texts[8:]...))
		if len(removed) == 0 {
			t.Fatal("the swap removed nothing")
		}
		m.Forget(a, removed)
		want := vectorQuery(t, newMemIndex(f.db, "", 0), []string{a}, "otters kelp number7")
		gone := map[int64]bool{}
		for _, s := range removed {
			gone[s] = true
		}
		for _, h := range want {
			if gone[h.Seq] {
				t.Fatalf("a removed chunk is still found by a fresh index: %+v", want)
			}
		}
		if got := vectorQuery(t, m, []string{a}, "otters kelp number7"); !reflect.DeepEqual(got, want) {
			t.Fatalf("A after a removal while unloaded: %+v, want %+v", got, want)
		}
	})
}

// Many searched sources stay under the budget, however many a tenant has.
func TestMemIndexBoundsManySources(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		f := newLexFixture(t, d)
		var ids []string
		for i := range 12 {
			ids = append(ids, f.source(t, "s"+strconv.Itoa(i), passages("s"+strconv.Itoa(i), 10)))
		}
		probe := newMemIndex(f.db, "", 0)
		vectorQuery(t, probe, ids[:1], "otters")
		one := memEntryBytes + presentBytes*10 + probe.m[ids[0]].ix.SizeBytes()
		m := newMemIndex(f.db, "", 3*one)
		for _, id := range ids {
			if hits := vectorQuery(t, m, []string{id}, "otters"); len(hits) == 0 {
				t.Fatalf("no hits in %s", id)
			}
			if n := len(m.loadedSources()); n > 3 {
				t.Fatalf("%d sources held under a budget of 3", n)
			}
		}
	})
}
