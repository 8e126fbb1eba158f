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
type lexIndex struct {
	db *store.DB
	mu sync.Mutex
	m  map[string]*lexSource
}

type lexSource struct {
	mu     sync.Mutex
	loaded bool
	ix     *lexical.Index
	high   int64 // highest seq read
}

func newLexIndex(db *store.DB) *lexIndex {
	return &lexIndex{db: db, m: map[string]*lexSource{}}
}

func (l *lexIndex) source(id string) *lexSource {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls, ok := l.m[id]
	if !ok {
		ls = &lexSource{ix: lexical.New()}
		l.m[id] = ls
	}
	return ls
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

// Indexes returns the up-to-date index of each source, in order.
func (l *lexIndex) Indexes(ctx context.Context, sourceIDs []string) ([]*lexical.Index, error) {
	out := make([]*lexical.Index, len(sourceIDs))
	for i, id := range sourceIDs {
		ls := l.source(id)
		ls.mu.Lock()
		err := l.sync(ctx, id, ls)
		ls.mu.Unlock()
		if err != nil {
			return nil, err
		}
		out[i] = ls.ix
	}
	return out, nil
}

// sync reads what the database has beyond what the index holds. Called
// with ls.mu held.
func (l *lexIndex) sync(ctx context.Context, sourceID string, ls *lexSource) error {
	if !ls.loaded {
		if err := l.read(ctx, sourceID, ls, func(fn func(store.PassageRow) error) error {
			return l.db.SourcePassages(ctx, sourceID, 0, fn)
		}); err != nil {
			return err
		}
		ls.loaded = true
		return nil
	}
	if back := l.lookback(); back > 0 {
		seqs, err := l.db.SourceChunkSeqsAbove(ctx, sourceID, max(0, ls.high-back))
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
			if err := l.read(ctx, sourceID, ls, func(fn func(store.PassageRow) error) error {
				return l.db.SourcePassagesBySeq(ctx, sourceID, batch, fn)
			}); err != nil {
				return err
			}
		}
		return nil
	}
	return l.read(ctx, sourceID, ls, func(fn func(store.PassageRow) error) error {
		return l.db.SourcePassages(ctx, sourceID, ls.high, fn)
	})
}

// read adds the passages a query yields, in batches, building each
// content's heading once.
func (l *lexIndex) read(ctx context.Context, sourceID string, ls *lexSource, query func(func(store.PassageRow) error) error) error {
	var batch []lexical.Doc
	headings := map[string]string{}
	err := query(func(r store.PassageRow) error {
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
	return l.read(ctx, sourceID, ls, func(fn func(store.PassageRow) error) error {
		return l.db.SourcePassagesBySeq(ctx, sourceID, seqs, fn)
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
