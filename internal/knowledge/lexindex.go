package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentry/agentry/internal/knowledge/lexical"
	"github.com/agentry/agentry/internal/store"
)

// lexIndex is the full-text side of the search index: one in-process
// lexical.Index per source, loaded from the stored passages on the
// source's first search and kept in step with the database the way the
// in-process vector index is (memIndex): before each search the passages
// added since are read by seq; this process's deletions arrive through
// Forget, other processes' when a search meets a passage that is gone.
//
// It lives in process on both databases, rather than in FTS5 or a
// tsvector, so that ranking is BM25F over the passage and its heading with
// statistics of the searched sources only (one tenant's documents never
// weigh in another's ranking), RM3 can read term statistics, the ranking
// is the same on SQLite and PostgreSQL, and a search at 100,000 passages
// stays within milliseconds (docs/retrieval-quality.md).
//
// A tenant decides how many sources and passages it has, so the loaded
// indexes are bounded by a byte budget (--full-text-index-bytes): after a
// search loads or syncs its sources, while the estimated total exceeds
// the budget the least recently searched sources no search is using are
// unloaded, and their next search loads them again from the database
// (which is the truth, so results do not change).
type lexIndex struct {
	db     *store.DB
	budget int64 // bytes; 0: no bound
	mu     sync.Mutex
	m      map[string]*lexSource
	clock  int64 // ticks at every use, for least recently searched
}

type lexSource struct {
	mu     sync.Mutex // held while loading or syncing
	loaded bool
	ix     *lexical.Index // never replaced: unloading resets it
	high   int64          // highest seq read

	// Under lexIndex.mu:
	inUse    int   // searches holding ix
	lastUsed int64 // lexIndex.clock at the last search
}

func newLexIndex(db *store.DB, budget int64) *lexIndex {
	return &lexIndex{db: db, budget: budget, m: map[string]*lexSource{}}
}

// acquire returns the source's entry, marked in use until release.
func (l *lexIndex) acquire(id string) *lexSource {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls, ok := l.m[id]
	if !ok {
		ls = &lexSource{ix: lexical.New()}
		l.m[id] = ls
	}
	ls.inUse++
	l.clock++
	ls.lastUsed = l.clock
	return ls
}

func (l *lexIndex) release(sources []*lexSource) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ls := range sources {
		if ls != nil {
			ls.inUse--
		}
	}
}

// lookback re-reads recent seqs on PostgreSQL, where a transaction may
// commit a lower seq after a higher one was seen (only seqs are read
// again; passages only for those missing).
func (l *lexIndex) lookback() int64 {
	if l.db.Dialect == store.Postgres {
		return 2048
	}
	return 0
}

// Indexes returns the up-to-date index of each source, in order, and
// what to call once the search is done with them: until then none of
// them is unloaded.
func (l *lexIndex) Indexes(ctx context.Context, sourceIDs []string) ([]*lexical.Index, func(), error) {
	out := make([]*lexical.Index, len(sourceIDs))
	held := make([]*lexSource, len(sourceIDs))
	done := func() { l.release(held) }
	for i, id := range sourceIDs {
		ls := l.acquire(id)
		held[i] = ls
		ls.mu.Lock()
		err := l.sync(ctx, id, ls)
		ls.mu.Unlock()
		if err != nil {
			done()
			return nil, nil, err
		}
		out[i] = ls.ix
	}
	l.evict()
	return out, done, nil
}

// lexEntryBytes is what an entry costs besides its index (the entry, an
// empty index's maps, the map slot), so that sources with no passages
// count too and do not pile up.
const lexEntryBytes = 512

// evict unloads the least recently searched sources while the loaded
// total exceeds the budget. A source in use by a search, or being loaded
// or synced (its lock is held), is skipped: the budget is a target that
// the sources of the searches under way may exceed.
func (l *lexIndex) evict() {
	if l.budget <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	type entry struct {
		id   string
		ls   *lexSource
		size int64
	}
	var loaded []entry
	var total int64
	for id, ls := range l.m {
		size := lexEntryBytes + ls.ix.SizeBytes()
		total += size
		if ls.inUse == 0 {
			loaded = append(loaded, entry{id, ls, size})
		}
	}
	if total <= l.budget {
		return
	}
	sort.Slice(loaded, func(i, j int) bool { return loaded[i].ls.lastUsed < loaded[j].ls.lastUsed })
	for _, e := range loaded {
		if total <= l.budget {
			break
		}
		if !e.ls.mu.TryLock() {
			continue
		}
		// inUse is only raised under l.mu, which is held: no search can
		// take this source until it is gone from the map. Forget and
		// Refresh may still hold the entry: on the emptied, unloaded
		// index they do nothing, and the next search loads a new entry
		// from the database.
		e.ls.ix.Reset()
		e.ls.loaded, e.ls.high = false, 0
		e.ls.mu.Unlock()
		delete(l.m, e.id)
		total -= e.size
	}
}

// loadedSources lists the sources whose index is held (for tests).
func (l *lexIndex) loadedSources() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for id := range l.m {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// sync reads what the database has beyond what the index holds. Called
// with ls.mu held.
func (l *lexIndex) sync(ctx context.Context, sourceID string, ls *lexSource) error {
	if !ls.loaded {
		if err := l.read(ctx, sourceID, ls, func(fn func(PassageRow) error) error {
			return repoOn(l.db).SourcePassages(ctx, sourceID, 0, fn)
		}); err != nil {
			return err
		}
		ls.loaded = true
		return nil
	}
	if back := l.lookback(); back > 0 {
		seqs, err := repoOn(l.db).SourceChunkSeqsAbove(ctx, sourceID, max(0, ls.high-back))
		if err != nil {
			return err
		}
		var missing []int64
		for _, s := range seqs {
			if !ls.ix.Has(s) {
				missing = append(missing, s)
			}
		}
		if len(missing) == 0 {
			return nil
		}
		sort.Slice(missing, func(i, j int) bool { return missing[i] < missing[j] })
		for start := 0; start < len(missing); start += 500 {
			batch := missing[start:min(start+500, len(missing))]
			if err := l.read(ctx, sourceID, ls, func(fn func(PassageRow) error) error {
				return repoOn(l.db).SourcePassagesBySeq(ctx, sourceID, batch, fn)
			}); err != nil {
				return err
			}
		}
		return nil
	}
	return l.read(ctx, sourceID, ls, func(fn func(PassageRow) error) error {
		return repoOn(l.db).SourcePassages(ctx, sourceID, ls.high, fn)
	})
}

// read adds the passages a query yields, in batches, building each
// content's heading once.
func (l *lexIndex) read(ctx context.Context, sourceID string, ls *lexSource, query func(func(PassageRow) error) error) error {
	var batch []lexical.Doc
	headings := map[string]string{}
	err := query(func(r PassageRow) error {
		h, ok := headings[r.ContentID]
		if !ok {
			h = heading(r.Title, r.Description, r.Metadata)
			if len(headings) > 1000 {
				clear(headings)
			}
			headings[r.ContentID] = h
		}
		batch = append(batch, lexical.Doc{Key: r.Seq, Group: r.ContentID, Body: r.Text, Heading: h})
		ls.high = max(ls.high, r.Seq)
		if len(batch) == 1000 {
			ls.ix.Add(batch...)
			batch = batch[:0]
		}
		return nil
	})
	if len(batch) > 0 {
		ls.ix.Add(batch...)
	}
	if err != nil {
		return fmt.Errorf("load the full-text index: %w", err)
	}
	return nil
}

// Forget drops removed passages of a source.
func (l *lexIndex) Forget(sourceID string, removed []int64) {
	if len(removed) == 0 {
		return
	}
	l.mu.Lock()
	ls := l.m[sourceID]
	l.mu.Unlock()
	if ls != nil {
		ls.ix.Delete(removed...)
	}
}

// Drop forgets a deleted source.
func (l *lexIndex) Drop(sourceID string) {
	l.mu.Lock()
	delete(l.m, sourceID)
	l.mu.Unlock()
}

// Refresh indexes a content's passages again (its heading changed: new
// metadata); seqs are the content's current passages.
func (l *lexIndex) Refresh(ctx context.Context, sourceID string, seqs []int64) error {
	l.mu.Lock()
	ls := l.m[sourceID]
	l.mu.Unlock()
	if ls == nil || len(seqs) == 0 {
		return nil
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if !ls.loaded {
		return nil
	}
	ls.ix.Delete(seqs...)
	return l.read(ctx, sourceID, ls, func(fn func(PassageRow) error) error {
		return repoOn(l.db).SourcePassagesBySeq(ctx, sourceID, seqs, fn)
	})
}

// headingKeys are the metadata keys whose values describe a content, and
// so are searched with its passages (as its title is). Other keys (ids,
// links, dates, numbers) would only add noise.
var headingKeys = []string{"author", "authors", "description", "summary", "abstract", "keywords", "tags", "category",
	"categories", "subject", "subjects", "topic", "topics"}

// maxHeadingBytes bounds a heading: it is repeated with every passage.
const maxHeadingBytes = 2048

// heading is what a content's passages are searched by besides their
// text: its title, its description and its descriptive metadata.
func heading(title, description *string, rawMeta string) string {
	var parts []string
	if title != nil && strings.TrimSpace(*title) != "" {
		parts = append(parts, *title)
	}
	if description != nil && strings.TrimSpace(*description) != "" {
		parts = append(parts, *description)
	}
	if rawMeta != "" && rawMeta != "{}" {
		var meta map[string]any
		if json.Unmarshal([]byte(rawMeta), &meta) == nil {
			for _, k := range headingKeys {
				parts = appendText(parts, meta[k])
			}
		}
	}
	h := strings.Join(parts, "\n")
	if len(h) > maxHeadingBytes {
		h = strings.ToValidUTF8(h[:maxHeadingBytes], "")
	}
	return h
}

// appendText adds a metadata value's text: a string, or the strings of a
// list.
func appendText(parts []string, v any) []string {
	switch v := v.(type) {
	case string:
		if strings.TrimSpace(v) != "" {
			parts = append(parts, v)
		}
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok && strings.TrimSpace(s) != "" {
				parts = append(parts, s)
			}
		}
	}
	return parts
}
