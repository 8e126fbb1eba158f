package knowledge

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/agentry/agentry/internal/accounts/directory"
	"github.com/agentry/agentry/internal/knowledge/lexical"
	"github.com/agentry/agentry/internal/llm/offline"
	"github.com/agentry/agentry/internal/store"
	"github.com/agentry/agentry/internal/store/storetest"
)

// lexFixture is an account with sources of stored passages.
type lexFixture struct {
	db      *store.DB
	account string
	content map[string]Content // source → its one content
}

func newLexFixture(t *testing.T, d store.Dialect) *lexFixture {
	t.Helper()
	db := storetest.Open(t, d)
	acct, err := directory.CreateAccount(context.Background(), db, "personal", "a", 100)
	if err != nil {
		t.Fatal(err)
	}
	return &lexFixture{db: db, account: acct.ID, content: map[string]Content{}}
}

// source creates a source whose one content has texts as passages.
func (f *lexFixture) source(t *testing.T, name string, texts []string) string {
	t.Helper()
	ctx := context.Background()
	src, err := repoOn(f.db).CreateSource(ctx, Source{AccountID: f.account, Name: name, SourceType: TypeCustomIndex, ChunkSize: 100,
		EmbeddingModel: OfflineEmbeddingModel, Dimensions: 64, ContentFilter: "all"})
	if err != nil {
		t.Fatal(err)
	}
	var c Content
	if err := f.db.Tx(ctx, func(tx *sql.Tx) error {
		c, err = repoOn(f.db).CreateContent(ctx, tx, Content{AccountID: f.account, SourceID: src.ID, ContentType: "text/plain", Filename: name, BlobKey: name, SHA256: name})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	f.content[src.ID] = c
	f.swap(t, src.ID, texts)
	return src.ID
}

// swap replaces the source's passages by texts, returning the removed seqs.
func (f *lexFixture) swap(t *testing.T, sourceID string, texts []string) []int64 {
	t.Helper()
	c := f.content[sourceID]
	emb := offline.NewEmbedder(64)
	chunks := make([]Chunk, len(texts))
	for i, tx := range texts {
		chunks[i] = Chunk{AccountID: f.account, SourceID: sourceID, ContentID: c.ID, VersionID: c.VersionID, Ordinal: i, Text: tx,
			Model: OfflineEmbeddingModel, Dims: 64, Vector: emb.Embed(tx), BatchSize: len(texts)}
	}
	removed, err := repoOn(f.db).SwapChunks(context.Background(), sourceID, c.ID, c.VersionID, OfflineEmbeddingModel, 64, chunks, nil)
	if err != nil {
		t.Fatal(err)
	}
	return removed
}

// lexQuery searches sources through l the way a search does and returns
// the hits' texts-independent identity: seq and score.
func lexQuery(t *testing.T, l *lexIndex, sourceIDs []string, q string) []sourcedHit {
	t.Helper()
	idxs, done, err := l.Indexes(context.Background(), sourceIDs)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	terms := lexical.ParseQuery(q)
	return lexSearch(idxs, sourceIDs, lexPlan(idxs, terms), nil, 10, nil)
}

func passages(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s passage %d about otters rivers and kelp forests number%d", prefix, i, i)
	}
	return out
}

// With a budget smaller than two sources, searching A then B unloads A;
// A's results are the same once it is loaded again, and a removal that
// arrives while A is unloaded is not lost.
func TestLexIndexEvictsLeastRecentlySearched(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		f := newLexFixture(t, d)
		a := f.source(t, "a", passages("alpha", 40))
		b := f.source(t, "b", passages("beta", 40))

		unbounded := newLexIndex(f.db, 0)
		wantA := lexQuery(t, unbounded, []string{a}, "otters kelp number7")
		if len(wantA) == 0 {
			t.Fatal("no hits in A")
		}
		one := unbounded.m[a].ix.SizeBytes()
		if one <= 0 {
			t.Fatalf("size estimate %d", one)
		}

		l := newLexIndex(f.db, one+one/2) // room for one source, not two
		if got := lexQuery(t, l, []string{a}, "otters kelp number7"); !reflect.DeepEqual(got, wantA) {
			t.Fatalf("first search of A: %+v, want %+v", got, wantA)
		}
		if got := l.loadedSources(); !reflect.DeepEqual(got, []string{a}) {
			t.Fatalf("loaded after A: %v", got)
		}
		lexQuery(t, l, []string{b}, "otters")
		if got := l.loadedSources(); !reflect.DeepEqual(got, []string{b}) {
			t.Fatalf("loaded after B: %v, want only B (A evicted)", got)
		}
		if got := lexQuery(t, l, []string{a}, "otters kelp number7"); !reflect.DeepEqual(got, wantA) {
			t.Fatalf("A reloaded: %+v, want %+v", got, wantA)
		}
		if got := l.loadedSources(); !reflect.DeepEqual(got, []string{a}) {
			t.Fatalf("loaded after A again: %v", got)
		}

		// Both sources in one search stay loaded together, over budget.
		lexQuery(t, l, []string{a, b}, "otters")
		if got := l.loadedSources(); len(got) != 2 {
			t.Fatalf("a search's own sources were evicted: %v", got)
		}

		// Evict A, then remove its passage 7 while it is unloaded.
		lexQuery(t, l, []string{b}, "otters")
		if got := l.loadedSources(); !reflect.DeepEqual(got, []string{b}) {
			t.Fatalf("loaded after B: %v", got)
		}
		texts := passages("alpha", 40)
		removed := f.swap(t, a, append(texts[:7:7], texts[8:]...))
		if len(removed) == 0 {
			t.Fatal("the swap removed nothing")
		}
		l.Forget(a, removed)
		if err := l.Refresh(context.Background(), a, removed); err != nil {
			t.Fatal(err)
		}
		want := lexQuery(t, newLexIndex(f.db, 0), []string{a}, "otters kelp number7")
		gone := map[int64]bool{}
		for _, s := range removed {
			gone[s] = true
		}
		for _, h := range want {
			if gone[h.Key] {
				t.Fatalf("a removed passage is still found by a fresh index: %+v", want)
			}
		}
		if got := lexQuery(t, l, []string{a}, "otters kelp number7"); !reflect.DeepEqual(got, want) {
			t.Fatalf("A after a removal while unloaded: %+v, want %+v", got, want)
		}

		// Drop of an unloaded source, and search after, stay correct.
		l.Drop(b)
		if got := l.loadedSources(); !reflect.DeepEqual(got, []string{a}) {
			t.Fatalf("loaded after dropping B: %v", got)
		}
	})
}

// A source a search holds is never unloaded by other searches, however
// small the budget; run with -race.
func TestLexIndexKeepsSourcesInUse(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		f := newLexFixture(t, d)
		var ids []string
		for i := range 4 {
			ids = append(ids, f.source(t, fmt.Sprintf("s%d", i), passages(fmt.Sprintf("s%d", i), 20)))
		}
		l := newLexIndex(f.db, 1) // every source is over budget
		want := map[string][]sourcedHit{}
		for _, id := range ids {
			want[id] = lexQuery(t, newLexIndex(f.db, 0), []string{id}, "otters number3")
		}

		// Hold source 0 as a search in progress would.
		held, done, err := l.Indexes(context.Background(), ids[:1])
		if err != nil {
			t.Fatal(err)
		}
		before := held[0].Len()

		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 8 {
					id := ids[(w+i)%len(ids)]
					idxs, done, err := l.Indexes(context.Background(), []string{id})
					if err != nil {
						errs <- err
						return
					}
					got := lexSearch(idxs, []string{id}, lexPlan(idxs, lexical.ParseQuery("otters number3")), nil, 10, nil)
					done()
					if !reflect.DeepEqual(got, want[id]) {
						errs <- fmt.Errorf("%s: %+v, want %+v", id, got, want[id])
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if held[0].Len() != before {
			t.Fatalf("the held index changed under its search: %d passages, was %d", held[0].Len(), before)
		}
		got := lexSearch(held, ids[:1], lexPlan(held, lexical.ParseQuery("otters number3")), nil, 10, nil)
		if !reflect.DeepEqual(got, want[ids[0]]) {
			t.Fatalf("held search: %+v, want %+v", got, want[ids[0]])
		}
		done()
		// Once released, the next search elsewhere may unload it.
		lexQuery(t, l, ids[1:2], "otters")
		if got := l.loadedSources(); !reflect.DeepEqual(got, ids[1:2]) {
			t.Fatalf("loaded: %v, want only %v", got, ids[1:2])
		}
	})
}

// The size estimate the budget counts is near the memory an index really
// holds (measured as heap growth), shrinks when deletions are compacted
// away and is nothing after Reset.
func TestLexicalSizeEstimate(t *testing.T) {
	gen := newTextGen(rand.New(rand.NewPCG(1, 2)))
	const n = 20000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ix := lexical.New()
	for start := 0; start < n; start += 1000 {
		var docs []lexical.Doc
		for i := start; i < start+1000; i++ {
			docs = append(docs, lexical.Doc{Key: int64(i), Group: strconv.Itoa(i / 50), Body: gen.text(80), Heading: gen.text(6)})
		}
		ix.Add(docs...)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	est, heap := ix.SizeBytes(), int64(after.HeapAlloc)-int64(before.HeapAlloc)
	t.Logf("%d passages of 80 words: estimate %d bytes, heap growth %d bytes", n, est, heap)
	if est < heap/2 || est > heap*2 {
		t.Fatalf("estimate %d bytes is off the heap growth %d bytes by more than a factor of 2", est, heap)
	}
	var half []int64
	for i := range int64(n * 3 / 4) {
		half = append(half, i)
	}
	ix.Delete(half...) // compacts: most passages are gone
	if shrunk := ix.SizeBytes(); shrunk >= est*3/4 {
		t.Fatalf("after deleting 3/4 of the passages the estimate is %d bytes, was %d", shrunk, est)
	}
	ix.Reset()
	if got := ix.SizeBytes(); got != 0 || ix.Len() != 0 {
		t.Fatalf("after Reset: %d bytes, %d passages", got, ix.Len())
	}
	runtime.KeepAlive(ix)
}

// Sources without passages count against the budget too, so searching
// many of them does not pile up entries.
func TestLexIndexBoundsEmptySources(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d store.Dialect) {
		f := newLexFixture(t, d)
		l := newLexIndex(f.db, 10*lexEntryBytes)
		for i := range 40 {
			id := f.source(t, fmt.Sprintf("empty%d", i), nil)
			lexQuery(t, l, []string{id}, "otters")
		}
		if got := len(l.loadedSources()); got > 10 {
			t.Fatalf("%d empty sources held under a budget of 10 entries", got)
		}
	})
}
