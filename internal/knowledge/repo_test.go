package knowledge

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// The knowledge tables on both dialects: sources, contents and their
// versions, the atomic chunk swap, and the passages the lexical index reads.
func TestKnowledgeStore(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		acct, other := storetest.NewAccount(t, db), storetest.NewAccount(t, db)
		src, err := repoOn(db).CreateSource(ctx, Source{AccountID: acct, Name: "docs", SourceType: "custom_index", ChunkSize: 1000,
			ChunkOverlap: 100, EmbeddingModel: "offline", Dimensions: 8, ContentFilter: "all"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := repoOn(db).Source(ctx, other, src.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other account reads the source: %v", err)
		}
		var c Content
		if err := db.Tx(ctx, func(tx *sql.Tx) error {
			c, err = repoOn(db).CreateContent(ctx, tx, Content{AccountID: acct, SourceID: src.ID, ContentType: "text/plain",
				Filename: "a.txt", BlobKey: "k", SHA256: "x", Metadata: map[string]any{"lang": "en"}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		chunk := func(text string, vid string) Chunk {
			return Chunk{AccountID: acct, SourceID: src.ID, ContentID: c.ID, VersionID: vid, Text: text, Model: "offline",
				Dims: 2, Vector: []float32{1, 0}, BatchSize: 1}
		}
		if _, err := repoOn(db).SwapChunks(ctx, src.ID, c.ID, c.VersionID, "offline", 8, []Chunk{chunk("the quick brown fox", c.VersionID), chunk("lazy dogs sleep", c.VersionID)}, nil); err != nil {
			t.Fatal(err)
		}
		// The passages the in-process lexical index reads, with their
		// content's heading fields.
		passages := func() []string {
			var out []string
			if err := repoOn(db).SourcePassages(ctx, src.ID, 0, func(r PassageRow) error {
				if r.ContentID != c.ID || r.Metadata == "" {
					t.Errorf("passage row %+v", r)
				}
				out = append(out, r.Text)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		if got := passages(); len(got) != 2 || got[0] != "the quick brown fox" {
			t.Fatalf("passages: %q", got)
		}
		if vs, err := repoOn(db).ChunkVectorsBySeq(ctx, other, []int64{1, 2, 3, 4, 5}); err != nil || len(vs) != 0 {
			t.Fatalf("other account reads vectors: %+v %v", vs, err)
		}
		// A new version: the old chunks stay until the new are swapped in.
		var v2 Content
		if err := db.Tx(ctx, func(tx *sql.Tx) error {
			c.Filename = "b.txt"
			v2, err = repoOn(db).NewContentVersion(ctx, tx, c)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := repoOn(db).SwapChunks(ctx, src.ID, c.ID, c.VersionID, "offline", 8, nil, nil); !errors.Is(err, errStaleVersion) {
			t.Fatalf("stale swap: %v", err)
		}
		if got := passages(); len(got) != 2 {
			t.Fatalf("old version left before the new one was indexed: %q", got)
		}
		// Chunks embedded for another model or size than the source now
		// has (a migration switched meanwhile) are refused.
		if _, err := repoOn(db).SwapChunks(ctx, src.ID, c.ID, v2.VersionID, "offline", 16, []Chunk{chunk("a red squirrel", v2.VersionID)}, nil); !errors.Is(err, errEmbeddingChanged) {
			t.Fatalf("swap with the old embedding size: %v", err)
		}
		removed, err := repoOn(db).SwapChunks(ctx, src.ID, c.ID, v2.VersionID, "offline", 8, []Chunk{chunk("a red squirrel", v2.VersionID)}, nil)
		if err != nil || len(removed) != 2 {
			t.Fatalf("swap: %v %v", removed, err)
		}
		if got := passages(); len(got) != 1 || got[0] != "a red squirrel" {
			t.Fatalf("old version still there: %q", got)
		}
		if seqs, err := repoOn(db).SourceChunkSeqsAbove(ctx, src.ID, 0); err != nil || len(seqs) != 1 {
			t.Fatalf("seqs %v %v", seqs, err)
		}
		got, err := repoOn(db).Content(ctx, acct, c.ID)
		if err != nil || got.Status != ContentIndexed || got.Version != 2 || *got.ChunkCount != 1 {
			t.Fatalf("content: %+v %v", got, err)
		}
		// Deleting the content removes its chunks from the lexical index too.
		if _, _, err := repoOn(db).DeleteContent(ctx, acct, c.ID, false); err != nil {
			t.Fatal(err)
		}
		if got := passages(); len(got) != 0 {
			t.Fatalf("deleted content's passages: %q", got)
		}
	})
}

// A chunk's seq is never reused, even after the newest chunks are deleted:
// the in-process vector index follows the table by seq.
func TestChunkSeqsNeverReused(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		db := storetest.Open(t, d)
		acct := storetest.NewAccount(t, db)
		src, err := repoOn(db).CreateSource(ctx, Source{AccountID: acct, Name: "docs", SourceType: "custom_index", ChunkSize: 1000,
			EmbeddingModel: "offline", Dimensions: 2, ContentFilter: "all"})
		if err != nil {
			t.Fatal(err)
		}
		var c Content
		if err := db.Tx(ctx, func(tx *sql.Tx) error {
			c, err = repoOn(db).CreateContent(ctx, tx, Content{AccountID: acct, SourceID: src.ID, ContentType: "text/plain", Filename: "a.txt", BlobKey: "k", SHA256: "x"})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		chunks := func(vid string) []Chunk {
			return []Chunk{{AccountID: acct, SourceID: src.ID, ContentID: c.ID, VersionID: vid, Text: "a", Model: "offline", Dims: 2, Vector: []float32{1, 0}, BatchSize: 1}}
		}
		first := chunks(c.VersionID)
		if _, err := repoOn(db).SwapChunks(ctx, src.ID, c.ID, c.VersionID, "offline", 2, first, nil); err != nil {
			t.Fatal(err)
		}
		var v2 Content
		if err := db.Tx(ctx, func(tx *sql.Tx) error {
			v2, err = repoOn(db).NewContentVersion(ctx, tx, c)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		second := chunks(v2.VersionID)
		removed, err := repoOn(db).SwapChunks(ctx, src.ID, c.ID, v2.VersionID, "offline", 2, second, nil)
		if err != nil || len(removed) != 1 || removed[0] != first[0].Seq {
			t.Fatalf("swap: %v %v", removed, err)
		}
		if second[0].Seq <= first[0].Seq {
			t.Fatalf("the newest chunk's seq %d was reused by %d", first[0].Seq, second[0].Seq)
		}
	})
}
